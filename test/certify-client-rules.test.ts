/**
 * The client rules on hand-made recordings, at their boundaries (spec: Limits, Idempotency, Errors,
 * States and transitions: Halo), and the dropped connection on the in-process (MSW) path.
 */
import { setupServer } from 'msw/node'
import { describe, expect, it } from 'vitest'
import { gradeRecording, gradingSteps } from '../conformance/certify-client/grade.ts'
import { withEveryFinding } from '../conformance/certify-client/support.ts'
import { PROFILES } from '../conformance/certify-client/profile.ts'
import { clientRules } from '../conformance/certify-client/rules/index.ts'
import type { Recording } from '../conformance/certify-client/session.ts'
import { createHandlers, createMockState } from '../mock/index.ts'
import { attachCertification, type Adversity, type RecordedRequest } from '../mock/pipeline/certification.ts'

const SHOP = 'ab0153b5-18eb-4860-80c5-d9f2b540b71e'
const T0 = Date.parse('2026-11-20T12:00:00Z')

/** A recorded request with the usual defaults (a paced, keyed, successful product read). */
function req(seq: number, atMs: number, over: Partial<RecordedRequest> = {}): RecordedRequest {
  return { seq, atMs: T0 + atMs, method: 'POST', path: '/shop/products', query: '', operationId: 'listShopProducts', shopId: SHOP, keyId: 'key-00000000', contentType: 'application/json', idempotencyKey: null, bodyText: '{}', status: 200, retryAfter: null, applied: false, replayed: false, ...over }
}

function grade(ruleId: string, requests: RecordedRequest[]) {
  const recording: Recording = { profile: PROFILES.standard, seed: 1, startedAt: new Date(T0).toISOString(), keys: {}, requests }
  return gradeRecording(recording, { rules: clientRules.filter((r) => r.id === ruleId) }).outcomes[0]!.status
}

const write = (seq: number, at: number, over: Partial<RecordedRequest> = {}) => req(seq, at, { path: '/automations/create', operationId: 'createAutomation', bodyText: '{"title":"a"}', idempotencyKey: 'k-1', status: 201, applied: true, ...over })
const halo = (seq: number, at: number, note: string) => req(seq, at, { path: '/halo-effect', operationId: 'getHaloReport', bodyText: '{"date_range":{"from":"2026-10-01","to":"2026-10-30"}}', note })
/** A sample list page; `rows`: the listing's depth as the twin recorded it (1,100: deeper than its 1,000 cap). */
const samples = (seq: number, page: number, size = 100, rows = 1_100) => req(seq, seq * 200, { path: '/affiliate/samples/list', operationId: 'listSampleRequests', bodyText: JSON.stringify({ page_number: page, page_size: size }), listingRows: rows })

describe('client rules at their boundaries', () => {
  it.each([
    ['ratelimit.pace: 10 requests 100 ms apart', 'ratelimit.pace', Array.from({ length: 10 }, (_, i) => req(i + 1, i * 100)), 'pass'],
    ['ratelimit.pace: 11 requests within 1 s', 'ratelimit.pace', Array.from({ length: 11 }, (_, i) => req(i + 1, i * 99)), 'fail'],
    ['ratelimit.pace: 20 requests 90 ms apart (12 in a second)', 'ratelimit.pace', Array.from({ length: 20 }, (_, i) => req(i + 1, i * 90)), 'fail'],
    ['ratelimit.retry-after: the next request exactly when Retry-After has passed', 'ratelimit.retry-after', [req(1, 0, { status: 429, retryAfter: 2 }), req(2, 2000)], 'pass'],
    ['ratelimit.retry-after: 1 ms early', 'ratelimit.retry-after', [req(1, 0, { status: 429, retryAfter: 2 }), req(2, 1999)], 'fail'],
    ['ratelimit.retry-after: another shop may go on', 'ratelimit.retry-after', [req(1, 0, { status: 429, retryAfter: 2 }), req(2, 10, { shopId: '51c46e81-fe9e-47b4-b90e-040292e04083' })], 'pass'],
    ['ratelimit.retry-after: no 429', 'ratelimit.retry-after', [req(1, 0)], 'not exercised'],
    ['idempotency.conflict-retry-later: same key 1 s later', 'idempotency.conflict-retry-later', [write(1, 0, { status: 409, applied: false }), write(2, 1000)], 'pass'],
    ['idempotency.conflict-retry-later: same key 999 ms later', 'idempotency.conflict-retry-later', [write(1, 0, { status: 409, applied: false }), write(2, 999)], 'fail'],
    ['idempotency.conflict-retry-later: never retried (the same-key rule\'s finding)', 'idempotency.conflict-retry-later', [write(1, 0, { status: 409, applied: false })], 'not exercised'],
    ['idempotency.conflict-retry-same-key: same key 300 ms later (the wait is the inferred rule\'s)', 'idempotency.conflict-retry-same-key', [write(1, 0, { status: 409, applied: false }), write(2, 300)], 'pass'],
    ['idempotency.conflict-retry-same-key: never retried', 'idempotency.conflict-retry-same-key', [write(1, 0, { status: 409, applied: false })], 'fail'],
    ['idempotency.conflict-retry-same-key: another key', 'idempotency.conflict-retry-same-key', [write(1, 0, { status: 409, applied: false }), write(2, 2000, { idempotencyKey: 'k-2' })], 'fail'],
    ['idempotency.conflict-retry-same-key: no keyed write', 'idempotency.conflict-retry-same-key', [req(1, 0)], 'not applicable'],
    ['ratelimit.retry-429: retried 1 ms later', 'ratelimit.retry-429', [req(1, 0, { status: 429, retryAfter: 1 }), req(2, 1)], 'pass'],
    ['ratelimit.retry-429: retried at once', 'ratelimit.retry-429', [req(1, 0, { status: 429, retryAfter: 1 }), req(2, 0)], 'fail'],
    ['ratelimit.retry-429: another request, the refused one never again', 'ratelimit.retry-429', [req(1, 0, { status: 429, retryAfter: 1 }), req(2, 1000, { bodyText: '{"sort_by":"price"}' })], 'fail'],
    ['dashboards.reread-after-412: no update with expected_updated_at', 'dashboards.reread-after-412', [req(1, 0, { path: '/dashboards/update', operationId: 'updateDashboard', bodyText: '{"dashboard_id":"d","name":"x"}' })], 'not applicable'],
    ['idempotency.retry-same-key: a 503 retried with its key', 'idempotency.retry-same-key', [write(1, 0, { status: 503, applied: false }), write(2, 500)], 'pass'],
    ['idempotency.retry-same-key: a drop retried without a key', 'idempotency.retry-same-key', [write(1, 0, { status: 0, idempotencyKey: null }), write(2, 500, { idempotencyKey: null })], 'fail'],
    ['idempotency.retry-same-key: a slow write waited out', 'idempotency.retry-same-key', [write(1, 0, { injected: 'slow write (applied late)' })], 'not exercised'],
    ['idempotency.retry-same-key: a slow write timed out and retried with its key (409 in flight)', 'idempotency.retry-same-key', [write(2, 0, { injected: 'slow write (applied late)' }), write(3, 100, { status: 409, applied: false })], 'pass'],
    ['idempotency.retry-same-key: a slow write timed out and retried with a new key (two effects)', 'idempotency.retry-same-key', [write(2, 0, { injected: 'slow write (applied late)' }), write(3, 100, { idempotencyKey: 'k-2' })], 'fail'],
    ['idempotency.key-format: 128 characters', 'idempotency.key-format', [write(1, 0, { idempotencyKey: 'a'.repeat(128) })], 'pass'],
    ['idempotency.key-format: 129 characters', 'idempotency.key-format', [write(1, 0, { idempotencyKey: 'a'.repeat(129) })], 'fail'],
    ['paging.depth-cap: page 10 x 100 on the sample list', 'paging.depth-cap', [samples(1, 10)], 'pass'],
    ['paging.depth-cap: page 11 x 100 on the sample list', 'paging.depth-cap', [samples(1, 11)], 'fail'],
    ['paging.depth-cap: page 11 x 100 on a sample list of 60 rows (past the cap all the same)', 'paging.depth-cap', [samples(1, 11, 100, 60)], 'fail'],
    ['paging.depth-cap: pages 1-2 of a sample list of 150 rows (no cap to meet)', 'paging.depth-cap', [samples(1, 1, 100, 150), samples(2, 2, 100, 150)], 'not exercised'],
    ['paging.depth-cap: the first page only (a client that does not page)', 'paging.depth-cap', [samples(1, 1)], 'not applicable'],
    ['paging.depth-cap: page 2 of a sample list deeper than its cap', 'paging.depth-cap', [samples(1, 2)], 'pass'],
    ['paging.page-size-max: 100 on the sample list', 'paging.page-size-max', [samples(1, 1, 100)], 'pass'],
    ['paging.page-size-max: 101 on the sample list', 'paging.page-size-max', [samples(1, 1, 101)], 'fail'],
    ['halo.poll-backoff: 1 s then 2 s', 'halo.poll-backoff', [halo(1, 0, 'refreshing'), halo(2, 1000, 'refreshing'), halo(3, 3000, 'ok')], 'pass'],
    ['halo.poll-backoff: every second, three times', 'halo.poll-backoff', [halo(1, 0, 'refreshing'), halo(2, 1000, 'refreshing'), halo(3, 2000, 'refreshing'), halo(4, 3000, 'ok')], 'fail'],
    ['halo.poll-backoff: 500 ms', 'halo.poll-backoff', [halo(1, 0, 'refreshing'), halo(2, 500, 'ok')], 'fail'],
    ['headers.every-call: GET /account/shops without x-shop-id', 'headers.every-call', [req(1, 0, { method: 'GET', path: '/account/shops', operationId: 'listAccountShops', shopId: null, bodyText: '', contentType: null })], 'pass'],
    ['headers.every-call: a shop call without x-shop-id', 'headers.every-call', [req(1, 0, { shopId: null })], 'fail'],
    ['limits.scoped-reads: the sample list scanned whole once, then narrowed', 'limits.scoped-reads', [samples(1, 1), samples(2, 2), req(3, 900, { path: '/affiliate/samples/list', operationId: 'listSampleRequests', bodyText: '{"page_number":1,"page_size":100,"filters":{"handle":"ann"}}' }), req(4, 1000, { path: '/affiliate/samples/list', operationId: 'listSampleRequests', bodyText: '{"page_number":2,"page_size":100,"filters":{"handle":"ann"}}' })], 'pass'],
  ])('%s', (_title, ruleId, requests, expected) => {
    expect(grade(ruleId, requests)).toBe(expected)
  })

  it('ratelimit.pace names the worst one-second window of a key and shop, once: its requests in order', () => {
    // Bursts of 11, 15 and 12 requests 10 ms apart, 2 s between bursts: the 15 are the worst window.
    let seq = 0
    const requests = [11, 15, 12].flatMap((n, burst) => Array.from({ length: n }, (_, i) => req(++seq, burst * 2000 + i * 10)))
    const recording: Recording = { profile: PROFILES.standard, seed: 1, startedAt: new Date(T0).toISOString(), keys: {}, requests }
    const outcome = gradeRecording(recording, { rules: clientRules.filter((r) => r.id === 'ratelimit.pace') }).outcomes[0]!
    expect(outcome.failures.map((f) => f.requests)).toEqual([Array.from({ length: 15 }, (_, i) => 12 + i)])
    expect(outcome.failures[0]!.message).toMatch(/^15 requests within 140 ms/)
  })

  it('contract.request-bodies: a repeated body gets its verdict again, a body one byte off is validated anew (the verdict memo is exact)', () => {
    // "pricf" is one byte off "price": outside the sort_by enum. Repeats, alternations, and the two again in a second grading.
    const bodies = ['price', 'price', 'pricf', 'pricf', 'price', 'pricf', 'price', 'price'].map((sort, i) => req(i + 1, i * 200, { bodyText: `{"sort_by":"${sort}"}` }))
    const failed = () => {
      const recording: Recording = { profile: PROFILES.standard, seed: 1, startedAt: new Date(T0).toISOString(), keys: {}, requests: bodies }
      return gradeRecording(recording, { rules: clientRules.filter((r) => r.id === 'contract.request-bodies') }).outcomes[0]!.failures.flatMap((f) => f.requests)
    }
    expect(failed()).toEqual([3, 4, 6])
    expect(failed()).toEqual([3, 4, 6])
  })

  it('graded in steps (gradingSteps, the proxy\'s windows): every request is read, across the steps that read them', () => {
    // 1,001 requests (the steps read 250 at a time), every 7th body one byte off: each must be found.
    const requests = Array.from({ length: 1_001 }, (_, i) => req(i + 1, i * 200, { bodyText: `{"sort_by":"${i % 7 === 0 ? 'pricf' : 'price'}"}` }))
    const recording: Recording = { profile: PROFILES.standard, seed: 1, startedAt: new Date(T0).toISOString(), keys: {}, requests }
    const steps = withEveryFinding(() => {
      const run = gradingSteps(recording)
      let yields = 0
      for (let step = run.next(); ; step = run.next(), yields++) if (step.done) return { report: step.value, yields }
    })
    // Each 250 read, then the rules' per-request work on them (ClientRule.prepare: the request bodies' verdicts), then one rule per step.
    expect(steps.yields).toBe(2 * Math.ceil(1_001 / 250) + clientRules.length)
    const bodies = steps.report.outcomes.find((o) => o.id === 'contract.request-bodies')!
    expect(bodies.failures.flatMap((f) => f.requests)).toEqual(requests.filter((_, i) => i % 7 === 0).map((r) => r.seq))
    expect(steps.report.summary.requests).toBe(1_001)
  })
})

/**
 * A mock in process behind MSW whose first automation create meets `adversity`; `send(key)` creates
 * an automation with that Idempotency-Key. `recorded` resolves `settled(n)` once n requests are recorded.
 */
async function inProcess(adversity: Adversity, run: (t: { send(key: string, signal?: AbortSignal): Promise<Response>; recorded: RecordedRequest[]; settled(n: number): Promise<void> }) => Promise<void>): Promise<void> {
  const state = createMockState({ seed: 42, scale: 'small', now: '2026-11-20T12:00:00Z', today: '2026-11-20' })
  const server = setupServer(...createHandlers(state, { baseUrl: 'https://api.example.com' }))
  server.listen()
  const recorded: RecordedRequest[] = []
  const waiting: Array<{ n: number; resolve: () => void }> = []
  let first = true
  const detach = attachCertification(state, {
    adversity: (_r, op) => (op.operationId === 'createAutomation' && first ? ((first = false), adversity) : undefined),
    record: (e) => {
      recorded.push(e)
      for (const w of waiting) if (recorded.length >= w.n) w.resolve()
    },
    keyId: () => 'key-test',
  })
  const send = (key: string, signal?: AbortSignal) =>
    fetch('https://api.example.com/automations/create', { method: 'POST', signal, headers: { 'x-api-key': 'demo-key', 'x-shop-id': state.world.shops[0]!.shop_id, 'content-type': 'application/json', 'idempotency-key': key }, body: JSON.stringify({ title: key, message_type: 'dm', outreach_audience: 'new_affiliates' }) })
  const settled = (n: number) => new Promise<void>((resolve) => (recorded.length >= n ? resolve() : waiting.push({ n, resolve })))
  try {
    await run({ send, recorded, settled })
  } finally {
    detach()
    server.close()
  }
}

describe('adversity in process (MSW)', () => {
  it('a slow write: a client that times out and retries with the same key meets it in flight or its replay, never a second effect', async () => {
    await inProcess({ kind: 'slow', situation: 'slow write (applied late)', ms: 200 }, async ({ send, recorded, settled }) => {
      // The client's timeout (5 ms) always fires before the twin's 200 ms hold ends.
      await expect(send('slow-1', AbortSignal.timeout(5))).rejects.toThrow()
      const retry = await send('slow-1')
      expect([409, 201]).toContain(retry.status)
      // The held attempt finishes on its own (its client is gone): its entry comes when it does.
      await settled(2)
      expect(recorded.filter((e) => e.applied)).toHaveLength(1)
      expect(recorded.find((e) => e.injected)).toMatchObject({ idempotencyKey: 'slow-1', applied: true })
    })
  })

  it('a write dropped after it acted rejects the fetch, is recorded as acted with no answer, and its key replays', async () => {
    await inProcess({ kind: 'drop', situation: 'dropped connection (applied)', apply: true }, async ({ send, recorded }) => {
      await expect(send('drop-1')).rejects.toThrow()
      expect(recorded).toMatchObject([{ operationId: 'createAutomation', status: 0, applied: true, injected: 'dropped connection (applied)', idempotencyKey: 'drop-1', keyId: 'key-test' }])
      const replay = await send('drop-1')
      expect(replay.status).toBe(201)
      expect(replay.headers.get('idempotent-replayed')).toBe('true')
    })
  })
})
