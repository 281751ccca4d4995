/**
 * Social-network partnership ads: campaigns, ad sets and ads pushed through the service, and the
 * creator programs they come from (spec: Social-network partnership ads).
 */
import type { Area } from '../document.ts'
import { arr, body, data, enumOf, int, nullable, num, obj, operation, ref, str, strOrArr, type Schema } from '../dsl.ts'
import { COMMISSION_RULE_TYPES, MEMBERSHIP_STATUSES, PROGRAM_STATUSES, SORT_DIRECTION_UPPER, csvFields, dateRange } from '../common.ts'

const TAG = 'Social'
const SECTION = 'Social-network partnership ads (only ads pushed through the service)'
const METRIC_KEYS = ['spend', 'impressions', 'clicks', 'ctr', 'purchases', 'purchase_value', 'roas', 'cost_per_purchase']
const COMMON_NOTE =
  'Accepts snake_case and camelCase keys. CSV: `format: csv` returns a presigned download link. An invalid `sort_by` falls back to `spend`. Performance comes from a daily mirror (no live calls).'

const camel = (key: string): string => key.replace(/_([a-z0-9])/g, (_, c: string) => c.toUpperCase())

/** Adds the camelCase twin of every snake_case key (the spec: "All accept snake_case and camelCase keys"). */
function withCamel(props: Record<string, Schema>): Record<string, Schema> {
  const out: Record<string, Schema> = { ...props }
  for (const [key, schema] of Object.entries(props)) {
    const c = camel(key)
    if (c !== key && !(c in out)) out[c] = { ...schema, description: `camelCase alias of \`${key}\`.` }
  }
  return out
}

/** A request body of this area: camelCase twins, CSV fields, and a required date range when asked. */
function socialBody(props: Record<string, Schema>, requireDateRange: boolean): Schema {
  const b = body(withCamel({ ...props, ...csvFields() }))
  if (!requireDateRange) return b
  return {
    ...b,
    description: '`date_range` (or `dateRange`) is required: without it 400 `Missing date_range (from/to)`.',
    anyOf: [{ required: ['date_range'] }, { required: ['dateRange'] }],
  }
}

const sortBy = (keys: string[], defaultKey = 'spend', fallbackKey = 'spend'): Schema =>
  str({ default: defaultKey, description: `One of ${keys.map((k) => `\`${k}\``).join(', ')}; any other value falls back to \`${fallbackKey}\`.` })

/**
 * A component, not an inline enum: the body's `sortDirection` twin names the same schema, and two inline
 * enums under keys that differ only by case and underscores get one type name in orval
 * (`ListSocialAdsBodySortDirection` declared twice, which does not compile).
 */
const sortDirection = (): Schema => ref('SocialSortDirection')
const page = (): Schema => int({ minimum: 1, default: 1, description: '1-based page number.' })
const pageSize = (max: number, defaultSize?: number): Schema =>
  int({ minimum: 1, maximum: max, ...(defaultSize ? { default: defaultSize } : {}), description: `Max ${max}; larger is refused.` })

const listEnvelope = (key: string, item: Schema): Schema =>
  data(obj({
    [key]: arr(item),
    total_count: int({ minimum: 0 }),
    page: int({ minimum: 1 }),
    page_size: int({ minimum: 1 }),
    sort_by: str({ description: 'The sort key applied (after fallback).' }),
    sort_direction: enumOf(SORT_DIRECTION_UPPER),
  }))

const csvOr = (schema: Schema): Schema => ({ anyOf: [schema, ref('CsvExport')] })

const paging = (max: number, defaultSize?: number) =>
  ({ sizeParam: 'page_size', pageParam: 'page', ...(defaultSize ? { defaultSize } : {}), max, mode: 'reject' as const, depthCap: 10000 })

const pagingNote = (max: number, defaultSize?: number): string =>
  `\`page_size\`${defaultSize ? ` defaults to ${defaultSize},` : ''} max ${max} (larger is refused with 400); paging depth is capped at 10,000 rows (page x page_size).`

const commissionRules = (): Schema => arr(ref('CommissionRule'))

export const social: Area = {
  name: TAG,
  description: 'Social-network partnership ads pushed through the service (campaigns, ad sets, ads) and the creator programs they come from. Not a mirror of the whole ad account.',
  schemas: {
    SocialSortDirection: enumOf(SORT_DIRECTION_UPPER, { default: 'DESC', description: 'Nulls sort last.' }),
    SocialMetrics: obj(
      {
        spend: num(),
        impressions: num(),
        clicks: num(),
        purchases: num(),
        purchase_value: num({ description: 'Purchase value attributed by the network (pixel or conversions API); commerce-platform shop sales do not appear.' }),
        ctr: num({ description: 'Fraction: 0.0152 = 1.52%.' }),
        roas: num({ description: 'purchase_value / spend, 0 if no spend.' }),
        cost_per_purchase: num({ description: 'spend / purchases, 0 if none.' }),
      },
      { description: 'Common metric fields of social partnership ads.' },
    ),
    SocialCampaign: obj(
      {
        campaign_id: nullable(str({ description: 'null for unattributable spend.' })),
        campaign_name: nullable(str({ description: 'null if never named at push.' })),
        pushed_ads: int({ minimum: 0, description: 'All-time count of pushed ads.' }),
        metrics: ref('SocialMetrics'),
      },
      { description: 'A social-network campaign holding pushed ads.' },
    ),
    SocialAdset: obj(
      {
        adset_id: str(),
        adset_name: nullable(str({ description: 'Non-pushed entities in mixed campaigns can show as raw ids with null names.' })),
        campaign_id: str(),
        campaign_name: nullable(str({ description: 'Non-pushed entities in mixed campaigns can show as raw ids with null names.' })),
        pushed_ads: int({ minimum: 0 }),
        metrics: ref('SocialMetrics'),
      },
      { description: 'A social-network ad set holding pushed ads.' },
    ),
    SocialAd: obj(
      {
        ad_id: str(),
        campaign_id: str(),
        campaign_name: nullable(str({ description: 'Non-pushed entities can show with null names.' })),
        adset_id: str(),
        adset_name: nullable(str({ description: 'Non-pushed entities can show with null names.' })),
        program_id: str(),
        handle: str(),
        video_id: str(),
        title: str(),
        view_count: num(),
        like_count: num(),
        comment_count: num(),
        post_time: str({ description: 'Post time (format not shown).' }),
        pushed_time: str({ description: 'When the video was pushed as an ad (format not shown).' }),
        video_link: str(),
        metrics: ref('SocialMetrics'),
      },
      { description: 'An ad created by pushing a creator video.' },
    ),
    CommissionRule: obj(
      {
        type: enumOf(COMMISSION_RULE_TYPES),
        pct: num({ description: 'Percentage rules carry pct.' }),
        amount_cents: num({ description: 'Flat rules carry amount_cents.' }),
      },
      { required: ['type'], description: 'A commission rule of a creator program: percentage rules carry `pct`, flat rules carry `amount_cents`.' },
    ),
    CreatorProgram: obj(
      {
        program_id: str(),
        name: str(),
        description: str(),
        short_id: str(),
        join_url: str(),
        status: enumOf(PROGRAM_STATUSES, { description: '`paused` closes the join link; `archived` means deleted, kept for history.' }),
        approval_mode: enumOf(['manual', 'auto']),
        cadence: enumOf(['daily', 'weekly', 'biweekly', 'monthly']),
        commission_rules: commissionRules(),
        created_at: str({ description: 'Timestamp (format not shown).' }),
        last_payout_at: str({ description: 'Timestamp (format not shown).' }),
        members_approved: int({ minimum: 0 }),
        members_pending: int({ minimum: 0 }),
        spend: num({ description: 'Within date_range when supplied, else all-time.' }),
        sales: num({ description: 'Within date_range when supplied, else all-time.' }),
        roas: num(),
        earnings_paid: num({ description: 'Lifetime.' }),
        earnings_pending: num({ description: 'Lifetime.' }),
      },
      { description: 'A creator program of social partnership ads (spec: Resources: Creator program).' },
    ),
    ProgramCreator: obj(
      {
        creator_id: str({ format: 'uuid' }),
        handle: nullable(str()),
        status: enumOf(MEMBERSHIP_STATUSES),
        program_id: str(),
        program_name: str(),
        commission_pct: nullable(num()),
        commission_rules: commissionRules(),
        joined_at: str({ description: 'Timestamp (format not shown).' }),
        approved_at: nullable(str({ description: 'null while pending.' })),
        earnings_paid: num(),
        ads_count: int({ minimum: 0 }),
        ig_usernames: arr(str(), { description: 'Possibly empty.' }),
      },
      { description: 'A creator\'s membership of a program (spec: Resources: Program creator). A creator is in at most one program per brand at a time.' },
    ),
  },
  operations: [
    operation({
      method: 'post',
      path: '/social/campaigns',
      operationId: 'listSocialCampaigns',
      tag: TAG,
      specSection: SECTION,
      summary: 'Social-network campaigns holding pushed ads, with metrics over a date range',
      description: `\`date_range\` is required (400 \`Missing date_range (from/to)\`). ${pagingNote(100, 10)} ${COMMON_NOTE}`,
      requestBody: socialBody({
        date_range: dateRange(),
        campaign_ids: strOrArr(),
        program_id: str(),
        page: page(),
        page_size: pageSize(100, 10),
        sort_by: sortBy([...METRIC_KEYS, 'campaign_name']),
        sort_direction: sortDirection(),
      }, true),
      paging: paging(100, 10),
      success: { status: 200, csv: 'SocialCampaign', schema: csvOr(listEnvelope('campaigns', ref('SocialCampaign'))) },
    }),
    operation({
      method: 'post',
      path: '/social/adsets',
      operationId: 'listSocialAdsets',
      tag: TAG,
      specSection: SECTION,
      summary: 'Social-network ad sets holding pushed ads, with metrics over a date range',
      description: `\`date_range\` is required (400 \`Missing date_range (from/to)\`). ${pagingNote(100)} ${COMMON_NOTE}`,
      requestBody: socialBody({
        date_range: dateRange(),
        campaign_id: str(),
        campaign_ids: strOrArr(),
        adset_ids: strOrArr(),
        program_id: str(),
        page: page(),
        page_size: pageSize(100),
        sort_by: sortBy([...METRIC_KEYS, 'campaign_name', 'adset_name']),
        sort_direction: sortDirection(),
      }, true),
      paging: paging(100),
      success: { status: 200, csv: 'SocialAdset', schema: csvOr(listEnvelope('adsets', ref('SocialAdset'))) },
    }),
    operation({
      method: 'post',
      path: '/social/ads',
      operationId: 'listSocialAds',
      tag: TAG,
      specSection: SECTION,
      summary: 'Ads pushed from creator videos, with metrics over a date range',
      description: `\`date_range\` is required (400 \`Missing date_range (from/to)\`). ${pagingNote(1000)} ${COMMON_NOTE}`,
      requestBody: socialBody({
        date_range: dateRange(),
        campaign_id: str(),
        campaign_ids: strOrArr(),
        adset_id: str(),
        adset_ids: strOrArr(),
        program_id: str(),
        handle: str({ description: 'Exact creator handle, case-insensitive, leading @ ignored.' }),
        video_ids: strOrArr(),
        page: page(),
        page_size: pageSize(1000),
        sort_by: sortBy([...METRIC_KEYS, 'handle', 'title', 'post_time', 'view_count']),
        sort_direction: sortDirection(),
      }, true),
      paging: paging(1000),
      success: { status: 200, csv: 'SocialAd', schema: csvOr(listEnvelope('ads', ref('SocialAd'))) },
    }),
    operation({
      method: 'post',
      path: '/social/programs',
      operationId: 'listCreatorPrograms',
      tag: TAG,
      specSection: SECTION,
      summary: 'Creator programs of social partnership ads',
      description: `\`date_range\` is optional and scopes only spend and sales (all-time when omitted); member counts and earnings are always lifetime. ${pagingNote(100)} ${COMMON_NOTE}`,
      requestBody: socialBody({
        statuses: arr(enumOf(PROGRAM_STATUSES), { description: 'Subset of active, paused, archived; default active and paused.' }),
        date_range: dateRange(),
        page: page(),
        page_size: pageSize(100),
        sort_by: sortBy(['created_at', 'name', 'spend', 'sales', 'roas', 'earnings_paid', 'earnings_pending', 'members_approved'], 'created_at'),
        sort_direction: sortDirection(),
      }, false),
      paging: paging(100),
      success: { status: 200, csv: 'CreatorProgram', schema: csvOr(listEnvelope('programs', ref('CreatorProgram'))) },
    }),
    operation({
      method: 'post',
      path: '/social/programs/creators',
      operationId: 'listProgramCreators',
      tag: TAG,
      specSection: SECTION,
      summary: 'Creators of one or all creator programs',
      description: `\`program_id\` optional (all programs when omitted). Live whitelisting status is omitted. ${pagingNote(100)} ${COMMON_NOTE.replace('falls back to `spend`', 'falls back to `joined_at` (a creator has no spend)')}`,
      requestBody: socialBody({
        program_id: str(),
        statuses: arr(enumOf(MEMBERSHIP_STATUSES), { description: 'Subset of pending, approved, rejected, removed; default pending and approved.' }),
        handle: str({ description: 'Case-insensitive substring.' }),
        page: page(),
        page_size: pageSize(100),
        // A creator has no spend to fall back to (spec: "fall back to spend"): the default joined_at instead.
        sort_by: sortBy(['joined_at', 'approved_at', 'handle', 'commission_pct', 'earnings_paid', 'ads_count'], 'joined_at', 'joined_at'),
        sort_direction: sortDirection(),
      }, false),
      paging: paging(100),
      success: { status: 200, csv: 'ProgramCreator', schema: csvOr(listEnvelope('creators', ref('ProgramCreator'))) },
    }),
  ],
}
