/**
 * The whole conformance suite, writes included, against our own mock started in-process with
 * its rate limit on: every rule passes (spec: every section the rules cite).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'
import { createRunEnvironment, runRule, type RunEnvironment } from '../conformance/runner/run-rule.ts'
import { describeOutcome } from '../conformance/runner/describe.ts'
import { demoOptions, startMock, type RunningMock } from '../conformance/testing/harness.ts'

let mock: RunningMock
let env: RunEnvironment

beforeAll(async () => {
  mock = await startMock({ rateLimit: true })
  // Under the mock's 10 per second, as the CLI's default of 8 is.
  env = createRunEnvironment(demoOptions(mock.url, mock.shopId, { rps: 9 }))
})

afterAll(async () => {
  await mock?.close()
})

describe('conformance suite against the mock (rate limit on, writes allowed)', () => {
  for (const rule of catalogue) {
    it(`${rule.id}: ${rule.title}`, { timeout: 180_000 }, async () => {
      const outcome = await runRule(rule, env)
      expect(outcome.status, describeOutcome(outcome)).toBe('pass')
    })
  }

  it('exercises every operation of the contract', () => {
    const exercised = new Set(env.history.map((e) => e.operationId))
    const missing = env.contract.operations.filter((op) => !exercised.has(op.operationId)).map((op) => op.permission)
    expect(missing).toEqual([])
  })

  it('never records an API key', () => {
    const text = JSON.stringify(env.history)
    for (const key of ['demo-key', 'demo-enterprise-key', 'demo-limited-key']) expect(text).not.toMatch(new RegExp(`(^|[^-\\w])${key}([^-\\w]|$)`))
    expect(text).toContain('x-api-key: $API_KEY')
  })
})
