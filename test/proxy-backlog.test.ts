/**
 * Grading off the request's path (proxy/backlog.ts): while a request is in flight at the proxy, the
 * answered exchanges wait; past the bound, the oldest is graded at once; at stop every one is graded.
 * The proof: the same traffic, graded at once (a backlog of 0), all kept waiting until the stop, and
 * with a bound of 3, gives the same report, rule by rule, on both sides. An exchange that went
 * ungraded would change a count. One request is held in flight for the whole traffic (its body never
 * ends), so the proxy is never idle.
 */
import { connect, createServer as createNetServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { describe, expect, it, vi } from 'vitest'
import { createServer } from '../mock/server.ts'
import { startProxy, type ProxyReport } from '../proxy/index.ts'
import { createBacklog, LIVE_MS, QUIET_MS } from '../proxy/backlog.ts'
import type { ProxyExchange } from '../proxy/exchange.ts'

/** The mock behind a TCP pipe that says when a request marked `x-hold` reached it. */
async function upstreamWithSpy() {
  const mock = createServer({ stateOptions: { seed: 42, scale: 'small', now: '2026-11-20T12:00:00Z', today: '2026-11-20', rateLimit: false } })
  const mockUrl = new URL(await mock.listen(0, '127.0.0.1'))
  let held!: () => void
  const heldReached = new Promise<void>((resolve) => (held = resolve))
  const sockets = new Set<Socket>()
  const spy: Server = createNetServer((client) => {
    const server = connect(Number(mockUrl.port), '127.0.0.1')
    sockets.add(client).add(server)
    client.on('data', (chunk: Buffer) => {
      if (chunk.includes('x-hold: 1')) held()
    })
    client.pipe(server).pipe(client)
    client.on('error', () => server.destroy())
    server.on('error', () => client.destroy())
  })
  await new Promise<void>((done) => spy.listen(0, '127.0.0.1', done))
  return {
    url: `http://127.0.0.1:${(spy.address() as AddressInfo).port}`,
    shopId: mock.state.world.shops[0]!.shop_id,
    heldReached,
    async close() {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((done) => spy.close(() => done()))
      await mock.close()
    },
  }
}

/** The traffic: reads, errors, a repeated read, a keyed write and its replay, a path the contract lacks. */
function traffic(shopId: string): Array<[string, RequestInit]> {
  const headers = { 'x-api-key': 'demo-key', 'x-shop-id': shopId, 'content-type': 'application/json' }
  const write = { method: 'POST', headers: { ...headers, 'idempotency-key': 'backlog-key-1' }, body: JSON.stringify({ name: 'backlog group' }) }
  return [
    ['/health', {}],
    ['/account/shops', { headers: { 'x-api-key': 'demo-key' } }],
    ['/shop/stats', { method: 'POST', headers, body: JSON.stringify({ date_range: { from: '2026-10-01', to: '2026-10-31' }, stats: ['total_gmv'], include_charts: false }) }],
    ['/shop/stats', { method: 'POST', headers, body: JSON.stringify({ stats: ['total_gmv'] }) }],
    ['/affiliate/crm/list', { method: 'POST', headers, body: JSON.stringify({ page_size: 3 }) }],
    ['/affiliate/crm/list', { method: 'POST', headers, body: JSON.stringify({ page_size: 3 }) }],
    ['/affiliate/crm/list', { method: 'POST', headers, body: JSON.stringify({ page_size: 100000 }) }],
    ['/groups/create', write],
    ['/groups/create', write],
    ['/ads/campaigns', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' }],
    ['/nowhere', { headers }],
  ]
}

/** Runs the traffic through a proxy with this backlog while one request is held; the report and how many were graded before the stop. */
async function run(gradingBacklog: number): Promise<{ report: ProxyReport; gradedBefore: number; waiting: number; midway: number }> {
  const upstream = await upstreamWithSpy()
  let graded = 0
  const proxy = await startProxy({ upstream: upstream.url, gradingBacklog, now: () => Date.parse('2026-11-20T12:00:00Z'), onExchange: () => graded++ })
  const { port } = new URL(proxy.url)
  const holder = connect(Number(port), '127.0.0.1')
  holder.on('error', () => undefined)
  holder.write('POST /shop/stats HTTP/1.1\r\nHost: h\r\nx-hold: 1\r\ncontent-type: application/json\r\nContent-Length: 1000\r\n\r\n{"stats"')
  try {
    await upstream.heldReached
    for (const [path, init] of traffic(upstream.shopId)) await fetch(`${proxy.url}${path}`, init).then((r) => r.text())
    const gradedBefore = graded
    const waiting = proxy.waiting()
    // A report asked for while the proxy runs grades what waits first.
    const midway = proxy.report().exchanges
    // The client gives up on its held request: the proxy is idle, the stop grades the rest.
    holder.destroy()
    const report = await proxy.stop()
    expect(graded).toBe(report.exchanges)
    return { report, gradedBefore, waiting, midway }
  } finally {
    holder.destroy()
    await proxy.stop()
    await upstream.close()
  }
}

/** What the report says, rule by rule, without times. */
function verdicts(report: ProxyReport) {
  return {
    exchanges: report.exchanges,
    upstreamFailures: report.upstreamFailures,
    situations: report.situations,
    server: report.server.outcomes.map((o) => ({ id: o.id, status: o.status, reason: o.reason, failures: o.failures.map((f) => f.message), warnings: o.warnings.map((f) => f.message), evidence: o.exchanges.map((x) => x.seq) })),
    client: report.client.outcomes.map((o) => ({ id: o.id, status: o.status, failures: o.failures.map((f) => [f.message, f.requests]) })),
    requests: report.client.requests.map((r) => [r.seq, r.operationId, r.status, r.applied, r.replayed]),
    exitCode: report.exitCode,
  }
}

describe('proxy: grading off the request\'s path', () => {
  it('graded at once, kept waiting until the stop, or past a bound of 3: the same report, every exchange graded', { timeout: 60_000 }, async () => {
    const inline = await run(0)
    const deferred = await run(1000)
    const bounded = await run(3)
    const requests = traffic('').length
    // Each exchange of the traffic is graded as it ends, waits for the stop, or waits behind at most 3.
    expect(inline).toMatchObject({ gradedBefore: requests, waiting: 0, midway: requests })
    expect(deferred).toMatchObject({ gradedBefore: 0, waiting: requests, midway: requests })
    expect(bounded).toMatchObject({ gradedBefore: requests - 3, waiting: 3, midway: requests })
    expect(inline.report.exchanges).toBe(requests + 1)
    expect(verdicts(deferred.report)).toEqual(verdicts(inline.report))
    expect(verdicts(bounded.report)).toEqual(verdicts(inline.report))
    // The traffic exercised rules on both sides (the comparison is not of empty reports).
    expect(inline.report.server.outcomes.filter((o) => o.status !== 'skip').length).toBeGreaterThan(5)
    expect(inline.report.client.requests.length).toBe(requests)
  })
})

describe('proxy: the backlog grades in a quiet spell', () => {
  const exchange = (seq: number) => ({ seq, requestBody: '', operationId: 'getHealth', upstream: undefined }) as unknown as ProxyExchange

  it('nothing while requests keep coming, even one at a time; everything, in order, once none came for QUIET_MS; a request during grading stops it until the next spell', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] })
    try {
      let inFlight = 0
      const graded: number[] = []
      let work = 3
      const worked: number[] = []
      const backlog = createBacklog({
        grade: (x) => {
          graded.push(x.seq)
          // A request arrives while exchange 4 is graded.
          if (x.seq === 4) inFlight++
        },
        // Work left over from graded exchanges (a client window), one unit per call.
        work: (until) => {
          if (work && until > 0) worked.push(work--)
          return work > 0
        },
        busy: () => inFlight > 0,
      })
      /** A sequential client's request: in flight, answered, recorded; then the proxy is idle. */
      const request = (seq: number) => {
        inFlight++
        inFlight--
        backlog.add(exchange(seq))
        backlog.idle()
      }
      for (let seq = 1; seq <= 3; seq++) {
        request(seq)
        vi.advanceTimersByTime(QUIET_MS - 1)
      }
      expect(graded).toEqual([])
      expect(backlog.waiting).toBe(3)
      request(4)
      request(5)
      vi.advanceTimersByTime(QUIET_MS - 1)
      expect(graded).toEqual([])
      // (+ 2: the fake setImmediate the spell schedules runs a tick later.)
      vi.advanceTimersByTime(2)
      // Graded oldest first; the request that came during exchange 4 stops the grading.
      expect(graded).toEqual([1, 2, 3, 4])
      vi.advanceTimersByTime(10 * QUIET_MS)
      expect(graded).toEqual([1, 2, 3, 4])
      // That request answered: the next quiet spell grades the rest, then the left-over work.
      inFlight--
      backlog.idle()
      vi.advanceTimersByTime(QUIET_MS - 1)
      expect(graded).toEqual([1, 2, 3, 4])
      vi.advanceTimersByTime(2)
      vi.runAllTimers()
      expect(graded).toEqual([1, 2, 3, 4, 5])
      expect(worked).toEqual([3, 2, 1])
      expect(backlog.waiting).toBe(0)
    } finally {
      vi.useRealTimers()
    }
  })

  it('with live lines (liveMs), traffic that never pauses is graded within liveMs, oldest first, and the work it leaves done, in slices between requests; without, it waits', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] })
    try {
      for (const liveMs of [LIVE_MS, undefined]) {
        const graded: number[] = []
        // Work left by graded exchanges (a client window closed), one unit per call.
        let work = 3
        const worked: number[] = []
        // A request is always in flight: no quiet spell ever comes.
        const backlog = createBacklog({ grade: (x) => void graded.push(x.seq), work: (until) => (work && until > 0 && worked.push(work--), work > 0), busy: () => true, liveMs })
        let seq = 0
        /** 10 ms of traffic: an exchange answered every millisecond. */
        const traffic = (ms: number) => {
          for (let i = 0; i < ms; i++) {
            backlog.add(exchange(++seq))
            vi.advanceTimersByTime(1)
          }
        }
        traffic(LIVE_MS - 1)
        expect(graded).toEqual([])
        traffic(2)
        if (liveMs === undefined) {
          traffic(10 * LIVE_MS)
          expect(graded).toEqual([])
          expect(worked).toEqual([])
          expect(backlog.waiting).toBe(seq)
          continue
        }
        // The tick at LIVE_MS: what waited then is graded (the slices run between the exchanges that keep coming).
        expect(graded).toEqual(Array.from({ length: LIVE_MS }, (_, i) => i + 1))
        traffic(3 * LIVE_MS)
        // The work they left ran in the same slices, not in a quiet spell that never comes.
        expect(worked).toEqual([3, 2, 1])
        // Never more than about liveMs behind: the oldest waiting came at most LIVE_MS + 1 ms ago.
        expect(seq - backlog.waiting).toBe(graded.length)
        expect(backlog.waiting).toBeLessThanOrEqual(LIVE_MS + 1)
        expect(graded).toEqual(Array.from({ length: graded.length }, (_, i) => i + 1))
        backlog.flush()
        expect(graded.length).toBe(seq)
      }
    } finally {
      vi.useRealTimers()
    }
  })

  it('past the bound, under traffic that never pauses, the oldest is graded as each exchange comes and the work it leaves runs in slices beside it', () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setImmediate', 'clearImmediate'] })
    try {
      const graded: number[] = []
      let work = 3
      const worked: number[] = []
      const backlog = createBacklog({ grade: (x) => void graded.push(x.seq), work: (until) => (work && until > 0 && worked.push(work--), work > 0), busy: () => true, maxWaiting: 3 })
      for (let seq = 1; seq <= 10; seq++) backlog.add(exchange(seq))
      expect(graded).toEqual([1, 2, 3, 4, 5, 6, 7])
      expect(worked).toEqual([])
      vi.advanceTimersByTime(5)
      expect(worked).toEqual([3, 2, 1])
      expect(backlog.waiting).toBe(3)
    } finally {
      vi.useRealTimers()
    }
  })
})
