/**
 * What the proxy saves on a repeated answer is exact, never a sample (proxy/server.ts Capture: an
 * answer equal to the last one of its operation and status is compared as it streams and recorded as
 * that one; proxy/grade.ts and judges/contract.ts: its parse and its schema verdict are reused). An
 * upstream answers the same read again and again, large (over the proxy's 256 KB read, written in
 * pieces), some answers one byte off the others: the client gets every answer byte for byte, and the
 * contract's findings name exactly the exchanges whose answer was wrong. 127.0.0.1, port 0.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, expect, it } from 'vitest'
import { startProxy, type RunningProxy } from '../proxy/index.ts'

const PAD = ' '.repeat(300_000)
/** JSON whitespace pads the answer past one read; the SPS (0-5 in the contract) and the last byte vary. */
const valid = Buffer.from(`{"data": {"sps": 4.2${PAD}}}`)
const oneByteOff = {
  // 4.2 → 5.2: over the documented maximum (near the start).
  outOfRange: Buffer.from(`{"data": {"sps": 5.2${PAD}}}`),
  // The last byte: no longer JSON.
  truncatedJson: Buffer.from(`{"data": {"sps": 4.2${PAD}} `),
  // A space turned newline, at the very end of the padding: still valid (another answer, no finding).
  otherValid: Buffer.from(`{"data": {"sps": 4.2${PAD.slice(1)}\n}}`),
}
const sequence = [valid, valid, oneByteOff.outOfRange, valid, oneByteOff.truncatedJson, valid, valid, oneByteOff.otherValid, oneByteOff.otherValid, valid, oneByteOff.outOfRange, oneByteOff.outOfRange, valid]

/** Creative rows whose roi is gross_revenue ÷ ad_spend (2), or one byte off it (3). */
const creatives = (roi: number) => Buffer.from(JSON.stringify({ data: { results: Array.from({ length: 2000 }, (_, i) => ({ creative_id: `c-${i}`, ad_spend: 5, gross_revenue: 10, orders: 2, roi: i === 1999 ? roi : 2, cpa: 2.5, cost_per_order: 2.5 })) } }))
const rightRatios = creatives(2)
const wrongRatio = creatives(3)
const creativeSequence = [rightRatios, rightRatios, wrongRatio, wrongRatio, rightRatios, wrongRatio, rightRatios]

let upstream: Server
let proxy: RunningProxy
const served = new Map<string, number>()

beforeAll(async () => {
  upstream = createServer((req, res) => {
    const n = served.get(req.url!) ?? 0
    served.set(req.url!, n + 1)
    const answer = (req.url === '/ads/creatives' ? creativeSequence : sequence)[n]!
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': String(answer.length) })
    // In pieces, a turn apart: the proxy compares read by read.
    let at = 0
    const next = () => {
      if (at >= answer.length) return void res.end()
      res.write(answer.subarray(at, (at += 70_000)))
      setImmediate(next)
    }
    req.resume().on('end', next)
  })
  await new Promise<void>((done) => upstream.listen(0, '127.0.0.1', done))
  proxy = await startProxy({ upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}` })
})

afterAll(async () => {
  await proxy.stop()
  await new Promise((done) => upstream.close(done))
})

it('a repeated answer and answers one byte off it: each reaches the client byte for byte, and the findings name exactly the wrong ones', async () => {
  const headers = { 'x-api-key': 'k-123', 'x-shop-id': 'shop-1', 'content-type': 'application/json' }
  for (const expected of sequence) {
    const reply = await fetch(`${proxy.url}/shop/sps`, { headers })
    expect(Buffer.from(await reply.arrayBuffer()).equals(expected)).toBe(true)
  }
  for (const expected of creativeSequence) {
    const reply = await fetch(`${proxy.url}/ads/creatives`, { method: 'POST', headers, body: '{"page_size": 100}' })
    expect(Buffer.from(await reply.arrayBuffer()).equals(expected)).toBe(true)
  }
  const report = await proxy.stop()
  const failures = (rule: string, message = /./) => report.server.outcomes.find((o) => o.id === rule)!.failures.filter((f) => message.test(f.message)).map((f) => f.exchange!.seq)
  const at = (answer: Buffer, list = sequence, from = 1) => list.flatMap((a, i) => (a === answer ? [i + from] : []))
  // The contract's schema verdict (judges/contract.ts) and the parse (grade.ts), reused on a repeat only.
  expect(failures('contract.responses-valid', /must be <= 5/)).toEqual(at(oneByteOff.outOfRange))
  expect(failures('contract.responses-valid', /not valid JSON/)).toEqual(at(oneByteOff.truncatedJson))
  expect(failures('contract.responses-valid', /must be <= 5|JSON/)).toHaveLength(at(oneByteOff.outOfRange).length + at(oneByteOff.truncatedJson).length)
  // The ratio verdict (judges/reads.ts), on the creatives after the SPS reads.
  expect(failures('invariants.ratio-fields')).toEqual(at(wrongRatio, creativeSequence, sequence.length + 1))
})
