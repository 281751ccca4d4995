/**
 * Every exclusion of the generative contract check (test/contract-fuzz/contract-fuzz.test.ts), in
 * one place, each with its reason. An exclusion lets one kind of finding pass for one operation:
 *
 * - `positive-400`: a request valid by the contract's schemas refused with 400 (by the API, or by an MCP
 *   tool, judged under the tool's operation). Allowed only where the spec (or the RFC the connector
 *   follows) states a rule in words that JSON Schema cannot carry: a rule over two parameters, a
 *   reference to the world or to stored state; the refusal is then named in the operation's
 *   description or a declared response, so it is reachable from the contract;
 * - `negative-accepted`: a request the contract's schemas refuse, answered with a success;
 * - `schema`: an answer that does not validate against its declared response;
 * - `use-after-free`: a call that addresses a deleted resource (by the id its create answered) not
 *   answered with the contract's not-found refusal. Allowed only where the spec says in words that
 *   something else happens; `violation` then matches the call (its description in the check).
 *
 * A disagreement between the contract and the twin is never an exclusion: it is settled from the spec
 * (issue 24; the helper notes list each with the spec line that decided it).
 */

export type FindingKind = 'positive-400' | 'negative-accepted' | 'schema' | 'use-after-free'

export interface Exclusion {
  kind: FindingKind
  /** The operationId, or a pattern over operationIds. */
  operation: string | RegExp
  /** Over the answer's text (a 400's message). */
  answer?: RegExp
  /** Over the negative request's violation (`body date_range.from: not a date`), or the call made after a delete. */
  violation?: RegExp
  reason: string
}

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
  {
    kind: 'positive-400',
    operation: 'getHaloReportGet',
    answer: /^\{"error":"Missing date_range \(from\/to\)"\}$/,
    reason: 'spec: Off-platform sales correlation, "`date_range` {from, to}" with "`date_from`/`date_to` accepted instead of `date_range`", and Errors "Missing date_range (from/to)": the GET form needs date_range[from]+date_range[to] or date_from+date_to. OpenAPI parameters are each required or not (no one-of over parameters), so the rule is in the operation\'s description; the POST form carries it as anyOf',
  },
  // ---- references to records of the world (ids, titles, handles, state) -------------------------
  {
    kind: 'positive-400',
    operation: /^(createDashboard|updateDashboard|createEmailCampaign|updateEmailCampaign|sendCreatorDm|createAutomation|updateAutomation|getHaloReport|getHaloReportGet|authorizeCommunityPayout|createCreatorBrief|updateCreatorBrief)$/,
    answer: /is not a product of shop|no known creator|no list titled|Unknown creator|name different creators|no email sender|already sent and cannot be changed|no group .* in this shop|no (product|video) .* in this shop/,
    reason: 'a value naming a record the shop does not have (or one whose state forbids the change); the schema cannot know the world. The spec shows none of these bodies (Outreach: "not shown"): the 400 and its message are the twin\'s inference',
  },
  {
    kind: 'positive-400',
    operation: /^(getDashboardData|updateDashboard)$/,
    answer: /(widget_ids|remove_widget_ids): widget .* is not on the board/,
    reason: 'spec: Errors, "400 | ... unknown widget id in `widget_ids` or `remove_widget_ids`" (and Dashboards: "`widget_ids` (400 if one is not on the board)"): which widgets a board holds is state, not schema',
  },
  {
    kind: 'positive-400',
    operation: 'updateCreatorBrief',
    answer: /product_id is only for dynamic briefs|video_mode and video_ids are only for static briefs|product_id is required for a dynamic brief|a manual brief needs at least one video|video_ids are only read with video_mode manual/,
    reason: 'spec: Creator briefs, "static (`video_mode` `manual` picks videos; `auto` shows the shop\'s top videos) or dynamic (per product, generated live)": an update follows the brief\'s stored type (and stored videos and mode: videos for a brief stored in auto need video_mode manual with them), which the schema cannot know; the operation\'s description says it, and what holds whatever the type is in the schema (allOf)',
  },
  {
    kind: 'positive-400',
    operation: /.*/,
    answer: /Idempotency-Key already used for (POST|DELETE) \S+ on this shop; use a new key for another operation/,
    reason: 'the key\'s earlier use on another operation is state; the 400 is declared (IdempotentBadRequest, x-inferred, with the spec\'s words: "response (status and body) cached 24 hours per shop and key; replay returns the original response identically"). Reached by MCP tool calls, whose generated keys are short and repeat',
  },
  {
    kind: 'positive-400',
    operation: 'createCustomEmailSender',
    answer: /^\{"error":"email: a sender with .* already exists in this shop"\}$/,
    reason: 'an address the shop already has a sender for (400, inferred, in the operation\'s description): which senders exist is state, not schema',
  },
  {
    kind: 'positive-400',
    operation: 'updateDashboard',
    answer: /widgets\[\d+\](\.\S+ does not apply to a stat(-chart)? widget|\.stat_keys? is required for a stat(-chart)? widget|\.type: widget .+ is a \S+ widget; its type cannot change|: widget .+ is a \S+ widget, which the API keeps but cannot edit|\.id: widget .+ appears twice in widgets)/,
    reason: 'spec: Dashboards: update, "entries with a known `id` keep that widget and may change stat fields; entries without a known id are new stat widgets": an entry naming an id follows the stored widget (its type, whether the API may edit it), which the schema cannot know; what holds whatever the board holds is in DashboardWidgetUpdateEntry\'s allOf and checked',
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
  // ---- state the schema cannot know ------------------------------------------------------------
  {
    kind: 'positive-400',
    operation: 'createCreatorBrief',
    answer: /^\{"error":"Creator brief limit reached \(500 per shop\)"\}$/,
    reason: 'spec: Limits, "Creator briefs | at most 500 per shop" (and Creator briefs: "at most 500 briefs per shop"): how many the shop holds is state; the 400 and its message are in the operation\'s description (inferred: the spec shows no body). Reached by 1000 runs a seed, whose creates fill the Scale shop',
  },
  {
    kind: 'positive-400',
    operation: 'updateEmailCampaign',
    answer: /recipients are required to send/,
    reason: 'a send without recipients in the request goes to the campaign\'s stored recipients; a campaign stored without any is refused (400, inferred; the operation\'s description says it): the schema cannot know what is stored. An empty `recipients` with a send is in the schema (if/then) and checked',
  },
  // ---- what the spec says happens after a delete -------------------------------------------------
  {
    kind: 'use-after-free',
    operation: /^(deleteAutomation|deleteEmailCampaign|deleteGroup|deleteList|deleteCreatorBrief|deleteCommunityCampaign)$/,
    violation: /^the delete replayed with the Idempotency-Key it was sent with$/,
    reason:
      'spec: Idempotency, "With it: response (status and body) cached 24 hours per shop and key; replay returns the original response identically" (these deletes are in its list of writes that accept the header): the delete sent again with its own key is answered its original 200, not 404. The check compares the replay with the original answer byte for byte instead; the same delete with another key, or none, must be 404',
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

