/**
 * Time never runs ahead of the clock (issue 15, item 3): no record any reading operation returns
 * carries a time after the mock clock's now (created, ended, approved, shipped, posted...); deadlines
 * and expiry dates are future by nature and excepted. Swept at the world's start and after the clock
 * has moved a few hours, over every reading operation and every page a client would read first.
 */
import { describe, expect, it } from 'vitest'
import { createMockState, type MockState } from '../mock/index.ts'
import { exampleFromSchema } from '../mock/testing.ts'
import { createInProcessClient } from './support/in-process.ts'

/** Fields that name a moment still to come by their nature. */
const FUTURE_BY_NATURE = /(^|_)(expire|expires|expiry|deadline|end_date|schedule_end|auth_end|review_expire|due)/
const ISO_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/

/** Every (path, value) of a time-valued string field in a JSON answer. */
function timesOf(node: unknown, path: string, out: Array<{ path: string; at: number }>): void {
  if (Array.isArray(node)) node.forEach((v, i) => timesOf(v, `${path}[${i}]`, out))
  else if (node && typeof node === 'object') for (const [k, v] of Object.entries(node)) {
    if (typeof v === 'string' && ISO_TIME.test(v) && !FUTURE_BY_NATURE.test(k)) out.push({ path: `${path}.${k}`, at: Date.parse(v) })
    else timesOf(v, `${path}.${k}`, out)
  }
}

const readOperations = (state: MockState) =>
  state.contract.operations.filter((op) => !op.idempotent && !op.aliasOf && !/^(create|update|delete|merge|toggle|approve|reject|ignore|unignore|send|authorize|tag|untag)/.test(op.operationId))

async function sweep(state: MockState): Promise<{ records: number; ahead: string[] }> {
  const client = createInProcessClient(state)
  const now = state.clock.now().getTime()
  let records = 0
  const ahead: string[] = []
  for (const shop of state.world.shops.filter((s) => s.is_active)) {
    const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id }
    for (const op of readOperations(state)) {
      const example = (exampleFromSchema(state.contract, op.requestSchema, state.today) ?? {}) as Record<string, unknown>
      // The widest first page a client would ask for (include ended sessions, every status).
      const body = op.hasBody ? JSON.stringify({ ...example, page_size: 100, include_ended: true }) : undefined
      let answer = await client.call(op, { headers, body })
      if (answer.status === 400 && body) answer = await client.call(op, { headers, body: JSON.stringify(example) })
      if (answer.status >= 300) continue
      const times: Array<{ path: string; at: number }> = []
      timesOf(JSON.parse(answer.text), op.operationId, times)
      records += times.length
      for (const t of times) if (t.at > now) ahead.push(`${t.path} ${new Date(t.at).toISOString()} > now ${new Date(now).toISOString()}`)
    }
  }
  return { records, ahead }
}

describe('time: no record is dated after the mock clock (issue 15; spec: States and transitions)', () => {
  it.each([
    ['at the world\'s start, mid-afternoon of its last day', '2026-11-20T15:20:00.000Z', 0],
    ['after the clock has moved six hours', '2026-11-20T15:20:00.000Z', 6 * 3600_000],
    ['at the world\'s start, just after midnight UTC (most of the day still to come)', '2026-11-20T00:30:00.000Z', 0],
    ['early in the morning, then a day and a half later (the whole last local day passed)', '2026-11-20T04:00:00.000Z', 36 * 3600_000],
  ])('%s', async (_label, start, advanceMs) => {
    const state = createMockState({ seed: 42, scale: 'small', today: '2026-11-20', now: start, rateLimit: false })
    state.clock.advance(advanceMs)
    const { records, ahead } = await sweep(state)
    expect(records).toBeGreaterThan(400)
    expect(ahead.slice(0, 20)).toEqual([])
  })
})
