/**
 * OpenAPI links (3.1, 4.8.20): where one operation's answer feeds another, so that stateful tools
 * (fuzzers, test generators, agents) can chain calls: a create's id into its get, update and delete;
 * a listed shop's id into every shop-scoped call; an Idempotency-Key into its lookup. Values are
 * runtime expressions (`$response.body#/data/id`, `$request.header.Idempotency-Key`); a body field is
 * given as a request body object whose values are expressions. test/contract-links.test.ts checks that
 * every target exists and every expression names a field of its source.
 */
import type { OperationSpec, Schema } from './dsl.ts'

type Link = { operationId: string; description: string; parameters?: Record<string, unknown>; requestBody?: unknown }

const body = (pointer: string) => `$response.body#${pointer}`

/** Links from a create's answer to the operations that take its id in the body. */
function byId(field: string, pointer: string, targets: string[], what: string): Record<string, Link> {
  return Object.fromEntries(targets.map((operationId) => [operationId, { operationId, description: `The ${what}'s \`${field}\`.`, requestBody: { [field]: body(pointer) } }]))
}

const dashboardTargets = (pointer: string): Record<string, Link> => ({
  ...byId('dashboard_id', pointer, ['getDashboard', 'getDashboardData', 'deleteDashboard'], 'board'),
  getDashboardGet: { operationId: 'getDashboardGet', description: 'The board, by GET.', parameters: { 'query.dashboard_id': body(pointer) } },
})

const BOARD = '/data/id'
const UPDATE_BOARD: Link = {
  operationId: 'updateDashboard',
  description: 'Update the board, guarded by the `updated_at` just read (412 if it changed since).',
  requestBody: { dashboard_id: body(BOARD), expected_updated_at: body('/data/updated_at') },
}

/** The links of each operation's success response, by operationId (beside the generated ones below). */
const LINKS: Record<string, Record<string, Link>> = {
  createDashboard: { ...dashboardTargets(BOARD), updateDashboard: UPDATE_BOARD },
  getDashboard: { ...dashboardTargets(BOARD), updateDashboard: UPDATE_BOARD },
  updateDashboard: { ...dashboardTargets(BOARD), updateDashboard: UPDATE_BOARD },
  listDashboards: dashboardTargets('/data/dashboards/0/id'),

  createAutomation: byId('campaign_id', '/data/campaign_id', ['updateAutomation', 'deleteAutomation'], 'automation'),
  createEmailCampaign: byId('campaign_id', '/data/campaign_id', ['updateEmailCampaign', 'deleteEmailCampaign'], 'email campaign'),
  createCustomEmailSender: byId('sender_id', '/data/sender_id', ['createEmailCampaign', 'updateEmailCampaign'], 'sender'),
  createGroup: {
    ...byId('group_id', '/data/group_id', ['deleteGroup'], 'group'),
    createAutomation: { operationId: 'createAutomation', description: 'An automation to the group (spec: Rules of the named resources: Groups).', requestBody: { outreach_audience: { type: 'groups', group_id: body('/data/group_id') } } },
  },
  createList: {
    deleteList: { operationId: 'deleteList', description: 'The list, by its title.', requestBody: { title: body('/data/title') } },
    mergeLists: { operationId: 'mergeLists', description: 'Merge the list into another.', requestBody: { source_titles: [body('/data/title')] } },
    createAutomation: { operationId: 'createAutomation', description: 'An automation to the list (spec: Rules of the named resources: Groups: "Lists are used by `outreach_audience: list`").', requestBody: { outreach_audience: { type: 'list', list: body('/data/title') } } },
  },
  addTag: { removeTag: { operationId: 'removeTag', description: 'Take the tag off the same creators.', requestBody: { tag: '$request.body#/tag', handles: '$request.body#/handles' } } },
  createWorkflow: byId('workflow_id', '/data/workflow_id', ['getWorkflow', 'toggleWorkflow', 'deleteWorkflow'], 'workflow'),
  listWorkflows: byId('workflow_id', '/data/workflows/0/workflow_id', ['getWorkflow', 'toggleWorkflow', 'deleteWorkflow'], 'first workflow'),
  createCreatorBrief: byId('brief_id', '/data/brief_id', ['updateCreatorBrief', 'deleteCreatorBrief'], 'brief'),
  createCommunityCampaign: byId('campaign_id', '/data/campaign_id', ['updateCommunityCampaign', 'deleteCommunityCampaign', 'authorizeCommunityPayout'], 'community campaign'),

  listSampleRequests: Object.fromEntries(
    ['approveSampleRequests', 'rejectSampleRequests', 'ignoreSampleRequests'].map((operationId) => [
      operationId,
      { operationId, description: 'The first request listed, by its `apply_id` (spec: Resources: Sample request: "the id used by approve/reject/ignore").', requestBody: { apply_ids: [body('/data/results/0/apply_id')] } },
    ]),
  ),
  ignoreSampleRequests: { unignoreSampleRequests: { operationId: 'unignoreSampleRequests', description: 'Reverse the ignore.', requestBody: { apply_ids: '$request.body#/apply_ids' } } },
  listCreatorPrograms: { listProgramCreators: { operationId: 'listProgramCreators', description: 'The creators of the first program listed.', requestBody: { program_id: body('/data/programs/0/program_id') } } },
  listAdCampaigns: { listAdCreatives: { operationId: 'listAdCreatives', description: 'The creatives of the first campaign listed.', requestBody: { campaign_id: body('/data/campaigns/0/campaign_id') } } },
}

/** spec: Authentication 1: `x-shop-id` is "the internal shop id returned as `shop_id` by `GET /account/shops`". */
function shopLinks(operations: readonly OperationSpec[]): Record<string, Link> {
  return Object.fromEntries(
    operations
      .filter((op) => (op.auth ?? 'key+shop') === 'key+shop')
      .map((op) => [op.operationId, { operationId: op.operationId, description: 'The first shop\'s `shop_id` as `x-shop-id`.', parameters: { 'header.x-shop-id': body('/data/0/shop_id') } }]),
  )
}

/** spec: Idempotency: "`GET /idempotency/{key}` ... Scoped to the shop in `x-shop-id`." */
const IDEMPOTENCY_LOOKUP: Link = {
  operationId: 'getIdempotencyRecord',
  description: 'The stored answer of this request, by the Idempotency-Key it was sent with (when one was).',
  parameters: { 'path.key': '$request.header.Idempotency-Key', 'header.x-shop-id': '$request.header.x-shop-id' },
}

/** The links of an operation's success response, or undefined. */
export function linksOf(op: OperationSpec, operations: readonly OperationSpec[]): Schema | undefined {
  const links: Record<string, Link> = { ...LINKS[op.operationId] }
  if (op.operationId === 'listAccountShops') Object.assign(links, shopLinks(operations))
  if (op.idempotent) links.getIdempotencyRecord = IDEMPOTENCY_LOOKUP
  return Object.keys(links).length ? links : undefined
}
