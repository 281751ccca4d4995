/**
 * The whole conformance suite through `shoptwin proxy`, as test/conformance-mock.test.ts runs it
 * directly: the mock with its rate limit on, paced at 9 requests per second, writes allowed. The proxy
 * finds no violation in that traffic and every rule's outcome is the same with and without it. It takes
 * minutes (two paced runs): `npm run test:proxy-suite` runs it (.ci/run too); `npm test` skips it.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'
import { describeOutcome } from '../conformance/runner/describe.ts'
import { demoOptions, runRules, startMock, type RunningMock } from '../conformance/testing/harness.ts'
import { startProxy } from '../proxy/index.ts'

let mock: RunningMock

describe.skipIf(!process.env.SHOPTWIN_PROXY_SUITE)('proxy: the whole suite through it, under the mock\'s rate limit (npm run test:proxy-suite)', () => {
  beforeAll(async () => {
    mock = await startMock({ rateLimit: true })
  })
  afterAll(async () => {
    await mock?.close()
  })

  it('0 violations in the suite\'s traffic, and every rule\'s outcome as without the proxy', { timeout: 1_800_000 }, async () => {
    const direct = await runRules(catalogue, demoOptions(mock.url, mock.shopId, { rps: 9 }))
    const proxy = await startProxy({ upstream: mock.url })
    const through = await runRules(catalogue, demoOptions(proxy.url, mock.shopId, { rps: 9 }))
    const report = await proxy.stop()
    expect(through.map((o) => [o.id, o.status])).toEqual(direct.map((o) => [o.id, o.status]))
    expect(direct.filter((o) => o.status !== 'pass').map(describeOutcome)).toEqual([])
    expect(report.server.outcomes.filter((o) => o.status === 'fail').map((o) => `${o.id}: ${o.failures[0]?.message}`)).toEqual([])
    expect(report.upstreamFailures).toEqual([])
    console.log(`${report.exchanges} exchanges; ${report.server.verdictText}`)
  })
})
