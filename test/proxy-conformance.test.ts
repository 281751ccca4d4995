/**
 * The proof of `shoptwin proxy` on the conformance suite's traffic:
 * - the whole catalogue run through the proxy in front of the mock, fast (rate limit off but for the
 *   rate-limit rule): every rule's outcome is the one it has run directly, and the proxy's only finding
 *   is the rate limit the fast mock does not apply (test/proxy-suite.test.ts, `npm run test:proxy-suite`,
 *   runs it all under the mock's rate limit: no finding at all);
 * - each killing mutation of the suite (conformance/testing/mutations.ts) as the upstream, its rule's
 *   traffic through the proxy: every mutant whose rule the proxy judges passively, and whose situation
 *   that traffic exercises, is caught.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'
import { describeOutcome } from '../conformance/runner/describe.ts'
import { demoOptions, runRules, startMock, startProxy as startMutationProxy, type RunningMock } from '../conformance/testing/harness.ts'
import { killingMutations } from '../conformance/testing/mutations.ts'
import type { RuleOutcome } from '../conformance/types.ts'
import { startProxy } from '../proxy/index.ts'
import { passiveJudges } from '../proxy/judges/index.ts'

let mock: RunningMock
let limited: RunningMock
const fastRules = catalogue.filter((r) => !killingMutations[r.id]?.rateLimit)
const slowRules = catalogue.filter((r) => killingMutations[r.id]?.rateLimit)

beforeAll(async () => {
  mock = await startMock({ rateLimit: false })
  limited = await startMock({ rateLimit: true })
}, 60_000)

afterAll(async () => {
  await mock?.close()
  await limited?.close()
})

const statusOf = (outcomes: RuleOutcome[]) => Object.fromEntries(outcomes.map((o) => [o.id, o.status]))

describe('proxy: the conformance suite through it', () => {
  it('the whole catalogue through the proxy: every rule\'s outcome as without it; the only finding is the rate limit the fast mock leaves off', { timeout: 600_000 }, async () => {
    const direct = [...(await runRules(fastRules, demoOptions(mock.url, mock.shopId))), ...(await runRules(slowRules, demoOptions(limited.url, limited.shopId, { rps: 8 })))]
    const proxy = await startProxy({ upstream: mock.url })
    const proxyLimited = await startProxy({ upstream: limited.url })
    const through = [...(await runRules(fastRules, demoOptions(proxy.url, mock.shopId))), ...(await runRules(slowRules, demoOptions(proxyLimited.url, limited.shopId, { rps: 8 })))]
    const reports = [await proxy.stop(), await proxyLimited.stop()]
    expect(statusOf(through)).toEqual(statusOf(direct))
    expect(direct.filter((o) => o.status !== 'pass').map(describeOutcome)).toEqual([])
    const violations = reports.map((report) => report.server.outcomes.filter((o) => o.status === 'fail').map((o) => o.id))
    // spec: Limits: 10 per second. The mock without its rate limit serves the suite's 200 per second whole.
    expect(violations).toEqual([['ratelimit.burst-429'], []])
    for (const report of reports) expect(report.upstreamFailures).toEqual([])
    // What the suite's traffic exercises of the passive judges, for the README's table.
    const exercised = reports[0]!.server.outcomes.filter((o) => o.status === 'pass').map((o) => o.id)
    expect(exercised.length).toBeGreaterThanOrEqual(25)
  })
})

/**
 * Mutants the proxy's judge sees but cannot tell from a healthy server on traffic alone, and why.
 * (A mutant of a rule not judged passively is not expected to be caught; NOT_PASSIVE says why.)
 */
const BEYOND_TRAFFIC: Record<string, string> = {
  'contract.reads-answer': 'a read refused with 403 is what a key limited to other routes gets: without the key\'s routes the proxy cannot call it a broken server (it judges 5xx and no answer)',
}

describe('proxy: the suite\'s mutants as the upstream', () => {
  const judged = new Set(passiveJudges().map((j) => j.rule))
  const caught: Array<{ rule: string; verdict: string }> = []
  let mutation: Awaited<ReturnType<typeof startMutationProxy>>
  beforeAll(async () => {
    mutation = await startMutationProxy(mock.url)
  })
  afterAll(async () => {
    await mutation?.close()
    // The table of bench/README.md: what the proxy makes of each mutant.
    console.log(caught.map((c) => `${c.rule}: ${c.verdict}`).join('\n'))
  })

  for (const rule of fastRules) {
    const killer = killingMutations[rule.id]!
    it(`${rule.id} (${killer.breaks}): caught when the proxy judges it and the rule's traffic exercises it`, { timeout: 120_000 }, async () => {
      mutation.setMutation(killer.mutation)
      const proxy = await startProxy({ upstream: mutation.url })
      try {
        await runRules([rule], demoOptions(proxy.url, mock.shopId))
      } finally {
        mutation.setMutation(undefined)
      }
      const report = await proxy.stop()
      const outcome = report.server.outcomes.find((o) => o.id === rule.id)!
      const failedRules = report.server.outcomes.filter((o) => o.status === 'fail').map((o) => o.id)
      if (!judged.has(rule.id)) {
        caught.push({ rule: rule.id, verdict: failedRules.length ? `caught by ${failedRules.join(', ')} (not judged passively itself)` : 'not judged passively' })
        return
      }
      if (outcome.status === 'skip') {
        caught.push({ rule: rule.id, verdict: failedRules.length ? `caught by ${failedRules.join(', ')}` : 'judged, not exercised by the rule\'s traffic' })
        return
      }
      if (BEYOND_TRAFFIC[rule.id]) {
        caught.push({ rule: rule.id, verdict: failedRules.length ? `caught by ${failedRules.join(', ')}` : `not caught: ${BEYOND_TRAFFIC[rule.id]}` })
        return
      }
      caught.push({ rule: rule.id, verdict: `caught (${failedRules.join(', ')})` })
      expect(failedRules, `the mutant (${killer.breaks}) passed the proxy: ${outcome.reason}`).toContain(rule.id)
    })
  }

  it('ratelimit.burst-429 (the server queues excess requests instead of answering 429): caught', { timeout: 120_000 }, async () => {
    const queueing = await startMutationProxy(limited.url, killingMutations['ratelimit.burst-429']!.mutation)
    const proxy = await startProxy({ upstream: queueing.url })
    try {
      await runRules(slowRules, demoOptions(proxy.url, limited.shopId, { rps: 8 }))
    } finally {
      await queueing.close()
    }
    const report = await proxy.stop()
    expect(report.server.outcomes.filter((o) => o.status === 'fail').map((o) => o.id)).toEqual(['ratelimit.burst-429'])
    caught.push({ rule: 'ratelimit.burst-429', verdict: 'caught (ratelimit.burst-429)' })
  })
})
