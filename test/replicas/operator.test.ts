/**
 * What the operator of a shared twin sees of its replicas, each a process of its own (issue 23: "clear
 * logs when a replica falls behind or loses the store", and metrics worth scraping): Redis killed and
 * brought back on the same socket, twice: each replica says once that it lost the store and once that
 * it is back, once that its journal and trace entries do not reach the store and once that they do
 * again, whatever the requests meanwhile, and never a secret; a replica stopped while the others write
 * says once that it is behind and once that it caught up, and every replica's metrics show its lag;
 * every metric is in the README's table. `npm run test:replicas`.
 */
import { readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startRedis, type TestRedis } from '../support/redis.ts'
import { call, DEMO_KEY, firstShop, type Replica, startReplica } from '../support/replicas.ts'

let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

const SECRET = 'Bearer t0ken-s3cret-operator'
/** What a replica logged after its banner (the banner lists the demo keys, by design). */
const linesOf = (replica: Replica) =>
  replica
    .output()
    .split('\n')
    .filter((line) => line.startsWith('shoptwin: replica '))
const countOf = (replica: Replica, pattern: RegExp) => linesOf(replica).filter((line) => pattern.test(line)).length
const metricsOf = async (replica: Replica) => JSON.parse((await call(replica.url, 'GET', '/__admin/metrics', undefined)).text) as Record<string, unknown> & { replicas: Array<{ replica: string; applied: number; lag: number | null; reported_ms_ago: number }> }

const LOST = /: the shared store unix:\/\/\S+ is unreachable \(.+\); requests get 503 until it is back$/
const BACK = /: the shared store unix:\/\/\S+ is back after \d+\.\d s \(\d+ calls to it failed meanwhile\)$/
const APPENDS_LOST = /: its journal, trace and activity entries do not reach the shared store \(.+\); lost: .+$/
const APPENDS_BACK = /: its journal, trace and activity entries reach the shared store again after \d+\.\d s \(lost meanwhile: .+ in \d+ batches\)$/
const BEHIND = / is behind the log: \d+ operations \(applied \d+ of \d+\); its requests wait until it catches up$/
const CAUGHT_UP = / caught up with the log \(head \d+\) after \d+\.\d s behind \(at most (\d+) operations\)$/

describe("an operator's view of three replica processes (issue 23)", () => {
  it('Redis killed and brought back on the same socket, twice: each replica says once per episode that it lost the store and that it is back, that its entries are lost and that they go again; no secret in any line', async () => {
    const own = await startRedis()
    const replicas = [await startReplica({ store: own.url, twin: 'ops', args: ['--rate-limit', 'off'] })]
    replicas.push(await startReplica({ store: own.url, twin: 'ops', args: ['--rate-limit', 'off'] }))
    const shop = firstShop(replicas[0]!)
    // The 503s each replica answered: each one's journal entry and trace went to a flush the store could not take.
    const refused = new Map<Replica, number>()
    const read = async (r: Replica) => {
      const reply = await call(r.url, 'GET', '/shop/sps', shop, undefined, { authorization: SECRET })
      if (reply.status === 503) refused.set(r, (refused.get(r) ?? 0) + 1)
      return reply
    }
    try {
      for (const r of replicas) expect((await read(r)).status).toBe(200)
      for (let episode = 1; episode <= 2; episode++) {
        const gone = new Promise((resolve) => own.process.once('exit', resolve))
        own.process.kill('SIGKILL')
        await gone
        // Requests meanwhile, for 3 s (the client reconnects and fails again meanwhile): each gets 503,
        // and the replica says so once, however many there are.
        await Promise.all(
          replicas.map(async (r) => {
            await expect.poll(async () => (await read(r)).status, { timeout: 30_000 }).toBe(503)
            // Terminates: a deadline.
            for (const until = Date.now() + 3000; Date.now() < until; await new Promise((resolve) => setTimeout(resolve, 50))) expect((await read(r)).status).toBe(503)
          }),
        )
        for (const r of replicas) {
          await expect.poll(() => countOf(r, LOST), { timeout: 30_000 }).toBe(episode)
          await expect.poll(() => countOf(r, APPENDS_LOST), { timeout: 30_000 }).toBe(episode)
          // /__admin/metrics answers while the store is away, and says it.
          expect(await metricsOf(r)).toMatchObject({ store_connected: false, log_head: null })
        }
        await own.restart()
        for (const r of replicas) {
          await expect.poll(async () => (await read(r)).status, { timeout: 30_000 }).toBe(200)
          // Entries go again once the appends' connection is back too.
          await expect.poll(async () => (await read(r), countOf(r, APPENDS_BACK)), { timeout: 30_000 }).toBe(episode)
          await expect.poll(() => countOf(r, BACK), { timeout: 30_000 }).toBe(episode)
        }
        for (const r of replicas) {
          // One line each per episode, whatever happened in between.
          for (const pattern of [LOST, BACK, APPENDS_LOST, APPENDS_BACK]) expect(countOf(r, pattern), `${pattern} in\n${linesOf(r).join('\n')}`).toBe(episode)
          expect(await metricsOf(r)).toMatchObject({ store_connected: true, store_episodes: episode, append_episodes: episode })
        }
      }
      for (const r of replicas) {
        const said = linesOf(r).join('\n')
        expect(said).not.toContain('t0ken-s3cret')
        expect(said).not.toContain(DEMO_KEY)
        // Nothing but the episodes' lines.
        expect(linesOf(r)).toHaveLength(8)
        console.log(`what a replica said:\n${linesOf(r).join('\n')}`)
        const metrics = await metricsOf(r)
        expect(metrics.append_failures).toBeGreaterThanOrEqual(2)
        // Two entries (journal and trace) for each 503 read, all sent while the store was away but for
        // the last few, whose flush may find it back: at least one per 503 (the reads are counted, not
        // timed: a loaded machine makes fewer in the 3 s).
        expect(refused.get(r)).toBeGreaterThanOrEqual(2)
        expect(metrics.append_entries_lost).toBeGreaterThanOrEqual(refused.get(r)!)
      }
    } finally {
      await Promise.all(replicas.map((r) => r.stop()))
      await own.stop()
    }
  })

  it('Redis stalled (SIGSTOP): a call that times out starts an episode, the first call answered after SIGCONT ends it (the connection never closed)', async () => {
    const own = await startRedis()
    const r = await startReplica({ store: own.url, twin: 'stall', args: ['--rate-limit', 'off'] })
    const read = () => call(r.url, 'GET', '/shop/sps', firstShop(r), undefined, { authorization: SECRET })
    try {
      expect((await read()).status).toBe(200)
      own.process.kill('SIGSTOP')
      try {
        // Each waits for the client's command timeout (5 s), then 503.
        const replies = await Promise.all([read(), read(), read()])
        expect(replies.map((x) => x.status)).toEqual([503, 503, 503])
      } finally {
        own.process.kill('SIGCONT')
      }
      await expect.poll(async () => (await read()).status, { timeout: 30_000 }).toBe(200)
      await expect.poll(() => countOf(r, BACK), { timeout: 30_000 }).toBe(1)
      expect(linesOf(r).filter((l) => LOST.test(l))).toEqual([expect.stringContaining('is unreachable (Command timed out)')])
      expect(countOf(r, LOST)).toBe(1)
      expect(linesOf(r).join('\n')).not.toContain('t0ken-s3cret')
    } finally {
      await r.stop()
      await own.stop()
    }
  })

  it("a replica stopped while another writes: its lag shows in the other's metrics; resumed, it says once that it is behind and once that it caught up; every metric is in the README", async () => {
    // b says it is behind from 50 operations (SHOPTWIN_LAG_WARN; the default is 1,000).
    const a = await startReplica({ store: redis.url, twin: 'lag', args: ['--rate-limit', 'off'] })
    const b = await startReplica({ store: redis.url, twin: 'lag', args: ['--rate-limit', 'off'], env: { SHOPTWIN_LAG_WARN: '50' } })
    try {
      const idOf = async (r: Replica) => (await metricsOf(r)).replica as unknown as string
      const [ida, idb] = [await idOf(a), await idOf(b)]
      // Each replica reports its applied head: a's metrics list both, neither behind.
      await expect.poll(async () => (await metricsOf(a)).replicas.map((r) => [r.replica, r.lag]), { timeout: 30_000 }).toEqual([[ida, 0], [idb, 0]].sort())
      // And b's (a's first report and b's are each a timer's in its own process: either may land first).
      await expect.poll(async () => (await metricsOf(b)).replicas.map((r) => r.replica), { timeout: 30_000 }).toEqual([ida, idb].sort())

      b.signal('SIGSTOP')
      try {
        // 200 operations in the log while b cannot apply them (each clock move is one).
        for (let i = 0; i < 200; i++) expect((await call(a.url, 'POST', '/__admin/clock', undefined, { advance_ms: 1 })).status).toBe(200)
        const seen = await metricsOf(a)
        const rowOfB = seen.replicas.find((r) => r.replica === idb)!
        expect(rowOfB.lag).toBeGreaterThanOrEqual(200)
        expect(rowOfB.applied).toBe((seen.log_head as number) - rowOfB.lag!)
      } finally {
        b.signal('SIGCONT')
      }
      await expect.poll(() => countOf(b, CAUGHT_UP), { timeout: 30_000 }).toBe(1)
      expect(countOf(b, BEHIND)).toBe(1)
      expect(Number(CAUGHT_UP.exec(linesOf(b).find((l) => CAUGHT_UP.test(l))!)![1])).toBeGreaterThanOrEqual(50)
      console.log(`what b said:\n${linesOf(b).join('\n')}`)
      expect(countOf(a, BEHIND)).toBe(0)
      await expect.poll(async () => (await metricsOf(a)).replicas.map((r) => r.lag), { timeout: 30_000 }).toEqual([0, 0])
      expect(await metricsOf(b)).toMatchObject({ behind_episodes: 1, lag_warn_ops: 50 })

      // Every field of the metrics is in the README's table (a field added without it fails here).
      const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8')
      const table = readme.slice(readme.indexOf('`GET /__admin/metrics` on each replica'))
      const documented = new Set([...table.slice(0, table.indexOf('\n\n', table.indexOf('| field |'))).matchAll(/`([a-z_]+)`/g)].map((m) => m[1]))
      const fields = [...Object.keys(await metricsOf(a)), ...Object.keys((await metricsOf(a)).replicas[0]!)]
      expect(fields.filter((f) => !documented.has(f))).toEqual([])
    } finally {
      await Promise.all([a.stop(), b.stop()])
    }
  })
})
