/**
 * Outreach: automations, email campaigns and senders, groups, lists, tags, workflows, creator
 * briefs and community campaigns (spec: Outreach automations; Endpoints whose shapes are incomplete
 * or absent; Other named resources; Rules of the named resources; Idempotency).
 *
 * Most of this area is "not shown" in the spec: such operations and schemas carry `inferred: true`
 * and stay open. Idempotent flags are exactly the spec's Idempotency list.
 */
import type { Area } from '../document.ts'
import { arr, body, bool, data, date, dateTime, enumOf, int, nullable, num, obj, operation, ref, str, type Schema } from '../dsl.ts'

const TAG = 'Outreach'
const AUTOMATIONS = 'Outreach automations'
const ABSENT = 'Endpoints whose shapes are incomplete or absent'

// spec: States and transitions: only `stopped` is shown (status after a successful create); the others are inferred.
const AUTOMATION_STATUSES = ['stopped', 'active', 'paused'] as const
const AUDIENCE_TYPES = ['new_affiliates', 'groups', 'list'] as const
// spec: Rules of the named resources: Creator briefs.
const BRIEF_TYPES = ['static', 'dynamic'] as const
const BRIEF_VIDEO_MODES = ['manual', 'auto'] as const
// spec: Rules of the named resources: Community campaigns.
const COMMUNITY_TYPES = ['race', 'contest', 'leaderboard', 'bingo', 'sweepstakes', 'retainer'] as const
// Workflows can be paused and activated (toggle); only `active` is shown as a state, `paused` is inferred.
const WORKFLOW_STATUSES = ['active', 'paused'] as const

/** Limits: lists take at most 10,000 creators per list-creating call. */
const MAX_LIST_CREATORS = 10000
/** Limits: at most 500 creator briefs per shop. */
const MAX_BRIEFS = 500

const inferredOnly = (schema: Schema, description?: string): Schema => ({
  ...schema,
  'x-inferred': true,
  ...(description ? { description } : {}),
})

/** Text the server trims and refuses when blank (400 `<field> must not be blank`, inferred: the spec shows no such rule, but a blank name identifies nothing). */
const nonBlankText = (extra: Schema = {}): Schema =>
  str({ minLength: 1, pattern: '\\S', ...extra, description: `${extra.description ? `${extra.description} ` : ''}Must not be blank (trimmed by the server; inferred).` })

/**
 * A field the twin requires although the spec does not say so (its bodies are "not shown"): the
 * contract requires it too, marked `x-inferred` with the reason, so the contract and the twin agree.
 */
const requiredInferred = (schema: Schema, reason: string): Schema => ({
  ...schema,
  'x-inferred': true,
  'x-inferred-reason': reason,
  description: `${schema.description ? `${schema.description} ` : ''}Required (inferred): ${reason}`,
})

/** A creator handle as sent: the server trims it, drops a leading `@`, lowercases it and then validates it. */
const handleIn = (): Schema =>
  str({
    minLength: 1,
    maxLength: 256,
    description:
      'Creator handle. The server trims it, removes a leading `@` and lowercases it; the result must match `[a-z0-9._]` and be at most 30 characters; a handle that does not (and one matching no known creator) is skipped and reported in `unmatched` (inferred: the spec says handles are validated, not that the call is refused).',
  })

/** A tag name: 1-60 characters, case preserved (`VIP` and `vip` are different tags). */
const tagName = (): Schema => nonBlankText({ maxLength: 60, description: 'Tag name, 1-60 characters, case preserved (`VIP` and `vip` differ).' })

/** `{data: {<id>: ..., deleted: true}}`, the inferred answer of the delete operations. */
const deletedResult = (idName: string, idSchema: Schema = str()): Schema =>
  data(obj({ [idName]: idSchema, deleted: bool({ const: true }) }, { inferred: true, description: 'The response of a delete is not shown; inferred.' }))

const minMax = (lo: string, hi: string, what: string): Record<string, Schema> => ({
  [lo]: num({ description: `Lower bound: ${what}.` }),
  [hi]: num({ description: `Upper bound: ${what}.` }),
})

/** Demographic and appearance value lists: their existence is shown, their names are inferred from the creator fields. */
const valueList = (what: string): Schema =>
  arr(str(), { 'x-inferred': true, description: `${what}; values matched case-insensitively (OR within the field). The field name is inferred from the creator's profile fields.` })

const outreachFilters = obj(
  {
    ...minMax('follower_min', 'follower_max', 'follower count'),
    ...minMax('min_gmv', 'max_gmv', 'platform-wide affiliate GMV, last 30 days, all brands (creator tier basis L0-L7)'),
    ...minMax('min_live_gmv', 'max_live_gmv', 'LIVE GMV, last 30 days'),
    engagement: num({ description: 'Lower bound: video engagement percent (5 = 5%).' }),
    max_engagement: num({ description: 'Upper bound: video engagement percent (5 = 5%).' }),
    avg_view_cnt: num({ description: 'Lower bound: average video views.' }),
    max_avg_view_cnt: num({ description: 'Upper bound: average video views.' }),
    post_rate: num({ description: 'Minimum posting rate, percent.' }),
    brand_collaborations: num({ description: 'Lower bound: brand collaboration count.' }),
    max_brand_collaborations: num({ description: 'Upper bound: brand collaboration count.' }),
    ...minMax('min_pps', 'max_pps', 'promotion performance score 0-5'),
    ...minMax('min_content_quality', 'max_content_quality', 'content quality 0-100'),
    ...minMax('min_live_avg_view_cnt', 'max_live_avg_view_cnt', 'average viewers on shoppable LIVEs'),
    ...minMax('min_creator_rating', 'max_creator_rating', 'seller-given creator rating 0-5'),
    ...minMax('min_sample_score', 'max_sample_score', 'sample score 0-100'),
    ...minMax('min_posts_with_samples', 'max_posts_with_samples', 'posts-with-samples component of the sample score, 0-100'),
    ...minMax('min_post_frequency', 'max_post_frequency', 'post-frequency component of the sample score, 0-100'),
    ...minMax('min_sales_generation', 'max_sales_generation', 'sales-generation component of the sample score, 0-100'),
    is_fast_growing: bool(),
    categories: arr(str(), { description: 'Creator categories (OR). The audience estimator silently drops entries beyond 5.' }),
    units_sold: arr(str(), { description: 'Units-sold ranges (OR). Entries beyond 2 are silently dropped.' }),
    follower_ages: arr(str(), { description: 'Follower age ranges (OR). Entries beyond 2 are silently dropped.' }),
    gender: valueList('Creator gender'),
    age: valueList('Creator age ranges'),
    race: valueList('Creator race'),
    body_type: valueList('Creator body type'),
    economic_status: valueList('Creator economic status'),
    face_visibility: valueList('Creator face visibility'),
    tone: valueList('Creator tone'),
    language: valueList('Creator language'),
    follower_gender: valueList('Top follower gender'),
  },
  {
    required: [],
    description: [
      'Audience filters for `outreach_audience` type `new_affiliates`: select from the platform-wide creator index.',
      'All fields optional, combined with AND; array fields match OR within the field.',
      'The legacy bucket arrays `gmv_ranges` and `live_gmv` exist on old automations and must not be sent:',
      'they are deliberately not listed here, and the server answers 400 with a message naming them.',
      'The object stays open so that the server, not the schema, gives that message.',
    ].join(' '),
  },
)

/** The group or list an audience names: not blank (the server trims it; a blank one names nothing: 400 `... needs a group_id` / `... needs a list title in list`, inferred). */
const NAMED: Schema = { pattern: '\\S' }

const outreachAudience = obj(
  {
    type: enumOf(AUDIENCE_TYPES, { description: '`new_affiliates` (filtered by `outreach_filters`), `groups` (a saved group), `list` (a list by title).' }),
    group_id: str({ description: 'The group, with type `groups`.' }),
    list: str({ description: 'The list title, with type `list`.' }),
  },
  {
    required: ['type'],
    inferred: true,
    description:
      'Who the automation messages. The spec shows the values `new_affiliates`, `groups` with `group_id`, and `list`; the object form is inferred.',
  },
)
// A group audience names its group; a list audience names its list.
Object.assign(outreachAudience, {
  allOf: [
    { if: { properties: { type: { const: 'groups' } }, required: ['type'] }, then: { required: ['group_id'], properties: { group_id: NAMED } } },
    { if: { properties: { type: { const: 'list' } }, required: ['type'] }, then: { required: ['list'], properties: { list: NAMED } } },
  ],
})

const dmMessage = obj(
  { type: str({ description: 'Message part type (values not shown).' }), content: str({ description: 'Text; may include `[affiliate_name]` and links to briefs or community share links.' }) },
  { description: 'One DM of the automation\'s sequence.' },
)

/** The automation fields a create or an update takes. */
const automationFields = (): Record<string, Schema> => ({
  title: nonBlankText(),
  message_type: str({ description: 'For example `dm`; the full set of values is not shown.' }),
  outreach_audience: {
    anyOf: [ref('OutreachAudience'), enumOf(AUDIENCE_TYPES)],
    description:
      'The audience object; the bare value (`"groups"`, `"list"`, `"new_affiliates"`) is also accepted, with `group_id` / `list` at the top level of the body (normalised to the object form).',
  },
  group_id: str({ description: 'With the bare `outreach_audience: "groups"` form.', 'x-inferred': true }),
  list: str({ description: 'List title, with the bare `outreach_audience: "list"` form.', 'x-inferred': true }),
  dm_messages: arr(ref('OutreachDmMessage')),
  invite_details: obj({ message: str({ description: 'Target-collaboration invite text; may include `[affiliate_name]` and share links.' }) }, { required: [] }),
  outreach_filters: ref('OutreachFilters'),
})

/** The bare audience form names its group or list at the top level (the server refuses it without: 400). */
const bareAudienceRules: Schema[] = [
  { if: { properties: { outreach_audience: { const: 'groups' } }, required: ['outreach_audience'] }, then: { required: ['group_id'], properties: { group_id: NAMED } } },
  { if: { properties: { outreach_audience: { const: 'list' } }, required: ['outreach_audience'] }, then: { required: ['list'], properties: { list: NAMED } } },
]

const automation = obj(
  {
    campaign_id: str(),
    title: str(),
    status: enumOf(AUTOMATION_STATUSES, { description: '`stopped` after a successful create (shown); `active` and `paused` are inferred.' }),
    message_type: nullable(str()),
    outreach_audience: nullable(ref('OutreachAudience')),
    dm_messages: arr(ref('OutreachDmMessage')),
    invite_details: nullable(obj({ message: nullable(str()) }, { required: [] })),
    outreach_filters: nullable(ref('OutreachFilters')),
    messages_remaining: num({ description: 'The shop\'s daily DM allowance minus the DMs it has sent today (shop-local day, first DMs, open-plan cards and follow-ups); 0 when the shop\'s SPS is below 3.5 (inferred).' }),
    audience_count: nullable(
      int({
        minimum: 0,
        description:
          'Creators the audience resolves to now, re-resolved at each request (inferred): a group\'s matching CRM creators, a list\'s creators, or the platform-wide creators matching `outreach_filters` for `new_affiliates`. Null when the audience\'s group or list no longer exists.',
        'x-inferred': true,
      }),
    ),
    created_at: dateTime(),
    updated_at: dateTime(),
  },
  {
    required: ['campaign_id', 'title', 'status'],
    inferred: true,
    description: 'An outreach automation: the spec names campaign_id, title, message_type, outreach_audience, dm_messages, invite_details, outreach_filters; the rest is inferred.',
  },
)

const emailRecipients = obj(
  {
    handles: arr(handleIn(), { maxItems: MAX_LIST_CREATORS, description: 'Creators by handle.' }),
    list: str({ description: 'A list by title.' }),
    group_id: str({ description: 'A saved group.' }),
  },
  { required: [], inferred: true, description: 'Who the email campaign goes to: handles, a list title or a group (inferred).' },
)

const emailCampaignFields = (): Record<string, Schema> => ({
  title: nonBlankText(),
  subject: str(),
  body: str({ description: 'Email body (text or HTML); may include `[affiliate_name]`.' }),
  sender_id: str({ description: 'A custom sender from POST /emails/senders/create-custom; the default sender otherwise.' }),
  recipients: ref('EmailRecipients'),
  send_now: bool({ description: 'true: send at once (each send counts in the `emails_sent` stat); otherwise the campaign stays a draft.' }),
  status: inferredOnly(enumOf(['draft', 'sent']), '`sent` sends the campaign like `send_now: true`; `draft` (default) keeps it unsent (inferred).'),
})

/** A send: `send_now: true` or `status: sent`. */
const sendsNow: Schema = { anyOf: [{ properties: { send_now: { const: true } }, required: ['send_now'] }, { properties: { status: { const: 'sent' } }, required: ['status'] }] }
const RECIPIENTS_REASON = 'an email that is sent goes to someone: sending with no recipients (no handles, list or group_id) is refused with 400 `recipients are required to send: handles, list or group_id`.'
/**
 * Sending needs recipients (inferred: the spec shows no email bodies, "Bodies and responses: not
 * shown"): on create they are in the request; on update the request's, else the campaign's stored ones.
 */
const sendNeedsRecipients = (where: 'create' | 'update'): Schema => ({
  if: sendsNow,
  then: where === 'create' ? { required: ['recipients'], properties: { recipients: { minProperties: 1 } } } : { properties: { recipients: { minProperties: 1 } } },
  'x-inferred': true,
  'x-inferred-reason': RECIPIENTS_REASON,
})

const emailCampaign = obj(
  {
    campaign_id: str(),
    title: str(),
    subject: nullable(str()),
    body: nullable(str()),
    sender_id: nullable(str()),
    recipients: ref('EmailRecipients'),
    status: str({ description: 'The mock uses `draft` and `sent`; values are not shown.' }),
    emails_sent: int({ minimum: 0 }),
    sent_at: nullable(dateTime()),
    created_at: dateTime(),
    updated_at: dateTime(),
  },
  { required: ['campaign_id', 'status'], inferred: true, description: 'An email campaign. Fields are not shown; inferred.' },
)

const emailSender = obj(
  {
    sender_id: str(),
    email: str({ format: 'email' }),
    name: nullable(str()),
    reply_to: nullable(str({ format: 'email' })),
    verified: bool(),
    created_at: dateTime(),
  },
  { required: ['sender_id', 'email'], inferred: true, description: 'A custom email sender. Fields are not shown; inferred.' },
)

const range = (lo: string, hi: string): Record<string, Schema> => ({ [lo]: num(), [hi]: num() })
const crmGroupFilters = obj(
  {
    handle: str(),
    min_videos: num(),
    include_tags: arr(str()),
    exclude_tags: arr(str()),
    affiliate_performance: obj(
      { ...range('min_gmv', 'max_gmv'), ...range('min_followers', 'max_followers') },
      { required: [], description: 'Platform-wide (30-day GMV, followers).' },
    ),
    shop_performance: obj(
      {
        ...range('min_gmv', 'max_gmv'),
        ...range('min_video_gmv', 'max_video_gmv'),
        ...range('min_live_gmv', 'max_live_gmv'),
        ...range('min_units_sold', 'max_units_sold'),
      },
      { required: [], description: 'With the shop (lifetime).' },
    ),
  },
  { required: [], description: 'The CRM list\'s `filters` (POST /affiliate/crm/list), saved as a group and re-resolved at each use.' },
)

const crmGroup = obj(
  {
    group_id: str(),
    name: str(),
    filters: ref('CrmGroupFilters'),
    creator_count: int({ minimum: 0, description: 'CRM creators matching the filters now (re-resolved at each request; inferred).', 'x-inferred': true }),
    created_at: dateTime(),
  },
  { required: ['group_id'], inferred: true, description: 'A saved CRM filter (group), re-resolved dynamically; used by automations with `outreach_audience` type `groups`.' },
)

const listWriteResult = obj(
  {
    title: str(),
    added_count: int({ minimum: 0, description: 'Creators newly added (re-adding a handle already present is a silent no-op).' }),
    unmatched: arr(str(), { description: 'Handles not matching a known creator (skipped).' }),
    creator_count: int({ minimum: 0, description: 'Creators in the list after the call (inferred).' }),
  },
  { required: ['added_count', 'unmatched'], inferred: true, description: 'Result of a list-creating call: `added_count` and `unmatched` are shown, the rest inferred.' },
)

const tagCount = obj(
  { tag: str(), creator_count: int({ minimum: 1 }) },
  { inferred: true, description: 'A tag in use and how many of the shop\'s creators carry it (a tag with no creators disappears).' },
)

const workflow = obj(
  {
    workflow_id: str(),
    name: nullable(str()),
    status: enumOf(WORKFLOW_STATUSES, { description: '`active` or `paused` (toggle); other states are not shown.' }),
    trigger: obj({}, { required: [], description: 'The trigger (shape not shown).' }),
    steps: arr(obj({}, { required: [] }), { description: 'The step graph (shape not shown).' }),
    created_at: dateTime(),
    updated_at: dateTime(),
  },
  { required: ['workflow_id', 'status', 'trigger', 'steps'], inferred: true, description: 'A workflow: `workflow_id`, a trigger and a step graph are shown; the rest is inferred.' },
)

const creatorBrief = obj(
  {
    brief_id: str(),
    title: nullable(str()),
    type: enumOf(BRIEF_TYPES),
    video_mode: nullable(enumOf(BRIEF_VIDEO_MODES, { description: 'Static briefs: `manual` shows `video_ids`, `auto` the shop\'s top videos. Null for dynamic briefs.' })),
    video_ids: arr(str()),
    product_id: nullable(str({ description: 'Dynamic briefs: the product the page is generated for.' })),
    short_code: str({ description: 'Public link code, placed in automation message text as a link.' }),
    public_url: str({ format: 'uri' }),
    created_at: dateTime(),
    updated_at: dateTime(),
  },
  { required: ['brief_id', 'type', 'short_code', 'public_url'], inferred: true, description: 'A creator brief: a public landing page with a short code. Fields beyond that are inferred.' },
)

const communityCampaign = obj(
  {
    campaign_id: str(),
    title: nullable(str()),
    type: enumOf(COMMUNITY_TYPES),
    status: str({ description: '`active` (live immediately) is shown; the mock also uses `draft` and `ended` (inferred).' }),
    slug: str({ minLength: 6, maxLength: 6, description: '6-character slug.' }),
    share_link: str({ format: 'uri', description: '{community_url}/<slug>; can go in an automation\'s DM or invite text.' }),
    description: nullable(str()),
    start_date: nullable(date()),
    end_date: nullable(date()),
    settings: obj({}, { required: [], description: 'Type-specific settings (prizes, targets, boards...): not shown.' }),
    created_at: dateTime(),
    updated_at: dateTime(),
  },
  { required: ['campaign_id', 'status', 'slug', 'share_link'], inferred: true, description: 'A community campaign (race, contest, leaderboard, bingo board, sweepstakes, retainer). Fields beyond slug, share_link and status are inferred.' },
)

const communityPayout = obj(
  {
    payout_id: str(),
    campaign_id: str(),
    creator_id: str(),
    handle: nullable(str()),
    period: str(),
    amount: nullable(num()),
    status: str({ description: 'The mock answers `authorized`.' }),
    authorized_at: dateTime(),
  },
  { required: ['campaign_id', 'creator_id', 'period'], inferred: true, description: 'An authorized community payout, one per (campaign, creator, period). Shape not shown; inferred.' },
)

/** Required fields for bodies that address one resource. */
/**
 * spec: Rules of the named resources: Creator briefs: "static (`video_mode` `manual` picks videos; `auto`
 * shows the shop's top videos) or dynamic (per product, generated live)". Which fields go with which
 * kind, as the server checks them (400): a dynamic brief names its product and no videos; a static one
 * no product; a manual one at least one video; an auto one (the default) none.
 */
const briefConditions: Schema[] = [
  {
    if: { properties: { type: { const: 'dynamic' } }, required: ['type'] },
    then: { required: ['product_id'], properties: { video_mode: false, video_ids: { maxItems: 0 } } },
  },
  {
    if: { properties: { type: { const: 'static' } }, required: ['type'] },
    then: { properties: { product_id: false } },
  },
  {
    if: { properties: { type: { const: 'static' }, video_mode: { const: 'manual' } }, required: ['type', 'video_mode'] },
    then: { required: ['video_ids'], properties: { video_ids: { minItems: 1 } } },
  },
  {
    if: { properties: { type: { const: 'static' }, video_mode: { const: 'auto' } }, required: ['type'] },
    then: { properties: { video_ids: { maxItems: 0 } } },
  },
]

const byId = (name: string, extra: Record<string, Schema> = {}, description?: string): Schema =>
  body({ [name]: str({ minLength: 1 }), ...extra }, { required: [name], ...(description ? { description } : {}) })

export const outreach: Area = {
  name: TAG,
  description:
    'Outreach automations, email campaigns and senders, groups, lists, tags, workflows, creator briefs and community campaigns. Most shapes here are not shown in the spec and are inferred (x-inferred).',
  schemas: {
    OutreachFilters: outreachFilters,
    OutreachAudience: outreachAudience,
    OutreachDmMessage: dmMessage,
    Automation: automation,
    EmailRecipients: emailRecipients,
    EmailCampaign: emailCampaign,
    EmailSender: emailSender,
    CrmGroupFilters: crmGroupFilters,
    CrmGroup: crmGroup,
    ListWriteResult: listWriteResult,
    TagCount: tagCount,
    Workflow: workflow,
    CreatorBrief: creatorBrief,
    CommunityCampaign: communityCampaign,
    CommunityPayout: communityPayout,
  },
  operations: [
    // ---- Automations ----
    operation({
      method: 'post',
      path: '/automations/create',
      operationId: 'createAutomation',
      tag: TAG,
      specSection: AUTOMATIONS,
      summary: 'Create an outreach automation (created `stopped`)',
      description:
        'Body fields shown: title, message_type, outreach_audience, dm_messages, invite_details.message, outreach_filters. The object form of outreach_audience is inferred. `title` and `outreach_audience` are required (inferred: the full body is not shown; 400 `title is required` / `outreach_audience is required`). A group or list audience naming a group or list the shop does not have: 400. Sending the legacy `gmv_ranges` or `live_gmv` in outreach_filters returns 400.',
      requestBody: {
        allOf: bareAudienceRules,
        ...body(
        {
          ...automationFields(),
          // spec: Outreach automations: "Full bodies, responses and the remaining operations of this group: not shown."
          title: requiredInferred(nonBlankText(), 'an automation is shown and managed by its title; without one the server answers 400 `title is required`.'),
          outreach_audience: requiredInferred(
            automationFields().outreach_audience!,
            'an automation sends to its audience (new_affiliates, a group or a list); without one the server answers 400 `outreach_audience is required`.',
          ),
        },
        { required: ['title', 'outreach_audience'] },
        ),
      },
      idempotent: true,
      success: {
        status: 201,
        schema: data(
          obj({
            message: str(),
            campaign_id: str(),
            status: enumOf(AUTOMATION_STATUSES, { description: '`stopped` after a successful create.' }),
            messages_remaining: num(),
          }),
        ),
      },
    }),
    operation({
      method: 'post',
      path: '/automations/update',
      operationId: 'updateAutomation',
      tag: TAG,
      specSection: AUTOMATIONS,
      summary: 'Update an outreach automation by campaign_id',
      description: 'The body and response are not shown: the create fields, all optional, plus the required campaign_id; returns the automation. 404 for an unknown campaign_id; a blank title, or a group or list the shop does not have: 400.',
      requestBody: { allOf: bareAudienceRules, ...body({ campaign_id: str({ minLength: 1 }), ...automationFields() }, { required: ['campaign_id'] }) },
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: data(ref('Automation')) },
    }),
    operation({
      method: 'delete',
      path: '/automations/delete',
      operationId: 'deleteAutomation',
      tag: TAG,
      specSection: AUTOMATIONS,
      summary: 'Delete an outreach automation by campaign_id',
      description: 'Body and response not shown; inferred. 404 for an unknown campaign_id.',
      requestBody: byId('campaign_id'),
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: deletedResult('campaign_id') },
    }),
    operation({
      method: 'post',
      path: '/automations/list',
      operationId: 'listAutomations',
      tag: TAG,
      specSection: AUTOMATIONS,
      summary: 'The shop\'s outreach automations',
      description: 'The remaining operations of the automation group are not shown; this listing (path, body and response) is inferred. Not paged.',
      requestBody: body({ status: str({ description: 'Only automations with this status.' }) }),
      inferred: true,
      success: { status: 200, schema: data(obj({ automations: arr(ref('Automation')), total_count: int({ minimum: 0 }) }, { inferred: true })) },
    }),

    // ---- Email campaigns and senders ----
    operation({
      method: 'post',
      path: '/emails/campaigns/create',
      operationId: 'createEmailCampaign',
      tag: TAG,
      specSection: `${ABSENT}: Email campaigns and senders`,
      summary: 'Create an email campaign',
      description:
        'Body and response not shown; inferred. `title` is required (inferred; 400 `title is required`). With `send_now: true` (or `status: sent`) the emails go out at once and count in the `emails_sent` stat; sending needs `recipients` with at least one of handles, list or group_id (inferred; 400 `recipients are required to send: handles, list or group_id`, the body\'s `if`/`then`), and a sender, list, group or handle the shop does not have is refused with 400.',
      requestBody: {
        allOf: [sendNeedsRecipients('create')],
        ...body({ ...emailCampaignFields(), title: requiredInferred(nonBlankText(), 'a campaign is named by its title; without one the server answers 400 `title is required`.') }, { required: ['title'] }),
      },
      idempotent: true,
      inferred: true,
      success: { status: 201, schema: data(ref('EmailCampaign')) },
    }),
    operation({
      method: 'post',
      path: '/emails/campaigns/update',
      operationId: 'updateEmailCampaign',
      tag: TAG,
      specSection: `${ABSENT}: Email campaigns and senders`,
      summary: 'Update an email campaign by campaign_id',
      description:
        'Body and response not shown; inferred. 404 for an unknown campaign_id. A campaign already sent cannot be changed: 400 (inferred). A sender, list, group or handle the shop does not have: 400. Sending (`send_now: true` or `status: sent`) goes to the request\'s `recipients`, else the campaign\'s stored ones; with neither (an empty `recipients`, or none given to a campaign created without them): 400 `recipients are required to send: handles, list or group_id` (inferred).',
      requestBody: { allOf: [sendNeedsRecipients('update')], ...body({ campaign_id: str({ minLength: 1 }), ...emailCampaignFields() }, { required: ['campaign_id'] }) },
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: data(ref('EmailCampaign')) },
    }),
    operation({
      method: 'delete',
      path: '/emails/campaigns/delete',
      operationId: 'deleteEmailCampaign',
      tag: TAG,
      specSection: `${ABSENT}: Email campaigns and senders`,
      summary: 'Delete an email campaign by campaign_id',
      description: 'Body and response not shown; inferred. 404 for an unknown campaign_id.',
      requestBody: byId('campaign_id'),
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: deletedResult('campaign_id') },
    }),
    operation({
      method: 'post',
      path: '/emails/senders/create-custom',
      operationId: 'createCustomEmailSender',
      tag: TAG,
      specSection: `${ABSENT}: Email campaigns and senders`,
      summary: 'Create a custom email sender',
      description: 'Body and response not shown; inferred. An email address the shop already has a sender for (compared case-insensitively): 400 (inferred).',
      requestBody: body(
        { email: str({ format: 'email' }), name: str({ description: 'Display name.' }), reply_to: str({ format: 'email' }) },
        { required: ['email'] },
      ),
      idempotent: true,
      inferred: true,
      success: { status: 201, schema: data(ref('EmailSender')) },
    }),

    // ---- Groups ----
    operation({
      method: 'post',
      path: '/groups/create',
      operationId: 'createGroup',
      tag: TAG,
      specSection: `${ABSENT}: Groups`,
      summary: 'Save a CRM filter as a group',
      description: 'Body and response not shown; inferred: a name and the CRM list\'s filters.',
      requestBody: body({ name: nonBlankText(), filters: ref('CrmGroupFilters') }, { required: ['name'] }),
      idempotent: true,
      inferred: true,
      success: { status: 201, schema: data(ref('CrmGroup')) },
    }),
    operation({
      method: 'delete',
      path: '/groups/delete',
      operationId: 'deleteGroup',
      tag: TAG,
      specSection: `${ABSENT}: Groups`,
      summary: 'Delete a group by group_id',
      description: 'Body and response not shown; inferred. 404 for an unknown group_id.',
      requestBody: byId('group_id'),
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: deletedResult('group_id') },
    }),
    operation({
      method: 'post',
      path: '/groups/list',
      operationId: 'listGroups',
      tag: TAG,
      specSection: `${ABSENT}: Groups`,
      summary: 'The shop\'s groups',
      description: 'A listing exists; its path, body and response are not shown (inferred). Not paged.',
      requestBody: body({}),
      inferred: true,
      success: { status: 200, schema: data(obj({ groups: arr(ref('CrmGroup')), total_count: int({ minimum: 0 }) }, { inferred: true })) },
    }),

    // ---- Lists ----
    operation({
      method: 'post',
      path: '/lists/create',
      operationId: 'createList',
      tag: TAG,
      specSection: `${ABSENT}: Lists`,
      summary: 'Create a list of creator handles, or append to an existing title',
      description:
        'A list is identified by its title within the shop. Creating into an existing title appends; re-adding a handle is a silent no-op; unknown creators are skipped and reported in `unmatched`. Every list-creating call writes at most 10,000 creators: handles beyond the first 10,000 are not written (the spec says the call writes at most 10,000, not that it is refused). Full body and response not shown: inferred beyond added_count and unmatched.',
      requestBody: body(
        { title: nonBlankText(), handles: arr(handleIn(), { description: `Creators by handle; at most ${MAX_LIST_CREATORS} are written per call.` }) },
        { required: ['title', 'handles'] },
      ),
      idempotent: true,
      inferred: true,
      success: { status: 201, schema: data(ref('ListWriteResult')) },
    }),
    operation({
      method: 'post',
      path: '/lists/merge',
      operationId: 'mergeLists',
      tag: TAG,
      specSection: `${ABSENT}: Lists`,
      summary: 'Merge lists into a target list',
      description:
        'Body and response not shown; inferred: the creators of `source_titles` are appended to `target_title` (created if absent); the source lists are kept. 404 when a source title is unknown.',
      requestBody: body(
        { source_titles: arr(nonBlankText(), { minItems: 1 }), target_title: nonBlankText() },
        { required: ['source_titles', 'target_title'] },
      ),
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: data(ref('ListWriteResult')) },
    }),
    operation({
      method: 'delete',
      path: '/lists/delete',
      operationId: 'deleteList',
      tag: TAG,
      specSection: `${ABSENT}: Lists`,
      summary: 'Delete a list by title',
      description: 'Body and response not shown; inferred. 404 for an unknown title.',
      requestBody: byId('title'),
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: deletedResult('title') },
    }),

    // ---- Tags (paths not shown) ----
    operation({
      method: 'post',
      path: '/tags/add',
      operationId: 'addTag',
      tag: TAG,
      specSection: `${ABSENT}: Tags`,
      summary: 'Tag creators by handle (a new name creates the tag)',
      description:
        'Path, body and response not shown; inferred. Creators must already be in the shop\'s CRM: other handles are skipped and reported in `unmatched`. Not idempotent by header.',
      requestBody: body({ tag: tagName(), handles: arr(handleIn(), { minItems: 1 }) }, { required: ['tag', 'handles'] }),
      inferred: true,
      success: {
        status: 200,
        schema: data(obj({ tag: str(), added_count: int({ minimum: 0 }), unmatched: arr(str()) }, { inferred: true })),
      },
    }),
    operation({
      method: 'post',
      path: '/tags/remove',
      operationId: 'removeTag',
      tag: TAG,
      specSection: `${ABSENT}: Tags`,
      summary: 'Remove a tag from creators by handle (a tag left with no creators disappears)',
      description: 'Path, body and response not shown; inferred. 404 when no creator of the shop has the tag.',
      requestBody: body({ tag: tagName(), handles: arr(handleIn(), { minItems: 1 }) }, { required: ['tag', 'handles'] }),
      inferred: true,
      errors: [404],
      success: {
        status: 200,
        schema: data(obj({ tag: str(), removed_count: int({ minimum: 0 }), unmatched: arr(str()) }, { inferred: true })),
      },
    }),
    operation({
      method: 'post',
      path: '/tags/list',
      operationId: 'listTags',
      tag: TAG,
      specSection: `${ABSENT}: Tags`,
      summary: 'The shop\'s tags with creator counts',
      description: 'Path, body and response not shown; inferred. Not paged.',
      requestBody: body({ search: str({ description: 'Case-insensitive substring of the tag name.' }) }),
      inferred: true,
      success: { status: 200, schema: data(obj({ tags: arr(ref('TagCount')), total_count: int({ minimum: 0 }) }, { inferred: true })) },
    }),

    // ---- Workflows (paths not shown) ----
    operation({
      method: 'post',
      path: '/workflows/list',
      operationId: 'listWorkflows',
      tag: TAG,
      specSection: `${ABSENT}: Workflows`,
      summary: 'The shop\'s workflows (any plan)',
      description: 'Path, body and response not shown; inferred. Not paged.',
      requestBody: body({ status: enumOf(WORKFLOW_STATUSES) }),
      inferred: true,
      success: { status: 200, schema: data(obj({ workflows: arr(ref('Workflow')), total_count: int({ minimum: 0 }) }, { inferred: true })) },
    }),
    operation({
      method: 'post',
      path: '/workflows/get',
      operationId: 'getWorkflow',
      tag: TAG,
      specSection: `${ABSENT}: Workflows`,
      summary: 'One workflow by workflow_id (any plan)',
      description: 'Path, body and response not shown; inferred. 404 for an unknown workflow_id.',
      requestBody: byId('workflow_id'),
      inferred: true,
      errors: [404],
      success: { status: 200, schema: data(ref('Workflow')) },
    }),
    operation({
      method: 'post',
      path: '/workflows/create',
      operationId: 'createWorkflow',
      tag: TAG,
      specSection: `${ABSENT}: Workflows`,
      summary: 'Create a workflow (trigger plus step graph)',
      description: 'Path, body and response not shown; inferred. The step graph cannot be edited through the API afterwards (builder only).',
      requestBody: body(
        {
          name: nonBlankText(),
          trigger: obj({}, { required: [], description: 'Trigger (shape not shown).' }),
          steps: arr(obj({}, { required: [] }), { description: 'Step graph (shape not shown).' }),
          active: bool({ description: 'Start active (default false: paused).' }),
        },
        { required: ['trigger'] },
      ),
      inferred: true,
      success: { status: 201, schema: data(ref('Workflow')) },
    }),
    operation({
      method: 'post',
      path: '/workflows/toggle',
      operationId: 'toggleWorkflow',
      tag: TAG,
      specSection: `${ABSENT}: Workflows`,
      summary: 'Pause or activate a workflow (Scale plan)',
      description:
        'Path, body and response not shown; inferred. `active` sets the state; omitted, the state flips. 403 below the Scale plan; 404 for an unknown workflow_id.',
      requestBody: byId('workflow_id', { active: bool() }),
      planGate: 'scale',
      inferred: true,
      errors: [404],
      success: { status: 200, schema: data(ref('Workflow')) },
    }),
    operation({
      method: 'delete',
      path: '/workflows/delete',
      operationId: 'deleteWorkflow',
      tag: TAG,
      specSection: `${ABSENT}: Workflows`,
      summary: 'Delete a workflow by workflow_id',
      description: 'Path, body and response not shown; inferred. 404 for an unknown workflow_id.',
      requestBody: byId('workflow_id'),
      inferred: true,
      errors: [404],
      success: { status: 200, schema: deletedResult('workflow_id') },
    }),

    // ---- Creator briefs (Scale plan) ----
    operation({
      method: 'post',
      path: '/creator-briefs/create',
      operationId: 'createCreatorBrief',
      tag: TAG,
      specSection: `${ABSENT}: Creator briefs`,
      summary: 'Create a creator brief (Scale plan; at most 500 per shop)',
      description:
        `Body and response not shown; inferred. Static briefs pick videos (\`video_mode\` \`manual\` with \`video_ids\`) or show the shop's top videos (\`auto\`); dynamic briefs are per product (\`product_id\` required, no video fields); a static brief takes no \`product_id\`; \`manual\` needs at least one of the shop's videos, \`auto\` (the default) takes none. A product or video the shop does not have: 400. The ${MAX_BRIEFS + 1}st brief of a shop is refused with 400 (\`Creator brief limit reached (${MAX_BRIEFS} per shop)\`). 403 below the Scale plan.`,
      requestBody: Object.assign(
        body(
          {
            title: str({ minLength: 1 }),
            type: enumOf(BRIEF_TYPES),
            video_mode: enumOf(BRIEF_VIDEO_MODES, { description: 'Static briefs only; default `auto`.' }),
            video_ids: arr(str()),
            product_id: str({ minLength: 1, description: 'Dynamic briefs only.' }),
          },
          { required: ['type'] },
        ),
        { allOf: briefConditions },
      ),
      planGate: 'scale',
      idempotent: true,
      inferred: true,
      success: { status: 201, schema: data(ref('CreatorBrief')) },
    }),
    operation({
      method: 'post',
      path: '/creator-briefs/update',
      operationId: 'updateCreatorBrief',
      tag: TAG,
      specSection: `${ABSENT}: Creator briefs`,
      summary: 'Update a creator brief by brief_id (Scale plan)',
      description:
        'Body and response not shown; inferred. 404 for an unknown brief_id; 403 below the Scale plan. The brief\'s stored type decides which fields apply, as on create (spec: "Creator briefs: static (`video_mode` `manual` picks videos; `auto` shows the shop\'s top videos) or dynamic (per product, generated live)"): a static brief takes `video_mode`/`video_ids` and refuses `product_id` (400 `product_id is only for dynamic briefs`), a dynamic one takes `product_id` and refuses `video_mode`/`video_ids` (400 `video_mode and video_ids are only for static briefs`); a static brief left in `manual` needs videos, given or stored (400), and one stored in `auto` takes `video_ids` only with `video_mode` `manual` in the same update (400 `video_ids are only read with video_mode manual (auto shows the shop\'s top videos)`). What holds whatever the type is in the schema: `product_id` never comes with `video_mode` or videos, and `auto` takes no videos (inferred).',
      requestBody: {
        allOf: [
          { not: { required: ['product_id', 'video_mode'] } },
          { if: { required: ['product_id'] }, then: { properties: { video_ids: { maxItems: 0 } } } },
          { if: { properties: { video_mode: { const: 'auto' } }, required: ['video_mode'] }, then: { properties: { video_ids: { maxItems: 0 } } } },
        ],
        ...byId('brief_id', {
          title: nonBlankText(),
          video_mode: enumOf(BRIEF_VIDEO_MODES),
          video_ids: arr(str()),
          product_id: str({ minLength: 1 }),
        }),
      },
      planGate: 'scale',
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: data(ref('CreatorBrief')) },
    }),
    operation({
      method: 'delete',
      path: '/creator-briefs/delete',
      operationId: 'deleteCreatorBrief',
      tag: TAG,
      specSection: `${ABSENT}: Creator briefs`,
      summary: 'Delete a creator brief by brief_id (Scale plan)',
      description: 'Body and response not shown; inferred. 404 for an unknown brief_id; 403 below the Scale plan.',
      requestBody: byId('brief_id'),
      planGate: 'scale',
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: deletedResult('brief_id') },
    }),

    // ---- Community campaigns (Scale plan) ----
    operation({
      method: 'post',
      path: '/community/campaigns/create',
      operationId: 'createCommunityCampaign',
      tag: TAG,
      specSection: `${ABSENT}: Community campaigns`,
      summary: 'Create a community campaign (Scale plan); returns share_link',
      description:
        'Body and response not shown beyond `share_link` ({community_url}/<6-character slug>); inferred. Live immediately when `status` is `active` (default `draft`, inferred). An `end_date` before the `start_date`: 400 (inferred). 403 below the Scale plan.',
      requestBody: body(
        {
          title: nonBlankText(),
          type: enumOf(COMMUNITY_TYPES),
          status: inferredOnly(enumOf(['draft', 'active']), '`active` goes live immediately; `draft` (default) is inferred.'),
          description: str(),
          start_date: date(),
          end_date: date(),
          settings: obj({}, { required: [], description: 'Type-specific settings (not shown).' }),
        },
        { required: ['title', 'type'] },
      ),
      planGate: 'scale',
      idempotent: true,
      inferred: true,
      success: { status: 201, schema: data(ref('CommunityCampaign')) },
    }),
    operation({
      method: 'post',
      path: '/community/campaigns/update',
      operationId: 'updateCommunityCampaign',
      tag: TAG,
      specSection: `${ABSENT}: Community campaigns`,
      summary: 'Update a community campaign by campaign_id (Scale plan)',
      description: 'Body and response not shown; inferred. 404 for an unknown campaign_id; a blank title, or an `end_date` before the `start_date` (as given or as stored): 400 (inferred); 403 below the Scale plan.',
      requestBody: byId('campaign_id', {
        title: nonBlankText(),
        status: inferredOnly(enumOf(['draft', 'active', 'ended']), 'States beyond `active` are not shown; `draft` and `ended` are inferred.'),
        description: str(),
        start_date: date(),
        end_date: date(),
        settings: obj({}, { required: [] }),
      }),
      planGate: 'scale',
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: data(ref('CommunityCampaign')) },
    }),
    operation({
      method: 'delete',
      path: '/community/campaigns/delete',
      operationId: 'deleteCommunityCampaign',
      tag: TAG,
      specSection: `${ABSENT}: Community campaigns`,
      summary: 'Delete a community campaign by campaign_id (Scale plan)',
      description: 'Body and response not shown; inferred. 404 for an unknown campaign_id; 403 below the Scale plan.',
      requestBody: byId('campaign_id'),
      planGate: 'scale',
      idempotent: true,
      inferred: true,
      errors: [404],
      success: { status: 200, schema: deletedResult('campaign_id') },
    }),
    operation({
      method: 'post',
      path: '/community/payouts/authorize',
      operationId: 'authorizeCommunityPayout',
      tag: TAG,
      specSection: `${ABSENT}: Community campaigns`,
      summary: 'Authorize a community payout (once per campaign, creator and period)',
      description:
        'Idempotent without the Idempotency-Key header, keyed on (campaign, creator, period): a repeat returns 400 with an already-paid message. Body and response not shown; inferred. 404 for an unknown campaign_id, or a creator_id or handle naming no creator; a creator_id and a handle naming different creators: 400 (inferred); 403 below the Scale plan.',
      // One of creator_id or handle identifies the creator.
      requestBody: Object.assign(body(
        {
          campaign_id: str({ minLength: 1 }),
          creator_id: str({ minLength: 1 }),
          handle: str({ minLength: 1, description: 'Alternative to creator_id.' }),
          period: nonBlankText({ description: 'The payout period (for example `2026-05` for a retainer month); format not shown.' }),
          amount: num({ minimum: 0, description: 'Amount in the shop\'s currency; the campaign\'s reward when omitted.' }),
        },
        { required: ['campaign_id', 'period'] },
      ), { anyOf: [{ required: ['creator_id'] }, { required: ['handle'] }] }),
      planGate: 'scale',
      inferred: true,
      errors: [404],
      success: { status: 200, schema: data(ref('CommunityPayout')) },
    }),
  ],
}
