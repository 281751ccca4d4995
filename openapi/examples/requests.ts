/**
 * The request of each operation's example (issue 24: "request and response examples on every
 * operation"): realistic calls on the seeded demo world, whose answers openapi/examples/generate.ts
 * records by running the mock. A request may first make other calls (a board to update, a key to
 * look up), as a client would: the chain the contract's `links` describe.
 */
import type { ShopData, ShopRecord, World } from '../../fixtures/index.ts'

export interface ExampleRequest {
  summary: string
  body?: Record<string, unknown>
  query?: Record<string, unknown>
  path?: Record<string, string>
  headers?: Record<string, string>
}

export interface ExampleContext {
  world: World
  /** The main demo shop (Scale plan, active) and its data. */
  shop: ShopRecord
  data: ShopData
  today: string
  /** Runs another operation first; its JSON answer. */
  call(operationId: string, request: Omit<ExampleRequest, 'summary'>): Promise<{ status: number; json: any }>
}

type Build = (ctx: ExampleContext) => ExampleRequest | Promise<ExampleRequest>

const daysBefore = (today: string, days: number) => new Date(Date.parse(`${today}T00:00:00Z`) - days * 86_400_000).toISOString().slice(0, 10)
/** The 30 days ending two days ago, the range most examples read. */
const lastMonth = (today: string) => ({ from: daysBefore(today, 31), to: daysBefore(today, 2) })
const toReview = (data: ShopData) => data.sampleRequests.filter((r) => r.status === 'To Review')

async function newDashboard(ctx: ExampleContext): Promise<{ id: string; updated_at: string; widgets: Array<{ id: string }> }> {
  const created = await ctx.call('createDashboard', { body: { name: 'Weekly creator review', widgets: [{ type: 'stat', stat_key: 'affiliate_gmv' }, { type: 'stat-chart', stat_keys: ['video_views', 'likes'] }] } })
  return created.json.data
}

const campaigns: Build = ({ today }) => ({ summary: 'Sales-max campaigns by ad spend over the last 30 days', body: { date_range: lastMonth(today), page: 1, page_size: 3, sort_by: 'ad_spend', sort_direction: 'DESC' } })
const creatives: Build = ({ data }) => ({ summary: 'Creatives of one campaign by gross revenue (trailing 6 months)', body: { campaign_id: data.campaigns[0]!.campaign_id, page_size: 3, sort_by: 'gross_revenue' } })
const excluded: Build = () => ({ summary: 'Active exclusions, newest first', body: { page: 1, page_size: 3, sort_by: 'created_at', sort_direction: 'DESC' } })
const boosted: Build = () => ({ summary: 'Boost sessions, ended ones included, by spend', body: { include_ended: true, page_size: 3, sort_by: 'spend' } })
const asQuery = (build: Build): Build => async (ctx) => {
  const { body, ...rest } = await build(ctx)
  return { ...rest, query: body }
}

/** One request per operationId (GET forms and /v1 aliases reuse their canonical operation's). */
export const exampleRequests: Record<string, Build> = {
  getHealth: () => ({ summary: 'Is the API up?' }),
  listAccountShops: () => ({ summary: 'Every shop of the account' }),
  listAccountActivity: ({ today }) => ({ summary: 'Actions by API key in the last week', query: { actor_kind: 'api_key', from: daysBefore(today, 7), to: today, page_size: 5 } }),
  getShopSps: () => ({ summary: 'The shop\'s SPS' }),
  listShopProducts: () => ({ summary: 'Open-plan products, best sellers first', body: { is_open_plan: true, sort_by: 'units_sold', sort_direction: 'desc' } }),
  listShopSkus: ({ data }) => ({ summary: 'SKUs of one product by stock', body: { product_id: data.products[0]!.product_id, sort_by: 'stock', sort_direction: 'desc' } }),
  getShopStats: ({ today }) => ({
    summary: 'Affiliate GMV, video views and DMs sent over the last 30 days, weekly charts',
    body: { date_range: lastMonth(today), include_charts: true, stats: ['affiliate_gmv', 'video_views', 'dms_sent'], grain: 'week' },
  }),
  getIdempotencyRecord: async (ctx) => {
    await ctx.call('createGroup', { body: { name: 'Rising stars', filters: { affiliate_performance: { min_followers: 10000 } } }, headers: { 'Idempotency-Key': 'create-group-2026-03-10-a' } })
    return { summary: 'The stored answer of a create made with Idempotency-Key', path: { key: 'create-group-2026-03-10-a' } }
  },

  searchTimeseriesProducts: ({ today }) => ({ summary: 'Products by total GMV over the last 30 days', body: { page_size: 3, page_number: 1, search_params: { date_range: lastMonth(today), sort_by: 'total_gmv', sort_direction: 'DESC' } } }),
  searchTimeseriesSkus: ({ today, data }) => ({ summary: 'SKUs of one product by GMV', body: { page_size: 3, page_number: 1, search_params: { date_range: lastMonth(today), sort_by: 'gmv', sort_direction: 'DESC', product_id: data.products[0]!.product_id } } }),
  searchTimeseriesAffiliates: ({ today }) => ({ summary: 'Top creators by GMV over the last 30 days', body: { page_size: 3, page_number: 1, search_params: { date_range: lastMonth(today), sort_by: 'gmv', sort_direction: 'DESC' } } }),
  searchTimeseriesVideos: ({ today }) => ({ summary: 'Top videos by views over the last 30 days', body: { page_size: 3, page_number: 1, search_params: { date_range: lastMonth(today), sort_by: 'views', sort_direction: 'DESC' } } }),
  searchTimeseriesSlideshows: ({ today }) => ({ summary: 'Slideshows by GMV over the last 90 days', body: { page_size: 3, page_number: 1, search_params: { date_range: { from: daysBefore(today, 91), to: daysBefore(today, 2) }, sort_by: 'gmv', sort_direction: 'DESC' } } }),

  listCrmAffiliates: () => ({ summary: 'CRM creators with at least two videos, by GMV', body: { page_size: 3, page_number: 1, sort_by: 'gmv', sort_direction: 'desc', filters: { min_videos: 2 } } }),
  listAffiliateVideos: ({ today }) => ({ summary: 'Videos posted in the last 30 days by GMV', body: { page_size: 3, page_number: 1, filters: { sort_by: 'gmv', sort_direction: 'desc', date_range: lastMonth(today) } } }),
  listAffiliateSlideshows: () => ({ summary: 'Slideshows by views', body: { page_size: 3, page_number: 1, filters: { sort_by: 'view_count', sort_direction: 'desc' } } }),
  listAffiliateLives: () => ({ summary: 'LIVE streams by GMV', body: { page_size: 3, page_number: 1, filters: { sort_by: 'gmv', sort_direction: 'desc' } } }),

  listSparkCodes: ({ today }) => ({
    summary: 'Codes shared in the last 180 days, by ad spend, with the total',
    body: { page_size: 3, page_number: 1, include_total: true, search_params: { sort_by: 'ad_spend', sort_direction: 'DESC', shared_time: { from: daysBefore(today, 180), to: today } } },
  }),
  listSparkCodesGet: ({ today }) => ({
    summary: 'The same search as a GET: search_params as JSON text',
    query: { page_size: 3, include_total: true, search_params: { sort_by: 'ad_spend', sort_direction: 'DESC', shared_time: { from: daysBefore(today, 180), to: today } } },
  }),

  listAdCampaigns: campaigns,
  listAdCreatives: creatives,
  listExcludedCreatives: excluded,
  listExcludedCreativesGet: asQuery(excluded),
  listBoostedCreatives: boosted,
  listBoostedCreativesGet: asQuery(boosted),

  listSocialCampaigns: ({ today }) => ({ summary: 'Pushed campaigns by spend over the last 30 days', body: { date_range: lastMonth(today), page_size: 3, sort_by: 'spend' } }),
  listSocialAdsets: ({ today }) => ({ summary: 'Ad sets by ROAS over the last 30 days', body: { date_range: lastMonth(today), page_size: 3, sort_by: 'roas' } }),
  listSocialAds: ({ today }) => ({ summary: 'Pushed ads by purchase value over the last 30 days', body: { date_range: lastMonth(today), page_size: 3, sort_by: 'purchase_value' } }),
  listCreatorPrograms: () => ({ summary: 'Active and paused creator programs, newest first', body: { statuses: ['active', 'paused'], page_size: 3 } }),
  listProgramCreators: ({ data }) => ({ summary: 'Pending and approved creators of one program', body: { program_id: data.programs[0]!.program_id, statuses: ['pending', 'approved'], page_size: 3 } }),

  getHaloReport: ({ today }) => ({ summary: 'Halo effect over the last 60 days, weekly series', body: { date_range: { from: daysBefore(today, 61), to: daysBefore(today, 2) }, granularity: 'week' } }),
  getHaloReportGet: ({ today }) => ({ summary: 'The same report as a GET with date_from and date_to', query: { date_from: daysBefore(today, 61), date_to: daysBefore(today, 2), granularity: 'week' } }),
  listHaloProductLinks: () => ({ summary: 'Connected stores and product links' }),

  getSampleFunnel: ({ today }) => ({ summary: 'Funnel of the sample requests of the last 90 days', body: { time_field: 'timestamp', time_from: daysBefore(today, 90), time_to: today } }),
  listSampleRequests: () => ({ summary: 'Requests waiting for review, newest first', body: { page_size: 3, page_number: 1, sort_by: 'timestamp', sort_direction: 'desc', filters: { sample_status: ['To Review'] } } }),
  listRefundableSampleRequests: () => ({ summary: 'Refundable samples by refund time', body: { page_size: 3, page_number: 1, sort_by: 'refund_time', sort_direction: 'desc', all_campaigns: true } }),
  approveSampleRequests: ({ data }) => ({ summary: 'Approve two requests', body: { apply_ids: toReview(data).slice(0, 2).map((r) => r.apply_id) } }),
  rejectSampleRequests: ({ data }) => ({ summary: 'Reject one request', body: { apply_ids: toReview(data).slice(2, 3).map((r) => r.apply_id) } }),
  ignoreSampleRequests: ({ data }) => ({ summary: 'Hide one request from the review queue', body: { apply_ids: toReview(data).slice(3, 4).map((r) => r.apply_id) } }),
  unignoreSampleRequests: async (ctx) => {
    const apply_ids = toReview(ctx.data).slice(3, 4).map((r) => r.apply_id)
    await ctx.call('ignoreSampleRequests', { body: { apply_ids } })
    return { summary: 'Bring an ignored request back', body: { apply_ids } }
  },
  sendCreatorDm: ({ data }) => ({ summary: 'A DM to one creator of the CRM', body: { handle: data.affiliates[0]!.handle, message: 'Hi [affiliate_name], we loved your last video: want a free sample of our new serum?' } }),

  listDashboards: () => ({ summary: 'Every board, archived ones too', body: { include_archived: true } }),
  listDashboardsGet: () => ({ summary: 'Boards that are not archived', query: { include_archived: false } }),
  getDashboard: async (ctx) => ({ summary: 'One board with its widgets', body: { dashboard_id: (await newDashboard(ctx)).id } }),
  getDashboardGet: async (ctx) => ({ summary: 'One board with its widgets, as a GET', query: { dashboard_id: (await newDashboard(ctx)).id } }),
  getDashboardData: async (ctx) => ({ summary: 'A board\'s numbers by week over its default range', body: { dashboard_id: (await newDashboard(ctx)).id, grain: 'week' } }),
  createDashboard: ({ data }) => ({
    summary: 'A board with a GMV number and a views-and-likes chart, locked to 30 days',
    body: {
      name: 'Weekly creator review',
      widgets: [{ type: 'stat', stat_key: 'affiliate_gmv', style: 'numbers' }, { type: 'stat-chart', stat_keys: ['video_views', 'likes'], chart: 'bar', title: 'Reach' }],
      default_date_range: '30d',
      default_grain: 'week',
      default_product_ids: [data.products[0]!.product_id],
    },
  }),
  updateDashboard: async (ctx) => {
    const board = await newDashboard(ctx)
    return {
      summary: 'Rename a board and add a widget, if nobody changed it since it was read',
      body: { dashboard_id: board.id, name: 'Creator review (weekly)', add_widgets: [{ type: 'stat', stat_key: 'commission' }], expected_updated_at: board.updated_at },
    }
  },
  deleteDashboard: async (ctx) => ({ summary: 'Delete a board', body: { dashboard_id: (await newDashboard(ctx)).id } }),

  createAutomation: ({ data }) => ({
    summary: 'A DM automation to a saved group',
    body: {
      title: 'Spring launch outreach',
      message_type: 'dm',
      outreach_audience: { type: 'groups', group_id: data.groups[0]!.group_id },
      dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]! Our spring collection is out: want to try it?' }],
    },
  }),
  updateAutomation: ({ data }) => ({ summary: 'Rename an automation', body: { campaign_id: data.automations[0]!.campaign_id, title: 'Spring launch outreach (v2)' } }),
  deleteAutomation: ({ data }) => ({ summary: 'Delete an automation', body: { campaign_id: data.automations[0]!.campaign_id } }),
  listAutomations: () => ({ summary: 'Stopped automations', body: { status: 'stopped' } }),

  createEmailCampaign: ({ data }) => ({
    summary: 'A draft email to a list',
    body: { title: 'March newsletter', subject: 'New samples are in', body: 'Hi [affiliate_name], new samples are ready to request.', recipients: { list: data.lists[0]!.title } },
  }),
  updateEmailCampaign: ({ data }) => ({ summary: 'Change a draft\'s subject', body: { campaign_id: data.emailCampaigns.find((c) => c.status !== 'sent')?.campaign_id ?? data.emailCampaigns[0]!.campaign_id, subject: 'New samples are in (last call)' } }),
  deleteEmailCampaign: ({ data }) => ({ summary: 'Delete an email campaign', body: { campaign_id: data.emailCampaigns[0]!.campaign_id } }),
  createCustomEmailSender: () => ({ summary: 'A custom sender', body: { email: 'partners@brand.example', name: 'Brand Partnerships', reply_to: 'team@brand.example' } }),

  createGroup: () => ({ summary: 'Creators with more than 10,000 followers', body: { name: 'Rising stars', filters: { affiliate_performance: { min_followers: 10000 } } } }),
  deleteGroup: ({ data }) => ({ summary: 'Delete a group', body: { group_id: data.groups[0]!.group_id } }),
  listGroups: () => ({ summary: 'The shop\'s groups', body: {} }),

  createList: ({ data }) => ({ summary: 'A list of three creators (one unknown handle is reported)', body: { title: 'Spring seeding', handles: [...data.affiliates.slice(0, 2).map((a) => `@${a.handle}`), 'no.such.creator'] } }),
  mergeLists: ({ data }) => ({ summary: 'Merge one list into another', body: { source_titles: [data.lists[0]!.title], target_title: data.lists[1]!.title } }),
  deleteList: ({ data }) => ({ summary: 'Delete a list by title', body: { title: data.lists[0]!.title } }),

  addTag: ({ data }) => ({ summary: 'Tag two CRM creators', body: { tag: 'VIP', handles: data.affiliates.slice(0, 2).map((a) => a.handle) } }),
  removeTag: async (ctx) => {
    const handles = ctx.data.affiliates.slice(0, 2).map((a) => a.handle)
    await ctx.call('addTag', { body: { tag: 'VIP', handles } })
    return { summary: 'Untag one creator', body: { tag: 'VIP', handles: handles.slice(0, 1) } }
  },
  listTags: () => ({ summary: 'The shop\'s tags with their creator counts', body: {} }),

  listWorkflows: () => ({ summary: 'Active workflows', body: { status: 'active' } }),
  getWorkflow: ({ data }) => ({ summary: 'One workflow', body: { workflow_id: data.workflows[0]!.workflow_id } }),
  createWorkflow: () => ({
    summary: 'A paused workflow: a DM when a sample is delivered',
    body: { name: 'Thank-you on delivery', trigger: { type: 'sample_delivered' }, steps: [{ type: 'send_dm', content: 'Hope you enjoy it, [affiliate_name]!' }], active: false },
  }),
  toggleWorkflow: ({ data }) => ({ summary: 'Pause or activate a workflow', body: { workflow_id: data.workflows[0]!.workflow_id } }),
  deleteWorkflow: ({ data }) => ({ summary: 'Delete a workflow', body: { workflow_id: data.workflows[0]!.workflow_id } }),

  createCreatorBrief: ({ data }) => ({ summary: 'A static brief showing two chosen videos', body: { title: 'How to film our serum', type: 'static', video_mode: 'manual', video_ids: data.videos.slice(0, 2).map((v) => v.video_id) } }),
  updateCreatorBrief: ({ data }) => ({ summary: 'Retitle a brief', body: { brief_id: data.briefs[0]!.brief_id, title: 'Filming guide (updated)' } }),
  deleteCreatorBrief: ({ data }) => ({ summary: 'Delete a brief', body: { brief_id: data.briefs[0]!.brief_id } }),

  createCommunityCampaign: ({ today }) => ({
    summary: 'A sales race, live at once',
    body: { title: 'March GMV race', type: 'race', status: 'active', description: 'Top three creators by GMV win a bonus.', start_date: today, end_date: daysBefore(today, -21) },
  }),
  updateCommunityCampaign: ({ data }) => ({ summary: 'Change a campaign\'s description', body: { campaign_id: data.communityCampaigns[0]!.campaign_id, description: 'Top five creators by GMV win a bonus.' } }),
  deleteCommunityCampaign: ({ data }) => ({ summary: 'Delete a community campaign', body: { campaign_id: data.communityCampaigns[0]!.campaign_id } }),
  authorizeCommunityPayout: ({ data }) => ({ summary: 'Pay one creator for a period', body: { campaign_id: data.communityCampaigns[0]!.campaign_id, handle: data.affiliates[0]!.handle, period: '2026-03', amount: 150 } }),

  listEnterpriseBrands: () => ({ summary: 'US beauty brands by GMV', body: { region: 'us', page_size: 3, category: 'Beauty & Personal Care' } }),
  listEnterpriseProducts: () => ({ summary: 'UK products by units sold', body: { region: 'uk', page_size: 3, sort_by: 'units_sold' } }),
  listEnterpriseCreators: () => ({ summary: 'German creators by GMV', body: { region: 'de', page_size: 3 } }),
}
