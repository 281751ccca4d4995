/**
 * The whole conformance suite through `shoptwin proxy`, as test/conformance-mock.test.ts runs it
 * directly: the mock with its rate limit on, paced at 9 requests per second, writes allowed. The proxy
 * finds no violation in that traffic and every rule's outcome is the same with and without it; the
 * same again with the mock behind a compressing front (test/support/compressing-upstream.ts: content
 * codings, `Transfer-Encoding: gzip, chunked`, 103 Early Hints; test/proxy-compressed-upstream.test.ts
 * runs the rules the proxy judges that way within npm test). It takes minutes (three paced runs, the
 * direct one shared):
 * `npm run test:proxy-suite` runs it (.ci/run too); `npm test` skips it.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'
import { describeOutcome } from '../conformance/runner/describe.ts'
import { demoOptions, runRules, startMock, type RunningMock } from '../conformance/testing/harness.ts'
import type { RuleOutcome } from '../conformance/types.ts'
import { startProxy } from '../proxy/index.ts'
import { browserLikeFetch, startCompressingUpstream } from './support/compressing-upstream.ts'

let mock: RunningMock
/** The suite run directly, once: each run through the proxy is compared with it. */
let direct: Promise<RuleOutcome[]> | undefined
const directly = () => (direct ??= runRules(catalogue, demoOptions(mock.url, mock.shopId, { rps: 9 })))

describe.skipIf(!process.env.SHOPTWIN_PROXY_SUITE)('proxy: the whole suite through it, under the mock\'s rate limit (npm run test:proxy-suite)', () => {
  beforeAll(async () => {
    mock = await startMock({ rateLimit: true })
  })
  afterAll(async () => {
    await mock?.close()
  })

  it('0 violations in the suite\'s traffic, and every rule\'s outcome as without the proxy', { timeout: 1_800_000 }, async () => {
    const direct = await directly()
    const proxy = await startProxy({ upstream: mock.url })
    const through = await runRules(catalogue, demoOptions(proxy.url, mock.shopId, { rps: 9 }))
    const report = await proxy.stop()
    expect(through.map((o) => [o.id, o.status])).toEqual(direct.map((o) => [o.id, o.status]))
    expect(direct.filter((o) => o.status !== 'pass').map(describeOutcome)).toEqual([])
    expect(report.server.outcomes.filter((o) => o.status === 'fail').map((o) => `${o.id}: ${o.failures[0]?.message}`)).toEqual([])
    expect(report.upstreamFailures).toEqual([])
    console.log(`${report.exchanges} exchanges; ${report.server.verdictText}`)
  })

  it('the same through a compressing front (gzip, deflate, br, zstd, stacked; te gzip; 103): 0 violations, every rule\'s outcome as directly', { timeout: 1_800_000 }, async () => {
    const direct = await directly()
    const front = await startCompressingUpstream(mock.url, { seed: 11 })
    const proxy = await startProxy({ upstream: front.url })
    // The suite's client as a browser (test/support/compressing-upstream.ts): it asks for br and zstd too, and undoes a transfer coding.
    vi.stubGlobal('fetch', browserLikeFetch(globalThis.fetch))
    let through
    try {
      through = await runRules(catalogue, demoOptions(proxy.url, mock.shopId, { rps: 9 }))
    } finally {
      vi.unstubAllGlobals()
    }
    const report = await proxy.stop()
    await front.close()
    expect(through.map((o) => [o.id, o.status])).toEqual(direct.map((o) => [o.id, o.status]))
    expect(report.server.outcomes.filter((o) => o.status === 'fail').map((o) => `${o.id}: ${o.failures[0]?.message}`)).toEqual([])
    expect(report.upstreamFailures).toEqual([])
    console.log(`${report.exchanges} exchanges; ${JSON.stringify(front.counts)}; ${report.server.verdictText}`)
  })
})
