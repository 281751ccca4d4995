/**
 * Every server rule of the conformance suite, as the proxy treats it: judged passively (a judge
 * below), or not, and why. test/proxy.test.ts checks that the two lists cover the catalogue exactly.
 */
import { authJudges } from './auth.ts'
import { contractJudges } from './contract.ts'
import { idempotencyJudges } from './idempotency.ts'
import { pagingJudges } from './paging.ts'
import { readJudges } from './reads.ts'
import type { PassiveJudge } from './types.ts'

/** A fresh set of judges (some keep what they saw: one set per proxy run). */
export const passiveJudges = (): PassiveJudge[] => [...authJudges(), ...idempotencyJudges(), ...pagingJudges(), ...readJudges(), ...contractJudges()]

/** The rules traffic alone cannot decide: what each would need that a passive observer does not have. */
export const NOT_PASSIVE: Record<string, string> = {
  'http.undocumented-methods': 'needs requests with methods the paths do not document, which a client under test does not send',
  'auth.ads-plan-gate': 'needs to know which shops are on an active paid plan (the suite reads it, then calls the ads on an inactive shop)',
  'auth.enterprise-allowed': 'needs to know which key is an Enterprise key',
  'auth.enterprise-refused': 'needs to know which key is a standard key',
  'auth.scale-plan-gate': 'needs to know each shop\'s plan and call the gated routes below Scale',
  'auth.shop-not-owned': 'needs to know which shops belong to the account of the key',
  'auth.unknown-key': 'needs a key known to be unknown (the proxy cannot tell an unknown key from a revoked or mistyped one)',
  'idempotency.no-second-effect': 'needs to read back the resources a replay would have created a second time',
  'dashboards.name-taken-409': 'needs every board name of the shop, including boards made outside the traffic',
  'dashboards.widget-validation': 'needs the board\'s widgets and the stat catalogue of the target',
  'sorting.invalid-falls-back': 'needs the same listing with the default sort to compare with',
  'aliases.camel-case-keys': 'needs the same request in both spellings, at the same moment',
  'aliases.get-equals-post': 'needs the same request as GET and as POST, at the same moment',
  'aliases.spark-flat-date-keys': 'needs the same request with flat and nested date keys, at the same moment',
  'aliases.v1-equals-canonical': 'needs the same request on /v1 and on the canonical path, at the same moment',
  'stats.grain-buckets': 'needs the world\'s calendar per bucket (the first point is the from date, then the buckets\' first days) for the shop\'s time zone',
  'ads.campaigns-total-count': 'needs the same campaign list over several date ranges',
  'ads.creatives-status-filter': 'needs the unfiltered list to compare total_count and available_statuses',
  'halo.refreshing-then-ok': 'needs to poll one report until the bound (the client decides when to ask)',
  'samples.ignore-hides': 'needs to read the review list before and after an ignore',
  'lists.handle-normalisation': 'needs to know which handles are known creators and read the list back',
  'tags.lifecycle': 'needs to read the CRM back after tagging and untagging',
  'outreach.filters-dropped': 'needs to submit more filters than the limit (nothing in an answer shows what was dropped)',
}
