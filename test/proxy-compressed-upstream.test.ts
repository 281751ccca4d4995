/**
 * The proof on a realistic upstream (issue: a real server behind compression fails falsely): the
 * conformance suite's rules whose judges read answers, run through `shoptwin proxy` in front of the twin
 * behind a compressing front (test/support/compressing-upstream.ts: gzip, deflate, br, zstd, `gzip, br`
 * stacked, by the request's Accept-Encoding (a browser's) and a seed; some answers also `Transfer-Encoding:
 * gzip, chunked`, some after a 103 Early Hints; Vary, an ETag, `application/json; charset=utf-8`). The
 * proxy finds no violation, and every rule's outcome is the one it has run directly against the twin.
 * The whole catalogue through the same front, paced under the rate limit: test/proxy-suite.test.ts
 * (`npm run test:proxy-suite`).
 */
import * as zlib from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'
import { describeOutcome } from '../conformance/runner/describe.ts'
import { demoOptions, runRules, startMock, type RunningMock } from '../conformance/testing/harness.ts'
import { killingMutations } from '../conformance/testing/mutations.ts'
import { startProxy } from '../proxy/index.ts'
import { passiveJudges } from '../proxy/judges/index.ts'
import { startCompressingUpstream, browserLikeFetch, type CompressingUpstream } from './support/compressing-upstream.ts'

const zstd = 'zstdDecompressSync' in zlib
let mock: RunningMock
let front: CompressingUpstream

/** Every rule the proxy judges from traffic (each reads answers: their status, most their body), but the rate limit's (paced: proxy-suite). */
const judged = new Set(passiveJudges().map((j) => j.rule))
const rules = catalogue.filter((r) => judged.has(r.id) && !killingMutations[r.id]?.rateLimit)

beforeAll(async () => {
  mock = await startMock({ rateLimit: false })
  front = await startCompressingUpstream(mock.url, { seed: 7 })
}, 60_000)

afterAll(async () => {
  await front?.close()
  await mock?.close()
})

describe('proxy: the suite through it to a server behind compression', () => {
  it('0 server violations (but the rate limit the fast twin leaves off), every rule\'s outcome as direct; every coding, te gzip and 103 met', { timeout: 300_000 }, async () => {
    const direct = await runRules(rules, demoOptions(mock.url, mock.shopId))
    const proxy = await startProxy({ upstream: front.url })
    // The suite's client as a browser: it asks for br and zstd too, and reads an answer `Transfer-Encoding: gzip, chunked` as a recipient does (RFC 9112 7).
    vi.stubGlobal('fetch', browserLikeFetch(globalThis.fetch))
    let through
    try {
      through = await runRules(rules, demoOptions(proxy.url, mock.shopId))
    } finally {
      vi.unstubAllGlobals()
    }
    const report = await proxy.stop()
    expect(direct.filter((o) => o.status !== 'pass').map(describeOutcome)).toEqual([])
    expect(through.map((o) => [o.id, o.status])).toEqual(direct.map((o) => [o.id, o.status]))
    // spec: Limits: 10 per second. The twin without its rate limit serves the suite's 200 per second whole.
    const violations = report.server.outcomes.filter((o) => o.status === 'fail' && o.id !== 'ratelimit.burst-429')
    expect(violations.map((o) => `${o.id}: ${o.failures[0]?.message} ${o.failures[0]?.exchange?.responseExcerpt.slice(0, 200)}`)).toEqual([])
    expect(report.server.outcomes.flatMap((o) => o.warnings.map((w) => `${o.id}: ${w.message}`)).filter((w) => /decode|not judged/.test(w))).toEqual([])
    expect(report.upstreamFailures).toEqual([])
    for (const way of ['gzip', 'deflate', 'br', 'gzip, br', 'identity', 'te gzip', '103', ...(zstd ? ['zstd'] : [])]) expect(front.counts[way], `${way}: ${JSON.stringify(front.counts)}`).toBeGreaterThan(10)
    // Every judged rule met its situation in this traffic, through the codings.
    expect(report.server.outcomes.filter((o) => judged.has(o.id) && o.status === 'skip').map((o) => `${o.id}: ${o.reason}`)).toEqual([])
    console.log(`${report.exchanges} exchanges; ${JSON.stringify(front.counts)}; ${report.server.verdictText}`)
  })
})
