/**
 * Issue 27, `--inject`'s held write: "a request held past the client's timeout, so that its retry
 * meets the upstream's own 409 in flight". The proxy holds the write, and when the client retries
 * with the same key it forwards the held one and the retry right behind it. The in-memory twin
 * finishes a write within the tick it claims the key, so there the retry meets the replay
 * (test/proxy-inject.test.ts); an upstream that is still writing when the retry arrives answers its
 * own 409. Such an upstream here: the twin on Redis, holding each write under its lease
 * (SHOPTWIN_HOLD_WRITE_MS) after it claimed the key, as any server with I/O between claim and answer.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { heldWriteThenRetry } from '../support/held-write.ts'
import { startRedis, type TestRedis } from '../support/redis.ts'
import { startReplica } from '../support/replicas.ts'

let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

describe('proxy --inject: a held write in front of an upstream still writing', () => {
  it('the retry meets the upstream\'s own 409 in flight, the held write acts once, the report says what was produced', async () => {
    const upstream = await startReplica({ store: redis.url, twin: 'held', args: ['--rate-limit', 'off'], env: { SHOPTWIN_HOLD_WRITE_MS: '5000' } })
    const shopId = /\n {2}([0-9a-f-]{36}) /.exec(upstream.output())![1]!
    const { proxy, retry, headers, body } = await heldWriteThenRetry(upstream.url, shopId, 'held-write-redis', 'held on redis')
    try {
      expect(retry.status).toBe(409)
      expect(((await retry.json()) as { error: string }).error).toBe('A request with this Idempotency-Key is still in flight')
      const report = await proxy.stop()
      expect(report.situations['slow write (applied late)']).toHaveLength(1)
      expect(Object.keys(report.situations)).toContain('retry reached the upstream while the first attempt with its key was in flight there: the upstream answered its own 409 in flight')
      expect(report.server.outcomes.find((o) => o.id === 'idempotency.concurrent-409')!.status).toBe('pass')
      // The held write acted once: a later retry gets its replay.
      const again = await fetch(`${upstream.url}/automations/create`, { method: 'POST', headers, body })
      expect(again.status).toBe(201)
      expect(again.headers.get('idempotent-replayed')).toBe('true')
    } finally {
      await proxy.stop().catch(() => undefined)
      await upstream.stop()
    }
  })
})
