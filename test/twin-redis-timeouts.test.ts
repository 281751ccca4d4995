/**
 * A store command's timeout is judged after the replies already in are read (mock/twin/redis/timeouts.ts):
 * a loop held past the timeout does not turn a reply that came in time into "Command timed out" (a
 * 503 for a request the store served); a store that does not answer still times the command out.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { storeClient, type StoreClient } from '../mock/twin/redis/connect.ts'
import { holdLoop } from './support/hold-loop.ts'
import { startRedis, type TestRedis } from './support/redis.ts'

let redis: TestRedis
let client: StoreClient
/** The client's command timeout: 500 ms, not 100, so that a loaded machine's Redis answers an unheld PING (and one sent before a hold) in time. */
const TIMEOUT_MS = 500

beforeAll(async () => {
  redis = await startRedis()
  client = await storeClient(redis.url, { lazyConnect: true, enableOfflineQueue: false, maxRetriesPerRequest: 0, commandTimeout: TIMEOUT_MS, retryStrategy: () => 50 })
  await client.connect()
})
afterAll(async () => {
  client?.disconnect()
  await redis?.stop()
})

describe("a store command's timeout", () => {
  it('a reply that came while the loop was held past the timeout settles the command (no "Command timed out")', async () => {
    for (let round = 0; round < 3; round++) {
      expect(await client.ping()).toBe('PONG')
      const reply = client.ping()
      // The PING is on the wire; Redis answers within a millisecond; the loop is held 3× the timeout.
      holdLoop(TIMEOUT_MS * 3)
      await expect(reply).resolves.toBe('PONG')
    }
  })

  it('a store that does not answer still times the command out, and the connection serves again once it answers', async () => {
    expect(await client.ping()).toBe('PONG')
    redis.process.kill('SIGSTOP')
    try {
      const started = performance.now()
      await expect(client.ping()).rejects.toThrow('Command timed out')
      expect(performance.now() - started).toBeGreaterThanOrEqual(TIMEOUT_MS - 5)
    } finally {
      redis.process.kill('SIGCONT')
    }
    expect(await client.ping()).toBe('PONG')
  })
})
