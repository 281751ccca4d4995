/**
 * Every rule can fail: each rule runs against the mock behind a proxy that breaks exactly the
 * behaviour it checks (conformance/testing/mutations.ts), and must fail while the other rules
 * reading the same operations still pass. A rule without a killing mutation fails the table test.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'
import { describeOutcome } from '../conformance/runner/describe.ts'
import { demoOptions, runRules, startMock, startProxy, type RunningMock } from '../conformance/testing/harness.ts'
import { killingMutations } from '../conformance/testing/mutations.ts'
import type { RuleOutcome } from '../conformance/types.ts'

let mock: RunningMock
let proxy: Awaited<ReturnType<typeof startProxy>>
const baseline = new Map<string, RuleOutcome>()
const fastRules = catalogue.filter((r) => !killingMutations[r.id]?.rateLimit)

beforeAll(async () => {
  mock = await startMock({ rateLimit: false })
  proxy = await startProxy(mock.url)
  for (const outcome of await runRules(fastRules, demoOptions(proxy.url, mock.shopId))) baseline.set(outcome.id, outcome)
}, 300_000)

afterAll(async () => {
  await proxy?.close()
  await mock?.close()
})

describe('every rule can fail', () => {
  it('every rule of the catalogue has a killing mutation', () => {
    const without = catalogue.map((r) => r.id).filter((id) => !killingMutations[id])
    expect(without).toEqual([])
    const unknown = Object.keys(killingMutations).filter((id) => !catalogue.some((r) => r.id === id))
    expect(unknown).toEqual([])
  })

  for (const rule of fastRules) {
    const killer = killingMutations[rule.id]
    if (!killer) continue
    it(`${rule.id} is killed by a mock where ${killer.breaks}`, { timeout: 240_000 }, async () => {
      const before = baseline.get(rule.id)
      // A mutation is only evidence against a rule that passes on the unmutated mock.
      expect(before?.status, before ? describeOutcome(before).split('\n')[0] : 'not run').toBe('pass')
      // The rule itself, and every rule that passed before and reads one of its operations; the
      // verdict over every response (which sends nothing itself) runs after all of them.
      const operations = new Set(before!.operations)
      const neighbours = fastRules.filter((r) => {
        const b = baseline.get(r.id)
        if (r.id === rule.id) return true
        if (b?.status !== 'pass') return false
        return rule.id === 'contract.responses-valid' || r.id === 'contract.responses-valid' || b.operations.some((op) => operations.has(op))
      })
      proxy.setMutation(killer.mutation)
      try {
        const outcomes = await runRules(neighbours, demoOptions(proxy.url, mock.shopId))
        const target = outcomes.find((o) => o.id === rule.id)!
        const others = outcomes.filter((o) => o.id !== rule.id && (o.status === 'fail' || o.status === 'error') && !killer.alsoFails?.[o.id])
        expect(target.status, `the mutant (${killer.breaks}) was not caught`).toBe('fail')
        expect(others.map((o) => `${o.id}: ${describeOutcome(o).split('\n')[0]}`)).toEqual([])
      } finally {
        proxy.setMutation(undefined)
      }
    })
  }

  it('ratelimit.burst-429 is killed by a mock that queues excess requests instead of answering 429', { timeout: 120_000 }, async () => {
    const limited = await startMock({ rateLimit: true })
    const queueing = await startProxy(limited.url, killingMutations['ratelimit.burst-429'].mutation)
    try {
      const rules = catalogue.filter((r) => r.id === 'ratelimit.burst-429')
      const [healthy] = await runRules(rules, demoOptions(limited.url, limited.shopId, { rps: 8 }))
      expect(healthy.status, describeOutcome(healthy)).toBe('pass')
      const [killed] = await runRules(rules, demoOptions(queueing.url, limited.shopId, { rps: 8 }))
      expect(killed.status).toBe('fail')
    } finally {
      await queueing.close()
      await limited.close()
    }
  })
})
