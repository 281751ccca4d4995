/**
 * Traces over the standalone server (mock/trace): the ring buffer's bound, `trace: false` (serve
 * --trace off), the trace of a request no operation matched, reset. In-process decisions are in
 * test/trace.test.ts.
 */
import { describe, expect, it } from 'vitest'
import { createMockState, createServer, formatTrace, type Trace, type TraceDecision } from '../mock/index.ts'

const headers = (shopId: string) => ({ 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shopId })

function decision(trace: Trace | undefined, step: TraceDecision['step'], outcome: string): TraceDecision {
  const found = trace?.decisions.find((d) => d.step === step && d.outcome === outcome)
  expect(found, formatTrace(trace)).toBeDefined()
  return found!
}

describe('traces: bounded, switchable, over HTTP', () => {
  it('a ring buffer: the oldest traces leave, the newest stay', async () => {
    const small = createMockState({ seed: 7, now: '2026-06-01T09:00:00.000Z', rateLimit: false, trace: { size: 3 } })
    const mock = createServer({ state: small })
    const base = await mock.listen(0, '127.0.0.1')
    try {
      const ids: string[] = []
      for (let i = 0; i < 5; i++) ids.push((await fetch(`${base}/health`)).headers.get('x-shoptwin-trace')!)
      expect(small.traces.size).toBe(3)
      expect(small.traces.get(ids[0]!)).toBeUndefined()
      expect(small.traces.list().map((t) => t.id)).toEqual(ids.slice(2))
    } finally {
      await mock.close()
    }
  })

  it('off: no header and no trace, the answer unchanged', async () => {
    const off = createMockState({ seed: 7, now: '2026-06-01T09:00:00.000Z', trace: false })
    const on = createMockState({ seed: 7, now: '2026-06-01T09:00:00.000Z' })
    const answers: Array<{ header: string | null; body: string }> = []
    for (const s of [off, on]) {
      const mock = createServer({ state: s })
      const base = await mock.listen(0, '127.0.0.1')
      const res = await fetch(`${base}/shop/sps`, { headers: headers(s.world.shops[0]!.shop_id) })
      answers.push({ header: res.headers.get('x-shoptwin-trace'), body: await res.text() })
      await mock.close()
    }
    expect(answers[0]!.header).toBeNull()
    expect(off.traces.size).toBe(0)
    expect(answers[1]!.header).toMatch(/^\d+$/)
    expect(answers[0]!.body).toBe(answers[1]!.body)
  })

  it('operation: none, and why: the methods the path is served for, or the paths near it', async () => {
    const mock = createServer({ stateOptions: { seed: 7, now: '2026-06-01T09:00:00.000Z' } })
    const base = await mock.listen(0, '127.0.0.1')
    try {
      const wrongMethod = await fetch(`${base}/lists/create`, { method: 'DELETE', headers: headers(mock.state.world.shops[0]!.shop_id) })
      // issue 24: a documented path called with another method is a 405 (with Allow); its trace says why.
      expect(wrongMethod.status).toBe(405)
      const d1 = decision(mock.state.traces.explain(wrongMethod), 'operation', 'none')
      expect(d1.summary).toBe('/lists/create is served for POST only, not DELETE')
      const unknown = await fetch(`${base}/lists/nothing`)
      const d2 = decision(mock.state.traces.explain(unknown), 'operation', 'none')
      expect(d2.summary).toMatch(/no operation of the contract has the path \/lists\/nothing \(under \/lists: \d+ operations\)/)
      // The control API is not an exchange of the twin: it carries no trace.
      expect((await fetch(`${base}/__admin/clock`)).headers.get('x-shoptwin-trace')).toBeNull()
    } finally {
      await mock.close()
    }
  })

  it('reset empties the traces, like the journal', async () => {
    const s = createMockState({ seed: 7, now: '2026-06-01T09:00:00.000Z' })
    const mock = createServer({ state: s })
    const base = await mock.listen(0, '127.0.0.1')
    await fetch(`${base}/health`)
    expect(s.traces.size).toBe(1)
    s.reset()
    expect(s.traces.size).toBe(0)
    await mock.close()
  })
})
