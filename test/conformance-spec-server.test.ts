/**
 * The conformance suite against a server it did not grow up with: test/spec-server, written from
 * the service document alone on Hono, sharing no code with the mock. Every rule of the catalogue
 * has its expected verdict here: the rules of the cross-cutting areas the spec server implements
 * (auth and scopes, idempotency, rate limit, paging, dashboards 412/409) pass or skip for a stated
 * reason; the rest are outside what the spec server implements and are not run. A rule that starts
 * failing a server that reads the spec right, or a spec server that drifts from the spec, fails here.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadContract } from '../openapi/index.ts'
import { catalogue, selectRules } from '../conformance/catalogue.ts'
import { buildReport } from '../conformance/report.ts'
import { describeOutcome } from '../conformance/runner/describe.ts'
import { createRunEnvironment, runRule, type RunEnvironment } from '../conformance/runner/run-rule.ts'
import type { RuleOutcome, RunOptions } from '../conformance/types.ts'
import { KEYS, SHOPS, startSpecServer, type RunningSpecServer } from './spec-server/index.ts'

type Expected = { verdict: 'pass' } | { verdict: 'skip'; because: string } | { verdict: 'not run'; because: string }

const pass: Expected = { verdict: 'pass' }
const outside = (what: string): Expected => ({ verdict: 'not run', because: `outside the spec server's areas: ${what}` })
/** The spec shows no path for these operations, so a server written from it has none: the rule is not checkable against it (not a failure, not a pass). */
const noPathInSpec = (what: string): Expected => ({ verdict: 'skip', because: `not checkable against this target: ${what}` })

const EXPECTED: Record<string, Expected> = {
  'auth.ads-plan-gate': pass,
  'auth.enterprise-allowed': noPathInSpec('the target serves none of the Enterprise paths the contract inferred (the spec shows none)'),
  'auth.enterprise-refused': noPathInSpec('the target serves none of the Enterprise paths the contract inferred (the spec shows none)'),
  'auth.invalid-shop-id': pass,
  'auth.key-only-routes': pass,
  'auth.limited-key-scope': pass,
  'auth.missing-key': pass,
  'auth.missing-shop-header': pass,
  'auth.scale-plan-gate': noPathInSpec('the target does not serve the workflow paths the contract inferred (the spec shows none)'),
  'auth.shop-not-owned': pass,
  'auth.unknown-key': pass,
  'idempotency.concurrent-409': pass,
  'idempotency.header-format': pass,
  'idempotency.key-format': pass,
  'idempotency.lookup-states': pass,
  // spec: Outreach automations: "the remaining operations of this group: not shown" (no listing to count with).
  'idempotency.no-second-effect': noPathInSpec('the target has no automation listing to count side effects with (the spec shows none)'),
  'idempotency.replay-identical': pass,
  'idempotency.shop-scoped': pass,
  'idempotency.unknown-key': pass,
  'dashboards.name-taken-409': pass,
  'dashboards.stale-update-412': pass,
  'dashboards.widget-validation': outside('POST /dashboards/data computes shop stats'),
  'paging.depth-cap': pass,
  'paging.has-more-total-count': pass,
  'paging.just-count': pass,
  'paging.page-size-limits': pass,
  'sorting.invalid-falls-back': outside('sort orders of the listings'),
  'sorting.nulls-last': outside('sort orders of the listings'),
  'sorting.order': outside('sort orders of the listings'),
  'dates.halo-range-max': outside('the halo report'),
  // A SHOULD from RFC 9110, not from the spec: the spec server was written from the spec alone.
  'http.undocumented-methods': outside('the answers to methods the spec does not document (RFC 9110)'),
  'dates.missing-range': outside('date ranges'),
  'dates.slideshows-range-required': outside('date ranges'),
  'dates.stats-grain-timezone': outside('shop stats'),
  'aliases.camel-case-keys': outside('camelCase request keys'),
  'aliases.get-equals-post': outside('GET forms'),
  'aliases.spark-flat-date-keys': outside('spark list filters'),
  'aliases.v1-equals-canonical': outside('GET forms of the /v1 aliases'),
  'stats.daily-counts': outside('shop stats'),
  'stats.grain-buckets': outside('shop stats'),
  'ads.campaigns-total-count': outside('ad campaigns (its shops run none)'),
  'ads.creatives-status-filter': outside('ad creatives (its shops run none)'),
  'halo.refreshing-then-ok': outside('the halo report'),
  'invariants.new-video-gmv-without-range': outside('timeseries figures'),
  'invariants.ratio-fields': outside('ratio fields'),
  'invariants.video-gmv-bounded': outside('timeseries figures'),
  'samples.funnel-monotonic': outside('the sample funnel'),
  'samples.ignore-hides': outside('sample ignore'),
  'lists.handle-normalisation': outside('lists'),
  'tags.lifecycle': outside('tags'),
  'outreach.filters-dropped': outside('the automation listing the rule reads back'),
  'contract.reads-answer': outside('every reading operation of the contract'),
  'contract.writes-answer': outside('every writing operation of the contract'),
  'ratelimit.burst-429': pass,
  // Comes along with any selection: every response the rules above received is valid against the contract.
  'contract.responses-valid': pass,
}

const inArea = catalogue.filter((r) => EXPECTED[r.id]?.verdict !== 'not run')

/** Run options for the spec server: its own keys and its Scale shop, writes allowed, under its 10 per second. */
const optionsFor = (server: RunningSpecServer, rules: string[]): RunOptions => ({
  baseUrl: server.url,
  apiKey: KEYS.standard,
  enterpriseApiKey: KEYS.enterprise,
  limitedApiKey: KEYS.limited,
  shopId: SHOPS.scale.shop_id,
  allowWrites: true,
  rules,
  rps: 9,
  haloBoundSeconds: 5,
  ruleTimeoutSeconds: 60,
})

describe('conformance suite against the spec server (written from the service document alone, on Hono)', () => {
  let server: RunningSpecServer
  let env: RunEnvironment
  const outcomes: RuleOutcome[] = []

  beforeAll(async () => {
    // Creating an automation takes 400 ms at the platform, so concurrent requests find their key in flight.
    server = await startSpecServer({ platform: (operation) => new Promise((resolve) => setTimeout(resolve, operation === 'POST /automations/create' ? 400 : 0)) })
    env = createRunEnvironment(optionsFor(server, inArea.map((r) => r.id)))
  })
  afterAll(async () => {
    await server?.close()
  })

  it('every rule of the catalogue has an expected verdict against the spec server', () => {
    expect(Object.keys(EXPECTED).sort()).toEqual(catalogue.map((r) => r.id).sort())
    // The schema verdict is what selectRules always adds: it must be among the rules run.
    expect(selectRules(inArea.map((r) => r.id)).map((r) => r.id).sort()).toEqual(inArea.map((r) => r.id).sort())
  })

  for (const rule of inArea) {
    const expected = EXPECTED[rule.id]!
    const title = expected.verdict === 'pass' ? 'passes' : `skips: ${expected.verdict === 'skip' ? expected.because : ''}`
    it(`${rule.id} ${title}`, { timeout: 120_000 }, async () => {
      const outcome = await runRule(rule, env)
      outcomes.push(outcome)
      expect(outcome.status, describeOutcome(outcome)).toBe(expected.verdict)
      if (expected.verdict === 'skip') expect(outcome.reason).toBe(expected.because)
    })
  }

  it('the run exercised the situations the rules are about (in flight, 429 with Retry-After, 412, a foreign shop, a cap read as a cap)', () => {
    const seen = (operationId: string, status: number, text = '') => env.history.some((e) => e.operationId === operationId && e.status === status && e.responseExcerpt.includes(text))
    expect(seen('createAutomation', 409), 'a concurrent request found its key in flight').toBe(true)
    expect(env.history.some((e) => e.status === 429 && Number(e.responseHeaders['retry-after']) >= 1), 'a 429 with Retry-After').toBe(true)
    expect(seen('updateDashboard', 412), 'a stale expected_updated_at got 412').toBe(true)
    expect(seen('listAdCampaigns', 403, 'Shop not found or not owned by user'), 'a foreign shop_ id got 403').toBe(true)
    // The spec server serves "max N" as N and stops at the depth caps with an empty page: the rules accept that reading (and say the 400 is inferred).
    const warnings = (id: string) => outcomes.find((o) => o.id === id)?.warnings.map((w) => w.message) ?? []
    expect(warnings('paging.page-size-limits').some((m) => m.includes('is served, not refused'))).toBe(true)
    expect(warnings('paging.depth-cap').some((m) => m.includes('is not refused'))).toBe(true)
  })

  it('the verdict names exactly the rules not checkable against it, and counts none of them as not run', () => {
    const report = buildReport(env.contract, env.options, outcomes, [], new Date(), inArea)
    // Not certified for the operations outside its areas, which it does not serve: not for the rules it cannot be checked on.
    expect(report.verdict).toBe('passed, not certified')
    const skipped = Object.entries(EXPECTED).filter(([, e]) => e.verdict === 'skip').map(([id]) => id).sort()
    expect(report.notCheckable.map((m) => m.id).sort()).toEqual(skipped)
    expect(report.incomplete.mustNotRun).toEqual([])
    expect(report.verdictText).toContain(`; ${skipped.length} MUST rules not checkable against this target (`)
  })

  it('never records an API key of the spec server', () => {
    const text = JSON.stringify(env.history)
    for (const key of Object.values(KEYS)) expect(text).not.toContain(key)
  })
})

describe('the Enterprise rules against the spec server serving Enterprise endpoints at the paths the contract inferred', () => {
  let server: RunningSpecServer
  beforeAll(async () => {
    // The deployment names its Enterprise paths (the spec shows none); here, the contract's.
    const enterprisePaths = loadContract().operations.filter((op) => op.enterprise).map((op) => op.path)
    server = await startSpecServer({ enterprisePaths })
  })
  afterAll(async () => {
    await server?.close()
  })

  for (const id of ['auth.enterprise-refused', 'auth.enterprise-allowed']) {
    it(`${id} passes`, async () => {
      const env = createRunEnvironment(optionsFor(server, [id]))
      const outcome = await runRule(catalogue.find((r) => r.id === id)!, env)
      expect(outcome.status, describeOutcome(outcome)).toBe('pass')
      expect(outcome.warnings).toEqual([])
    })
  }
})
