/**
 * Every exclusion of the generative contract check (test/contract-fuzz/contract-fuzz.test.ts), in
 * one place, each with its reason. An exclusion lets one kind of finding pass for one operation:
 *
 * - `positive-400`: a request valid by the contract's schemas refused with 400. Allowed only where the
 *   spec states a rule in words that JSON Schema cannot carry (a cross-field rule, a reference to the
 *   world), or where the contract and the twin disagree and issue 24 item 2 (the contract side,
 *   helper 24b) settles which is right;
 * - `negative-accepted`: a request the contract's schemas refuse, answered with a success;
 * - `schema`: an answer that does not validate against its declared response.
 *
 * "contract disagreement, see issue 24 item 2": the lead removes these once 24b's branch is merged.
 */

export type FindingKind = 'positive-400' | 'negative-accepted' | 'schema'

export interface Exclusion {
  kind: FindingKind
  /** The operationId, or a pattern over operationIds. */
  operation: string | RegExp
  /** Over the answer's text (a 400's message). */
  answer?: RegExp
  /** Over the negative request's violation (`body date_range.from: not a date`). */
  violation?: RegExp
  reason: string
}

const DISAGREEMENT = 'contract disagreement, see issue 24 item 2'

export const exclusions: readonly Exclusion[] = [
  // ---- rules the spec states in words, which the schemas cannot carry ---------------------------
  {
    kind: 'positive-400',
    operation: /.*/,
    answer: /must not be (before|after)|is after|is before|from must be|must be on or before|must come before/i,
    reason: 'spec: Conventions 7 (ranges are {from, to}): a range whose from is after its to is refused; JSON Schema cannot compare two fields',
  },
  {
    kind: 'positive-400',
    operation: /.*/,
    answer: /page(_number)? x page_size must not exceed (10000|1000)\b/,
    reason: 'spec: Limits, "Pagination depth: results stop at 10,000 rows (page_number x page_size ...)" and "Sample list depth: page_number x page_size at most 1000": a product of two fields (the contract carries it in x-paging)',
  },
  {
    kind: 'positive-400',
    operation: /^(getShopStats|getDashboardData)$/,
    answer: /unrecognised IANA timezone/,
    reason: 'spec: Shop statistics 1, "An unrecognised value returns 400" (and Errors): the IANA time zone database is no JSON Schema enum',
  },
  {
    kind: 'positive-400',
    operation: /^getHaloReport(Get)?$/,
    answer: /date_range must span at most 366 days/,
    reason: 'spec: Limits, "Halo date range: at most 366 days": the length of a range is a rule over two fields',
  },
  // ---- references to records of the world (ids, titles, handles, state) -------------------------
  {
    kind: 'positive-400',
    operation: /^(createDashboard|updateDashboard|createEmailCampaign|updateEmailCampaign|sendCreatorDm|createAutomation|updateAutomation|getHaloReport|getHaloReportGet|authorizeCommunityPayout|createCreatorBrief|updateCreatorBrief)$/,
    answer: /is not a product of shop|no known creator|no list titled|Unknown creator|name different creators|no email sender|already sent and cannot be changed|no group \S* ?in this shop|no (product|video) .* in this shop/,
    reason: 'a value naming a record the shop does not have (or one whose state forbids the change); the schema cannot know the world. The spec shows none of these bodies (Outreach: "not shown"): the 400 and its message are the twin\'s inference',
  },
  {
    kind: 'positive-400',
    operation: 'requestConnectorToken',
    answer: /"invalid_grant"/,
    reason: 'RFC 6749 5.2: an authorization code or refresh token the server did not issue (or one used, expired or revoked) is invalid_grant; the schema cannot know the tokens issued',
  },
  {
    kind: 'positive-400',
    operation: /^(startConnectorAuthorization|answerConnectorConsent)$/,
    answer: /^<!doctype html>/i,
    reason: 'RFC 6749 4.1.2.1: an unknown client_id or redirect_uri (or an unknown pending request) is shown to the user as an error page, never redirected; the schema cannot know the registered clients',
  },
  // ---- contract disagreements: helper 24b settles them on the contract side ---------------------
  {
    kind: 'positive-400',
    operation: /^(listAdCampaigns|listAdCampaignsV1|listSocialCampaigns|listSocialAdsets|listSocialAds|getHaloReport|getHaloReportGet)$/,
    answer: /Missing date_range \(from\/to\)/,
    reason: `${DISAGREEMENT}: the spec requires the range (Errors: "missing required date range on campaign, creative-ads and social-ads endpoints"; Off-platform sales correlation), the contract's body is optional (requestBody.required false, date_range not required)`,
  },
  {
    kind: 'positive-400',
    operation: /^(createAutomation|createEmailCampaign)$/,
    answer: /"title is required"|"outreach_audience is required/,
    reason: `${DISAGREEMENT}: the twin requires title (and an automation's outreach_audience), the contract does not (spec: Outreach, automations/create "body fields shown: title, ..."; email bodies "not shown")`,
  },
  {
    kind: 'positive-400',
    operation: /^(createAutomation|updateAutomation)$/,
    answer: /outreach_audience \\"(groups|list)\\" needs a/,
    reason: `${DISAGREEMENT}: spec: Outreach, "outreach_audience (new_affiliates, groups with group_id, list)" and "Lists are used by outreach_audience: list": the conditions are not in the contract's schema`,
  },
  {
    kind: 'positive-400',
    operation: /^(createCreatorBrief|updateCreatorBrief)$/,
    answer: /only for dynamic briefs|only for static briefs|only read with video_mode manual|a manual brief needs at least one video/,
    reason: `${DISAGREEMENT}: spec: Outreach, briefs "static (video_mode manual ... auto ...) or dynamic (per product)": the static/dynamic fields are not conditional in the contract`,
  },
  {
    kind: 'positive-400',
    operation: /^(createDashboard|updateDashboard)$/,
    answer: /unknown stat key/,
    reason: `${DISAGREEMENT}: spec: Errors, "unknown stat key ... on dashboard create" is 400, yet the contract's stat_key/stat_keys are free strings (no enum of the stat keys)`,
  },
  {
    kind: 'positive-400',
    operation: /^(addTag|removeTag|createDashboard|updateDashboard|createGroup|createAutomation|updateAutomation)$/,
    answer: /(tag|name|title) must not be blank|name must have 1-60 characters that are not blank/,
    reason: `${DISAGREEMENT}: the twin refuses a blank (all-space) tag, group or board name, or automation title; the contract's string has no minLength/pattern saying so (spec: Dashboards, name "1-60 characters"; Tags: not shown)`,
  },
  {
    kind: 'positive-400',
    operation: /^(createDashboard|updateDashboard)$/,
    answer: /does not apply to a stat-chart widget|does not apply to a stat widget/,
    reason: `${DISAGREEMENT}: spec: Dashboards, widget settings per type (stat: stat_key ...; stat-chart: stat_keys ...): the contract does not make them conditional on the type`,
  },
  {
    kind: 'positive-400',
    operation: /^(createEmailCampaign|updateEmailCampaign)$/,
    answer: /recipients are required to send/,
    reason: `${DISAGREEMENT}: sending needs recipients in the twin (an inference: email bodies are "not shown"); the contract does not say so`,
  },
  {
    kind: 'positive-400',
    operation: 'getShopStats',
    answer: /cpm must be a number at least 0/,
    reason: `${DISAGREEMENT}: the twin refuses a negative cpm (spec: Dashboards, "cpm 0-1000"; Shop statistics: "cpm number (default 5)"); the contract's cpm has no minimum`,
  },
  {
    kind: 'positive-400',
    operation: /^(requestConnectorToken|revokeConnectorToken)$/,
    answer: /"invalid_request".*(client_id is required|token is required)/,
    reason: `${DISAGREEMENT}: RFC 6749 4.1.3 (client_id REQUIRED for a client not authenticating) and RFC 7009 2.1 (token REQUIRED): the connector's TokenRequest and RevocationRequest do not require them (openapi/src/connector-door.ts)`,
  },
  {
    kind: 'positive-400',
    operation: 'registerConnectorClient',
    answer: /"invalid_redirect_uri".*must use https, or http on a loopback host/,
    reason: `${DISAGREEMENT}: OAuth 2.1 / RFC 8252 7.3 (https, or http on a loopback host): the contract says it in redirect_uris' description only; a pattern would let generators keep to it`,
  },
  {
    kind: 'positive-400',
    operation: /Get(V1)?$/,
    answer: /columns: unknown column/,
    reason: `${DISAGREEMENT}: spec: Conventions 5 (columns: the fields to export): the POST bodies list the export's columns as an enum, the GET forms' columns parameter takes any string`,
  },
]

/** The exclusion that lets a finding pass, if any. */
export function exclusionFor(kind: FindingKind, operationId: string, answerText: string, violation = ''): Exclusion | undefined {
  return exclusions.find(
    (e) =>
      e.kind === kind &&
      (typeof e.operation === 'string' ? e.operation === operationId : e.operation.test(operationId)) &&
      (!e.answer || e.answer.test(answerText)) &&
      (!e.violation || e.violation.test(violation)),
  )
}

export { DISAGREEMENT }
