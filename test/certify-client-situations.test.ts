/**
 * No situation the twin can produce goes unexercised (issue 26, item 2): a client that calls any one
 * operation once, following the rules, meets on that call every situation its rules need (the 429 on
 * its first request to the shop, the 409 and a write fault on its first keyed write, the 412 on its
 * first conditional board update, `refreshing` on its first halo read, the 403 of an Enterprise call
 * with a standard key), so no MUST rule of it is "not exercised"; every paged listing of the
 * certification world's main shop is deeper than its depth cap, so a client that pages any of them to
 * the end meets the cap; and every rule's declared situations are produced by one of those runs. The client waits on the twin's clock, never the wall clock.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadContract, type OperationInfo } from '../openapi/index.ts'
import { typicalRequest } from '../conformance/examples.ts'
import { gradeRecording, type ClientReport } from '../conformance/certify-client/grade.ts'
import { PROFILES, type Profile } from '../conformance/certify-client/profile.ts'
import { clientRules } from '../conformance/certify-client/rules/index.ts'
import { startCertification } from '../conformance/certify-client/session.ts'
import type { Situation } from '../conformance/certify-client/types.ts'
import { createServer, type MockServer } from '../mock/server.ts'

const contract = loadContract()
const NOW = '2026-11-20T12:00:00Z'
const TODAY = '2026-11-20'

interface Twin {
  mock: MockServer
  url: string
  /** One certification session around `client`, graded. */
  certify(profile: Profile, client: () => Promise<void>): Promise<ClientReport>
  advance(ms: number): void
}

async function startTwin(scale: string, now = NOW): Promise<Twin> {
  const mock = createServer({ stateOptions: { seed: 42, scale, now, today: TODAY } })
  const url = await mock.listen(0, '127.0.0.1')
  const { state } = mock
  let seed = 0
  return {
    mock,
    url,
    advance: (ms) => state.clock.advance(ms),
    async certify(profile, client) {
      // A fresh second for every session: one session's requests do not count against the next's rate.
      state.clock.advance(5_000)
      const session = await startCertification(state, profile, ++seed)
      await client()
      return gradeRecording(session.finish())
    },
  }
}

/** A GET form's query as the service reads it: `date_range[from]=…`, arrays repeated, JSON text where the contract says so. */
function queryString(op: OperationInfo, query: Record<string, unknown>): string {
  const params = new URLSearchParams()
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue
    if (op.query.find((p) => p.name === name)?.json) params.append(name, JSON.stringify(value))
    else if (Array.isArray(value)) for (const v of value) params.append(name, String(v))
    else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) params.append(`${name}[${k}]`, String(v))
    else params.append(name, String(value))
  }
  const text = params.toString()
  return text ? `?${text}` : ''
}

interface CallOptions {
  body?: Record<string, unknown>
  query?: Record<string, unknown>
  apiKey?: string
}

/**
 * A client that follows the rules, making one call: the same Idempotency-Key on every attempt of a
 * write; after a 429 it waits out Retry-After; after a 409 in flight a second; after a 5xx or a dropped
 * connection 300 ms x attempt; after a 412 it reads the board again and reapplies with its
 * `updated_at`; a refreshing halo report is polled 1 s, 2 s, 4 s… later. Returns the final answer's JSON.
 */
async function callAsTheRulesSay(twin: Twin, op: OperationInfo, shopId: string, { body, query, apiKey = 'demo-key' }: CallOptions = {}): Promise<any> {
  const headers: Record<string, string> = { 'x-api-key': apiKey, 'content-type': 'application/json' }
  if (op.auth === 'key+shop') headers['x-shop-id'] = shopId
  if (op.idempotent) headers['idempotency-key'] = `single-${op.operationId}`
  const path = op.path.replace('{key}', 'single-lookup')
  let poll = 1_000
  for (let attempt = 1; attempt <= 12; attempt++) {
    let res: Response | undefined
    try {
      res = await fetch(`${twin.url}${path}${op.method === 'GET' ? queryString(op, query ?? {}) : ''}`, { method: op.method, headers, ...(op.hasBody ? { body: JSON.stringify(body ?? {}) } : {}) })
    } catch {
      res = undefined
    }
    if (!res || res.status >= 500) {
      twin.advance(300 * attempt)
      continue
    }
    const text = await res.text()
    const json = text ? JSON.parse(text) : undefined
    if (res.status === 429) {
      twin.advance(Number(res.headers.get('retry-after') ?? 1) * 1000)
      continue
    }
    if (res.status === 409 && op.idempotent) {
      twin.advance(1_000)
      continue
    }
    if (res.status === 412 && op.operationId === 'updateDashboard') {
      twin.advance(200)
      const board = await callAsTheRulesSay(twin, contract.byId.get('getDashboard')!, shopId, { body: { dashboard_id: body!.dashboard_id } })
      body = { ...body, expected_updated_at: board.data.updated_at }
      continue
    }
    const platforms = json?.data?.platforms as Record<string, { status?: string }> | undefined
    if (op.path === '/halo-effect' && platforms && Object.values(platforms).some((p) => p?.status === 'refreshing')) {
      twin.advance(poll)
      poll *= 2
      continue
    }
    twin.advance(200)
    return json
  }
  throw new Error(`${op.operationId}: no final answer after 12 attempts`)
}

/** Rules whose situation is the client's own doing (no twin situation): a single call need not exercise them. */
const OWN_SITUATION = new Set(clientRules.filter((r) => r.situations.length === 0).map((r) => r.id))

/** Every run below, for the generalisation at the end. */
const runs: Array<{ title: string; report: ClientReport }> = []

describe('certify-client: one call of one operation meets every situation its rules need', () => {
  let twin: Twin
  let shopId: string
  let ids: Record<string, unknown>
  let board: { id: string; updated_at: string }
  /** A board the delete may take (the others keep theirs). */
  let spareBoard: string
  beforeAll(async () => {
    twin = await startTwin('small')
    const { state } = twin.mock
    shopId = state.world.shops[0]!.shop_id
    // Identifiers a client would have read before: a board (with its updated_at) and sample requests.
    const list = await callAsTheRulesSay(twin, contract.byId.get('listDashboards')!, shopId)
    const first = list.data.dashboards[0]
    board = { id: first.id, updated_at: first.updated_at }
    const spare = await callAsTheRulesSay(twin, contract.byId.get('createDashboard')!, shopId, { body: { name: 'Spare board' } })
    spareBoard = spare.data.id
    const samples = await callAsTheRulesSay(twin, contract.byId.get('listSampleRequests')!, shopId, { body: { page_size: 5 } })
    ids = { dashboard_id: board.id, apply_ids: samples.data.results.map((s: { apply_id: string }) => s.apply_id).slice(0, 1) }
  }, 120_000)
  afterAll(async () => {
    await twin?.mock.close()
  })

  // The sample list's arrivals are the depth test's subject below, not this one's.
  const profile: Profile = { ...PROFILES.standard, deepListingRows: 0 }
  for (const op of contract.operations) {
    it(`${op.permission} (${op.operationId})`, async () => {
      const { body, query } = typicalRequest(contract, op, op.operationId === 'deleteDashboard' ? { ...ids, dashboard_id: spareBoard } : ids)
      // A conditional update: the board as last read.
      const input = op.operationId === 'updateDashboard' ? { ...body, expected_updated_at: board.updated_at, name: `Single call ${op.operationId}` } : body
      const report = await twin.certify(profile, async () => {
        await callAsTheRulesSay(twin, op, shopId, { body: input, query })
      })
      runs.push({ title: op.operationId, report })
      const unexercised = report.outcomes.filter((o) => o.status === 'not exercised' && (o.level === 'MUST' || !OWN_SITUATION.has(o.id)))
      expect(unexercised.map((o) => `${o.id}: ${o.reason}`)).toEqual([])
      // The client follows the rules: nothing fails (a failure here is a false alarm or a client bug).
      expect(report.outcomes.filter((o) => o.status === 'fail' && o.level === 'MUST').map((o) => `${o.id}: ${o.failures[0]?.message}`)).toEqual([])
      if (op.auth === 'key+shop') expect(report.situations['429 after a burst']).toEqual([1])
    })
  }
})

/** The rows of a listing's answer, wherever the listing puts them. */
function rowsOf(json: any): unknown[] {
  if (Array.isArray(json?.results)) return json.results
  if (Array.isArray(json?.data)) return json.data
  const data = json?.data ?? {}
  return (Object.values(data).find(Array.isArray) as unknown[] | undefined) ?? []
}

describe('certify-client: every paged listing is deeper than its depth cap, and a client paging it to the end meets the cap (certification world)', () => {
  let twin: Twin
  let shopId: string
  beforeAll(async () => {
    // At the first second of today: the fewest of today's records (ads pushed, exclusions made today) have happened yet.
    twin = await startTwin('certification', `${TODAY}T00:00:01Z`)
    shopId = twin.mock.state.world.shops[0]!.shop_id
  }, 300_000)
  afterAll(async () => {
    await twin?.mock.close()
  })

  const listings = contract.operations.filter((op) => op.paging && !op.aliasOf)
  const wide = { from: '2020-01-01', to: TODAY }
  /** A listing's typical request over the widest window it takes, so its depth is the shop's, not a month's. */
  function deepRequest(op: OperationInfo): Record<string, unknown> {
    const { body } = typicalRequest(contract, op)
    const base: Record<string, unknown> = { ...body }
    if (base.date_range) base.date_range = wide
    // The creatives' date_range is the legacy posted_date filter; their metrics window is performance_date.
    if (op.operationId === 'listAdCreatives') {
      delete base.date_range
      base.performance_date = wide
    }
    if (base.search_params && typeof base.search_params === 'object') base.search_params = { ...(base.search_params as object), date_range: wide }
    else if (op.path.startsWith('/timeseries/')) base.search_params = { date_range: wide }
    return base
  }
  const apiKeyFor = (op: OperationInfo) => (op.enterprise ? twin.mock.state.world.apiKeys.find((k) => k.tier === 'enterprise')!.key : 'demo-key')
  const capOf = (op: OperationInfo) => op.paging!.depthCap ?? 10_000

  // One request per listing (its last page within the cap): every listing, in npm test too, so a listing made shallow fails here.
  for (const op of listings) {
    it(`${op.permission}: the shop's rows go past the cap (${op.paging!.depthCap ?? 10_000})`, { timeout: 120_000 }, async () => {
      const paging = op.paging!
      const cap = capOf(op)
      const size = Math.min(paging.max, cap / 10)
      const report = await twin.certify(PROFILES.standard, async () => {
        await callAsTheRulesSay(twin, op, shopId, { body: { ...deepRequest(op), [paging.sizeParam]: size, [paging.pageParam ?? 'page_number']: cap / size }, apiKey: apiKeyFor(op) })
      })
      const depth = report.requests.filter((r) => r.operationId === op.operationId && r.listingRows !== undefined).map((r) => r.listingRows!)
      expect(depth.length).toBeGreaterThan(0)
      expect(Math.max(...depth)).toBeGreaterThan(cap)
    })
  }

  // Paged to the end: every listing in `npm run test:certification` (CERTIFICATION_LISTINGS=all); in `npm test`, one per cap and per kind of page parameter.
  const everyListing = process.env.CERTIFICATION_LISTINGS === 'all'
  const paged = listings.filter((op) => everyListing || ['listSampleRequests', 'listCrmAffiliates', 'listSocialAds', 'listAdCampaigns'].includes(op.operationId))
  for (const op of paged) {
    it(`${op.permission}: paged to the end, the cap met and respected`, { timeout: 300_000 }, async () => {
      const paging = op.paging!
      const cap = capOf(op)
      // Pages of a tenth of the cap (or the listing's maximum): the client pages, as a sync does.
      const size = Math.min(paging.max, cap / 10)
      const pageParam = paging.pageParam ?? 'page_number'
      const base = deepRequest(op)
      const report = await twin.certify(PROFILES.standard, async () => {
        for (let page = 1; page * size <= cap; page++) {
          const json = await callAsTheRulesSay(twin, op, shopId, { body: { ...base, [paging.sizeParam]: size, [pageParam]: page }, apiKey: apiKeyFor(op) })
          const rows = rowsOf(json)
          const hasMore = json?.has_more ?? json?.data?.has_more
          const total = json?.total_count ?? json?.data?.total_count
          if (rows.length < size || hasMore === false || (typeof total === 'number' && page * size >= total)) break
        }
      })
      runs.push({ title: `paging ${op.operationId}`, report })
      const outcome = report.outcomes.find((o) => o.id === 'paging.depth-cap')!
      expect([outcome.status, outcome.reason]).toEqual(['pass', undefined])
      expect(report.outcomes.filter((o) => o.status === 'fail' && o.level === 'MUST').map((o) => `${o.id}: ${o.failures[0]?.message}`)).toEqual([])
    })
  }
})

/** What shows that a run met a situation. */
const MET: Record<Situation, (report: ClientReport) => boolean> = {
  'a 429': (r) => Boolean(r.situations['429 after a burst']?.length),
  'a write fault': (r) => Object.keys(r.situations).some((s) => /^(503|500|dropped connection|slow write)/.test(s)),
  'a 409 in flight': (r) => Boolean(r.situations['409 in flight']?.length),
  'a board changed before the update': (r) => Boolean(r.situations['board changed before the update']?.length),
  'a refreshing halo report': (r) => r.requests.some((q) => q.note === 'refreshing'),
  'a listing deeper than its cap': (r) => r.requests.some((q) => q.listingRows !== undefined && q.listingRows > (contract.byId.get(q.operationId)?.paging?.depthCap ?? 10_000)),
  'an Enterprise call refused': (r) => r.requests.some((q) => contract.byId.get(q.operationId)?.enterprise && q.status === 403),
}

describe('certify-client: every rule\'s situations are produced', () => {
  for (const rule of clientRules) {
    it(`${rule.id}: ${rule.situations.length ? rule.situations.join(', ') : 'the client\'s own requests'}: met and the rule exercised`, () => {
      expect(runs.length).toBeGreaterThan(0)
      for (const situation of rule.situations) {
        const met = runs.filter(({ report }) => MET[situation](report))
        expect(met.length, `no run met ${situation}`).toBeGreaterThan(0)
        // Wherever the situation was met and the rule applies, the rule was exercised.
        for (const { title, report } of met) {
          const outcome = report.outcomes.find((o) => o.id === rule.id)!
          if (outcome.status !== 'not applicable') expect([title, outcome.status]).not.toEqual([title, 'not exercised'])
        }
      }
      // Every rule is exercised by some run of a client that follows the rules.
      expect(runs.some(({ report }) => report.outcomes.find((o) => o.id === rule.id)?.status === 'pass'), `${rule.id} exercised by no run`).toBe(true)
    })
  }
})
