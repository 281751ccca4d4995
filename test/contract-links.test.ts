/**
 * The contract's OpenAPI links (issue 24, item 4: "add OpenAPI links where one operation's answer
 * feeds another, so stateful tools can chain calls"): every link names an operation of the
 * contract; every runtime expression names a field that exists (a `$response.body#/...` pointer in
 * the source's success schema, a `$request.body#/...` pointer in its request schema, a
 * `$request.header.X` among its parameters); every parameter and body field a link fills exists on
 * its target. And the chains work: following them on the mock gets 2xx.
 */
import { describe, expect, it } from 'vitest'
import { loadContract, type JsonSchema, type OperationInfo } from '../openapi/index.ts'
import { mockHarness } from './support/harness.ts'

const contract = loadContract()
const { doc } = contract

type Link = { operationId: string; parameters?: Record<string, unknown>; requestBody?: unknown }

const resolve = (schema: JsonSchema | undefined): JsonSchema => {
  let s = schema ?? {}
  while (typeof s.$ref === 'string') s = doc.components.schemas[(s.$ref as string).split('/').pop()!] ?? {}
  return s
}

/** The schemas a JSON pointer can reach in `schema` (through $ref, allOf/anyOf/oneOf, items). */
function reach(schema: JsonSchema, segments: string[]): JsonSchema[] {
  const s = resolve(schema)
  const alternatives = [...((s.allOf ?? []) as JsonSchema[]), ...((s.anyOf ?? []) as JsonSchema[]), ...((s.oneOf ?? []) as JsonSchema[])]
  if (segments.length === 0) return [s]
  const [head, ...rest] = segments
  const here: JsonSchema[] = []
  const properties = s.properties as Record<string, JsonSchema> | undefined
  if (properties?.[head!]) here.push(...reach(properties[head!]!, rest))
  if (/^\d+$/.test(head!) && s.items) here.push(...reach(s.items as JsonSchema, rest))
  for (const alternative of alternatives) here.push(...reach(alternative, segments))
  return here
}

const pointerOf = (expression: string, prefix: string) => expression.slice(prefix.length).split('/').filter(Boolean)

const linksOf = (op: OperationInfo): Record<string, Link> => {
  const success = op.operation.responses[String(op.successStatus)] as { links?: Record<string, Link> }
  return success.links ?? {}
}

/** Every runtime expression inside a link's values, with where it sits. */
function expressions(value: unknown, at: string[] = []): Array<{ at: string[]; expression: string }> {
  if (typeof value === 'string') return value.startsWith('$') ? [{ at, expression: value }] : []
  if (Array.isArray(value)) return value.flatMap((v) => expressions(v, [...at, '0']))
  if (value && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => expressions(v, [...at, k]))
  return []
}

function expressionProblem(source: OperationInfo, expression: string): string | undefined {
  if (expression.startsWith('$response.body#')) {
    const schema = (source.operation.responses[String(source.successStatus)] as any).content['application/json'].schema
    return reach(schema, pointerOf(expression, '$response.body#')).length ? undefined : `${expression} is not a field of ${source.operationId}'s answer`
  }
  if (expression.startsWith('$request.body#')) {
    return source.requestSchema && reach(source.requestSchema, pointerOf(expression, '$request.body#')).length ? undefined : `${expression} is not a field of ${source.operationId}'s body`
  }
  if (expression.startsWith('$request.header.')) {
    const name = expression.slice('$request.header.'.length).toLowerCase()
    const headers = (source.operation.parameters ?? []).map((p: any) => (p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p) as { in: string; name: string })
    return headers.some((h) => h.in === 'header' && h.name.toLowerCase() === name) ? undefined : `${expression} is not a header of ${source.operationId}`
  }
  return `${expression}: not a runtime expression this contract uses`
}

describe('contract links (issue 24: chains of calls for stateful tools)', () => {
  const sources = contract.operations.filter((op) => Object.keys(linksOf(op)).length)

  it('every link names an operation of the contract; its expressions name fields of its source; what it fills exists on its target', () => {
    const problems: string[] = []
    let count = 0
    for (const source of sources) {
      for (const [name, link] of Object.entries(linksOf(source))) {
        count++
        const where = `${source.operationId} → ${name}`
        const target = contract.byId.get(link.operationId)
        if (!target) {
          problems.push(`${where}: no operation ${link.operationId}`)
          continue
        }
        for (const { expression } of expressions({ ...link.parameters, body: link.requestBody })) {
          const problem = expressionProblem(source, expression)
          if (problem) problems.push(`${where}: ${problem}`)
        }
        for (const key of Object.keys(link.parameters ?? {})) {
          const [location, pname] = key.split('.', 2) as [string, string]
          const params = [...target.query, ...target.pathParams]
          const ok = location === 'header' ? true : params.some((p) => p.in === location && p.name === pname)
          const headerOk = location !== 'header' || (target.operation.parameters ?? []).some((p: any) => {
            const param = p.$ref ? doc.components.parameters[p.$ref.split('/').pop()] : p
            return param.in === 'header' && param.name.toLowerCase() === pname.toLowerCase()
          })
          if (!ok || !headerOk) problems.push(`${where}: ${key} is not a parameter of ${target.operationId}`)
        }
        if (link.requestBody !== undefined) {
          if (!target.requestSchema) problems.push(`${where}: ${target.operationId} takes no body`)
          else for (const { at } of expressions(link.requestBody)) if (!reach(target.requestSchema, at).length) problems.push(`${where}: ${at.join('.')} is not a body field of ${target.operationId}`)
        }
      }
    }
    expect(problems).toEqual([])
    expect(count).toBeGreaterThan(100)
  })

  it('creates link to their get, update and delete; shops to every shop-scoped call; idempotent writes to their lookup', () => {
    const targets = (id: string) => Object.values(linksOf(contract.byId.get(id)!)).map((l) => l.operationId)
    expect(targets('createDashboard')).toEqual(expect.arrayContaining(['getDashboard', 'getDashboardGet', 'getDashboardData', 'updateDashboard', 'deleteDashboard']))
    for (const [create, ...rest] of [
      ['createAutomation', 'updateAutomation', 'deleteAutomation'],
      ['createGroup', 'deleteGroup', 'createAutomation'],
      ['createList', 'deleteList', 'mergeLists', 'createAutomation'],
      ['createCreatorBrief', 'updateCreatorBrief', 'deleteCreatorBrief'],
      ['createCommunityCampaign', 'updateCommunityCampaign', 'deleteCommunityCampaign', 'authorizeCommunityPayout'],
      ['createWorkflow', 'getWorkflow', 'toggleWorkflow', 'deleteWorkflow'],
      ['createEmailCampaign', 'updateEmailCampaign', 'deleteEmailCampaign'],
      ['listSampleRequests', 'approveSampleRequests', 'rejectSampleRequests', 'ignoreSampleRequests'],
    ] as const) expect(targets(create), create).toEqual(expect.arrayContaining(rest))
    const shopScoped = contract.operations.filter((o) => o.auth === 'key+shop').map((o) => o.operationId)
    expect(targets('listAccountShops').sort()).toEqual(shopScoped.sort())
    for (const op of contract.operations.filter((o) => o.idempotent)) expect(targets(op.operationId), op.operationId).toContain('getIdempotencyRecord')
  })
})

describe('contract links followed on the mock (issue 24)', () => {
  const { call, mutating } = mockHarness({ now: '2026-03-10T12:00:00.000Z' })

  /** The value of a `$response.body#/...` expression in an answer. */
  const at = (json: unknown, expression: string) => pointerOf(expression, '$response.body#').reduce<any>((v, k) => v?.[k], json)
  /** A link's body with its expressions replaced by the answer's values. */
  const fill = (value: unknown, json: unknown): unknown =>
    typeof value === 'string' && value.startsWith('$response.body#') ? at(json, value)
      : Array.isArray(value) ? value.map((v) => fill(v, json))
      : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, json)]))
      : value

  it.each([
    ['createDashboard', { name: 'Linked board', widgets: [{ type: 'stat', stat_key: 'affiliate_gmv' }] }],
    ['createCreatorBrief', { type: 'static', title: 'Linked brief' }],
    ['createCommunityCampaign', { title: 'Linked race', type: 'race' }],
    ['createWorkflow', { name: 'Linked workflow', trigger: { type: 'sample_delivered' } }],
    ['createGroup', { name: 'Linked group' }],
  ] as const)('links: every link of %s, followed with the values of its answer, gets 2xx', async (operationId, body) => {
    mutating()
    const source = contract.byId.get(operationId)!
    let n = 0
    for (const [name, link] of Object.entries(linksOf(source))) {
      const query = Object.entries(link.parameters ?? {}).filter(([key]) => key.startsWith('query.'))
      if (link.operationId === 'getIdempotencyRecord' || (!link.requestBody && !query.length)) continue
      // A fresh source per link (a delete must not meet a board renamed by the update before it).
      const created = await call(source.method, source.path, 'name' in body ? { ...body, name: `${body.name} ${++n}` } : body)
      expect(created.status).toBe(source.successStatus)
      const target = contract.byId.get(link.operationId)!
      const filled = (query.length ? Object.fromEntries(query.map(([key, v]) => [key.slice('query.'.length), fill(v, created.json)])) : fill(link.requestBody, created.json)) as Record<string, unknown>
      // A link fills the chained fields; the target's own required fields are the caller's (an automation's title...).
      const extra = link.operationId === 'createAutomation' ? { title: 'Linked automation' } : link.operationId === 'authorizeCommunityPayout' ? { handle: (await call('POST', '/affiliate/crm/list', { page_size: 1 })).json.results[0].handle, period: '2026-03' } : {}
      const answer = await call(target.method, target.path, { ...filled, ...extra })
      expect(answer.status, `${operationId} → ${name}: ${answer.text.slice(0, 200)}`).toBeLessThan(300)
    }
  })
})
