/**
 * The store loses the twin while its replicas run (a Redis restarted without persistence, FLUSHALL or
 * FLUSHDB, its keys deleted or evicted under maxmemory): the first replica that notices writes the twin
 * back from what it holds, the others go on from it; every earlier write is still read on every
 * replica, a retry of a key sent before the loss replays its first answer byte for byte (never a
 * second resource), and each replica says what happened once per episode. At start, a replica says
 * when the store may evict the twin or keeps nothing across a restart. The restores that cannot be
 * whole: a replica whose copy was dropped past its bound (503 until a replica that kept its copy
 * restores the twin, then it rebuilds from it; never serving a twin created anew under the name), one
 * with less than another (it lets the fuller one restore; overtaken, the fuller one's extra writes are
 * lost, and said, at its first request: the log's epoch). The ids the twin hands out (trace, journal,
 * activity) never start over nor repeat, and no counter goes back whichever keys the store loses.
 * `npm run test:replicas`.
 */
import { afterAll, beforeAll, describe, expect, it, onTestFinished } from 'vitest'
import { type RedisOptions, redisCommand, startRedis, type TestRedis } from '../support/redis.ts'
import { automation, automationTitles, call, FROZEN, firstShop, readSweep, type Replica, type Reply, startReplica, startReplicas } from '../support/replicas.ts'

/** Neither AOF nor RDB, and a maxmemory policy that evicts any key: the store an operator should not give a twin. */
let careless: TestRedis
beforeAll(async () => {
  careless = await startRedis({ persistence: false, args: ['--maxmemory-policy', 'allkeys-lru'] })
})
afterAll(async () => {
  await careless?.stop()
})

/** A Redis of the test's own, stopped when the test ends (also when its replicas never started). */
const ownRedis = async (options?: RedisOptions) => {
  const own = await startRedis(options)
  onTestFinished(() => own.stop())
  return own
}

const linesOf = (replica: Replica) =>
  replica
    .output()
    .split('\n')
    .filter((line) => line.startsWith('shoptwin: '))
const countIn = (replicas: Replica[], pattern: RegExp) => replicas.reduce((n, r) => n + linesOf(r).filter((l) => pattern.test(l)).length, 0)
const metricsOf = async (replica: Replica) => JSON.parse((await call(replica.url, 'GET', '/__admin/metrics', undefined)).text) as Record<string, number | boolean | null>
/** Resolves just after the replica's look each second at the store (its next is a second away). */
const afterProbe = async (r: Replica) => {
  const before = Number((await metricsOf(r)).twin_probes)
  await expect.poll(async () => Number((await metricsOf(r)).twin_probes), { interval: 5 }).toBeGreaterThan(before)
}
const sumOf = async (replicas: Replica[], field: string) => (await Promise.all(replicas.map(metricsOf))).reduce((n, m) => n + Number(m[field]), 0)

const RESTORED = /^shoptwin: replica \w+ of twin '\S+': the shared store unix:\/\/\S+ lost the twin \((.+)\): restarted without persistence, flushed \(FLUSHALL\/FLUSHDB\), its keys evicted \(maxmemory-policy\) or deleted, or failed over to an empty replica\. This replica restored it from its copy: \d+ log entries, generation \d+, \d+ idempotency records, and its ids go on past trace ids \d+, journal ids \d+, activity ids \d+ \(the highest this replica and \d+ others? knew of(; .+)?\); lost: the rate-limit windows, and the journal, traces and activity log\. To do: /
const ADOPTED = /lost the twin \(.+\); another replica had restored it already \(head \d+\): this replica goes on from it\. To do: /
const EVICTS = /^shoptwin: twin 'lost' on the shared store unix:\/\/\S+: maxmemory-policy allkeys-lru \(maxmemory 0 \(no limit now: evicts once one is set\)\) may evict the twin's keys under memory pressure; .*set maxmemory-policy noeviction/
const VOLATILE = /^shoptwin: twin 'lost' on the shared store unix:\/\/\S+: neither AOF \(appendonly no\) nor RDB snapshots \(save ""\) are on: a restart of the store loses the twin unless a live replica restores it; turn appendonly yes on$/

const ARGS = ['--rate-limit', 'off']
/** An automation created under the Idempotency-Key `key` (its title too). */
const keyedCreate = (url: string, shop: string, key: string) => call(url, 'POST', '/automations/create', shop, automation(key), { 'idempotency-key': key })

/** The ways a store loses a twin that a test can make happen; each resolves once the twin's keys are gone. */
const losses: Array<[string, (redis: TestRedis) => Promise<void>]> = [
  ['FLUSHALL', async (r) => void (await redisCommand(r.socket, 'FLUSHALL'))],
  ['FLUSHDB', async (r) => void (await redisCommand(r.socket, 'FLUSHDB'))],
  [
    "DEL of every key of the twin's",
    async (r) => {
      const keys = (await redisCommand(r.socket, 'KEYS', 'st:{tw:lost}:*')).split('\r\n').filter((line) => line.startsWith('st:'))
      expect(keys.length).toBeGreaterThan(3)
      await redisCommand(r.socket, 'DEL', ...keys)
    },
  ],
  ["DEL of the twin's log alone (its head and settings left)", async (r) => void (await redisCommand(r.socket, 'DEL', 'st:{tw:lost}:log'))],
  [
    'eviction: maxmemory 1 byte under allkeys-lru evicts every key at the next command',
    async (r) => {
      await redisCommand(r.socket, 'CONFIG', 'SET', 'maxmemory', '1')
      // Evicts before it answers (every command does while over the limit); a replica's restore waits for the limit to go.
      expect(await redisCommand(r.socket, 'EXISTS', 'st:{tw:lost}:cfg', 'st:{tw:lost}:log')).toBe(':0\r\n')
      await redisCommand(r.socket, 'CONFIG', 'SET', 'maxmemory', '0')
    },
  ],
  ['redis-server killed and started again on its socket, without AOF or RDB', (r) => r.restart()],
]

describe('the store loses the twin while its replicas run', () => {
  it(`three replicas: ${losses.map(([what]) => what).join('; ')}: each time one replica restores the twin (one line, twin_restores), every replica reads every earlier write, a retry of every earlier key replays its first answer byte for byte; the start-up lines name the eviction policy and the missing persistence`, async () => {
    const replicas = await startReplicas(3, { store: careless.url, twin: 'lost', args: ARGS })
    const shop = firstShop(replicas[0]!)
    try {
      for (const r of replicas) {
        expect(linesOf(r).filter((l) => EVICTS.test(l)), linesOf(r).join('\n')).toHaveLength(1)
        expect(linesOf(r).filter((l) => VOLATILE.test(l)), linesOf(r).join('\n')).toHaveLength(1)
      }
      expect((await call(replicas[0]!.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })).status).toBe(200)
      const answers = new Map<string, Reply>()
      for (const [episode, [what, lose]] of losses.entries()) {
        // Two keyed writes before each loss, on two replicas; every replica has read them (it holds them).
        for (const n of [0, 1]) {
          const key = `lost-${episode}-${n}`
          const reply = await keyedCreate(replicas[(episode + n) % 3]!.url, shop, key)
          expect(reply.status, reply.text).toBe(201)
          answers.set(key, reply)
        }
        const before = await readSweep(replicas[0]!.url, shop, `lost-${episode}-0`)
        for (const r of replicas) expect(await readSweep(r.url, shop, `lost-${episode}-0`)).toEqual(before)

        await lose(careless)

        // A new write first (on the old code, its commit was refused and its replica rebuilt the seed
        // world from the empty log). One whose commit finds the store without the twin is refused,
        // nothing written, and its retry with the same key writes once.
        const after = `lost-${episode}-after`
        let reply: Reply = { status: 0, text: '' }
        for (let attempt = 0; attempt < 20 && reply.status !== 201; attempt++) {
          reply = await keyedCreate(replicas[episode % 3]!.url, shop, after)
          if (reply.status !== 201) expect({ status: reply.status, body: JSON.parse(reply.text) as unknown }, what).toEqual({ status: 503, body: { error: expect.stringMatching(/^The shared state store (had lost twin 'lost' when this write was committed|is unavailable)/) } })
          if (reply.status === 503) await new Promise((resolve) => setTimeout(resolve, 100))
        }
        expect(reply.status, reply.text).toBe(201)
        answers.set(after, reply)

        // Every replica answers the twin as it was, with the new write (the first to notice restored it).
        for (const r of replicas) {
          await expect.poll(async () => (await call(r.url, 'POST', '/automations/list', shop, { page_size: 1 })).status, { timeout: 30_000 }).toBe(200)
          // The sweep's own reads are as before (the automations list too has the new one).
          expect((await readSweep(r.url, shop, `lost-${episode}-0`)).filter((_, i) => i !== 1), `${what}: ${r.url}`).toEqual(before.filter((_, i) => i !== 1))
          expect((await automationTitles(r.url, shop, 'lost-')).sort(), what).toEqual([...answers.keys()].sort())
        }
        // Every key sent before, retried on another replica: the first answer, byte for byte.
        for (const [key, first] of answers) {
          const retry = await keyedCreate(replicas[(Number(key.split('-')[1]) + 1) % 3]!.url, shop, key)
          expect({ status: retry.status, text: retry.text, replayed: retry.replayed }, `${what}: ${key}`).toEqual({ status: first.status, text: first.text, replayed: 'true' })
        }
        expect(await automationTitles(replicas[2]!.url, shop, 'lost-'), what).toHaveLength(answers.size)
        // Once per episode: one replica restored, the others said at most that they found it restored.
        await expect.poll(() => countIn(replicas, RESTORED), { timeout: 15_000 }).toBe(episode + 1)
        expect(await sumOf(replicas, 'twin_restores'), what).toBe(episode + 1)
        for (const r of replicas) expect(linesOf(r).filter((l) => RESTORED.test(l) || ADOPTED.test(l)).length, linesOf(r).join('\n')).toBeLessThanOrEqual(episode + 1)
      }
      const said = replicas.flatMap(linesOf).filter((l) => RESTORED.test(l))
      console.log(`what the replicas said:\n${said.join('\n')}`)
      // What each loss showed: the settings gone, or the log's head or entries behind what the replica applied.
      expect(said.map((l) => RESTORED.exec(l)![1])).toEqual(losses.map(() => expect.stringMatching(/^its settings \(cfg\) are gone$|^its log's head is 0, behind the \d+ entries this replica applied$|^its log has (no entry 1|0 entries) though its head is \d+$/)))
    } finally {
      await Promise.all(replicas.map((r) => r.stop()))
    }
  })

  it('two replicas that notice at once restore once: one writes the twin back, the other adopts it; a write after goes on from it', async () => {
    const own = await ownRedis()
    const replicas = await startReplicas(2, { store: own.url, twin: 'once', args: ARGS })
    const shop = firstShop(replicas[0]!)
    try {
      // A store with AOF and noeviction: neither start-up line.
      for (const r of replicas) expect(linesOf(r).filter((l) => / maxmemory-policy | neither AOF /.test(l))).toEqual([])
      const first = await keyedCreate(replicas[0]!.url, shop, 'once-0')
      expect(first.status).toBe(201)
      for (const r of replicas) expect(await automationTitles(r.url, shop, 'once-')).toEqual(['once-0'])
      await redisCommand(own.socket, 'FLUSHALL')
      const reads = await Promise.all(replicas.map((r) => automationTitles(r.url, shop, 'once-')))
      expect(reads).toEqual([['once-0'], ['once-0']])
      expect(await sumOf(replicas, 'twin_restores')).toBe(1)
      expect(countIn(replicas, RESTORED)).toBe(1)
      const next = await keyedCreate(replicas[1]!.url, shop, 'once-1')
      expect(next.status).toBe(201)
      expect((await keyedCreate(replicas[0]!.url, shop, 'once-0')).text).toBe(first.text)
      for (const r of replicas) expect((await automationTitles(r.url, shop, 'once-')).sort()).toEqual(['once-0', 'once-1'])
    } finally {
      await Promise.all(replicas.map((r) => r.stop()))
      await own.stop()
    }
  })

  it('a replica with less of the log that finds the loss first asks the others: the one that keeps more restores the twin, and it adopts it (no write lost)', async () => {
    const own = await ownRedis({ persistence: false })
    const [less, more] = await startReplicas(2, { store: own.url, twin: 'fuller', args: ARGS })
    try {
      const shop = firstShop(less!)
      expect((await keyedCreate(less!.url, shop, 'fuller-0')).status).toBe(201)
      // `less` stopped while `more` writes: it holds 2 entries of the log, `more` 6.
      less!.signal('SIGSTOP')
      for (const key of ['fuller-1', 'fuller-2']) expect((await keyedCreate(more!.url, shop, key)).status).toBe(201)
      // Right after `more` looked at the store: `less`, continued, finds the loss first.
      await afterProbe(more!)
      await redisCommand(own.socket, 'FLUSHALL')
      less!.signal('SIGCONT')
      // A write at once on `less`: had it restored its 2 entries, this one would land on them, and `more`'s two writes be lost.
      let next: Reply = { status: 0, text: '' }
      for (let attempt = 0; attempt < 20 && next.status !== 201; attempt++) next = await keyedCreate(less!.url, shop, 'fuller-3')
      expect(next.status, next.text).toBe(201)
      for (const r of [less!, more!]) {
        await expect.poll(async () => (await call(r.url, 'POST', '/automations/list', shop, { page_size: 1 })).status, { timeout: 15_000 }).toBe(200)
        expect((await automationTitles(r.url, shop, 'fuller-')).sort(), r.url).toEqual(['fuller-0', 'fuller-1', 'fuller-2', 'fuller-3'])
      }
      await expect.poll(() => countIn([more!], RESTORED)).toBe(1)
      expect(linesOf(more!).find((l) => RESTORED.test(l))).toMatch(/restored it from its copy: 6 log entries/)
      await expect.poll(() => linesOf(less!).filter((l) => ADOPTED.test(l)).length).toBe(1)
      expect(countIn([less!], RESTORED)).toBe(0)
      expect(await metricsOf(less!)).toMatchObject({ twin_losses: 1, twin_restores: 0, log_head: 8, applied: 8 })
      // A retry of a write only `more` held replays on `less`.
      expect((await keyedCreate(less!.url, shop, 'fuller-2')).replayed).toBe('true')
    } finally {
      await Promise.all([less?.stop(), more?.stop()])
      await own.stop()
    }
  })

  it('a replica stopped while the store lost the twin and another twin was created under its name: it restores nothing over it, answers 503 {error} saying so, one line', async () => {
    const own = await ownRedis()
    const old = await startReplica({ store: own.url, twin: 'taken', args: ARGS })
    let other: Replica | undefined
    try {
      const shop = firstShop(old)
      expect((await keyedCreate(old.url, shop, 'taken-0')).status).toBe(201)
      old.signal('SIGSTOP')
      await redisCommand(own.socket, 'FLUSHALL')
      other = await startReplica({ store: own.url, twin: 'taken', args: [...ARGS, '--seed', '7'] })
      old.signal('SIGCONT')
      const reply = await call(old.url, 'POST', '/automations/list', shop, { page_size: 1 })
      expect(reply.status).toBe(503)
      expect(JSON.parse(reply.text)).toEqual({ error: expect.stringMatching(/^The shared state store lost twin 'taken' \(.+\) and another twin was created under its name meanwhile; this replica cannot restore it: its operator restarts it/) })
      expect((await call(old.url, 'POST', '/automations/list', shop, { page_size: 1 })).status).toBe(503)
      expect(linesOf(old).filter((l) => /another twin was created under the name meanwhile/.test(l))).toHaveLength(1)
      expect(await metricsOf(old)).toMatchObject({ twin_orphaned: true, twin_restores: 0 })
      // The new twin is untouched: seed 7's.
      expect(linesOf(other).filter((l) => /lost the twin/.test(l))).toEqual([])
      expect((await call(other.url, 'GET', '/health', undefined)).status).toBe(200)
    } finally {
      await Promise.all([old.stop(), other?.stop()])
      await own.stop()
    }
  })
})

describe('restores that cannot be whole', () => {
  const DROPPED = /^shoptwin: replica (\w+) of twin 'dropped': the shared store unix:\/\/\S+ lost the twin \((.+)\): restarted without persistence, flushed \(FLUSHALL\/FLUSHDB\), its keys evicted \(maxmemory-policy\) or deleted, or failed over to an empty replica\. This replica cannot restore it \(its copy of the log was dropped past SHOPTWIN_RESTORE_MAX_MB\); its requests get 503 until another replica that kept its copy restores the twin \(this one then rebuilds from it\) or it is restarted, which creates the twin anew\. To do: /
  const REJOINED = /^shoptwin: replica \w+ of twin 'dropped': the twin is back in the shared store unix:\/\/\S+, restored by another replica from this twin's log \(head \d+, generation \d+\): this replica rebuilds from it and serves again\. To do: /
  const KEEPS_NONE = /^shoptwin: replica \w+ of twin 'dropped' keeps no copy of the twin's log past [\d.]+ MB \(SHOPTWIN_RESTORE_MAX_MB [\d.]+\): should the store lose the twin, this replica cannot restore it \(another replica may\)$/

  it('a replica whose copy of the log went past SHOPTWIN_RESTORE_MAX_MB says so once; when the store loses the twin it restores nothing, says so in one line, and answers 503 {error}; once a replica that kept its copy restores the twin, it rebuilds from it and serves it again, without a restart (one line)', async () => {
    const own = await ownRedis({ persistence: false })
    // One replica's bound is one write's entries (a keyed write logs its operation and its record: more than 1 KB).
    const [dropped, keeper] = await startReplicas(2, { store: own.url, twin: 'dropped', args: ARGS }, (i): Record<string, string> => (i === 0 ? { SHOPTWIN_RESTORE_MAX_MB: '0.001' } : {}))
    let restarted: Replica | undefined
    try {
      const shop = firstShop(dropped!)
      const first = await keyedCreate(dropped!.url, shop, 'dropped-0')
      expect(first.status, first.text).toBe(201)
      // (A replica's lines reach this process beside its answers, not before them.)
      await expect.poll(() => linesOf(dropped!).filter((l) => KEEPS_NONE.test(l)).length).toBe(1)
      expect(linesOf(keeper!).filter((l) => / keeps no copy /.test(l))).toEqual([])
      expect(await metricsOf(dropped!)).toMatchObject({ restore_copy_bytes: null, restore_copy_entries: 2, twin_orphaned: false })
      expect(await metricsOf(keeper!)).toMatchObject({ restore_copy_bytes: expect.any(Number), restore_copy_entries: 2 })
      // A second write past the bound: said once, not again.
      expect((await keyedCreate(keeper!.url, shop, 'dropped-1')).status).toBe(201)
      await expect.poll(async () => (await metricsOf(dropped!)).restore_copy_entries).toBe(4)
      expect(linesOf(dropped!).filter((l) => / keeps no copy /.test(l))).toHaveLength(1)

      // The keeper is stopped, so the replica without a copy is the one that finds the loss.
      keeper!.signal('SIGSTOP')
      await redisCommand(own.socket, 'FLUSHALL')
      const refused = await call(dropped!.url, 'POST', '/automations/list', shop, { page_size: 1 })
      expect({ status: refused.status, body: JSON.parse(refused.text) as unknown }).toEqual({
        status: 503,
        body: { error: expect.stringMatching(/^The shared state store lost twin 'dropped' \(.+\) and this replica kept no copy of its log to restore it \(past SHOPTWIN_RESTORE_MAX_MB\); it serves again once a replica that kept its copy restores the twin, or its operator restarts the replicas/) },
      })
      // It wrote nothing: the store still lacks the twin (it did not start a fresh one under the name).
      expect(await redisCommand(own.socket, 'EXISTS', 'st:{tw:dropped}:cfg', 'st:{tw:dropped}:log', 'st:{tw:dropped}:head')).toBe(':0\r\n')
      await expect.poll(() => linesOf(dropped!).filter((l) => DROPPED.test(l)).length).toBe(1)
      expect(await metricsOf(dropped!)).toMatchObject({ twin_orphaned: true, twin_losses: 1, twin_restores: 0, restore_copy_bytes: null })

      // The keeper restores the twin; the replica without a copy rebuilds from it at its next request, and serves it.
      keeper!.signal('SIGCONT')
      await expect.poll(async () => (await call(keeper!.url, 'POST', '/automations/list', shop, { page_size: 1 })).status, { timeout: 30_000 }).toBe(200)
      expect((await automationTitles(keeper!.url, shop, 'dropped-')).sort()).toEqual(['dropped-0', 'dropped-1'])
      await expect.poll(() => countIn([keeper!], RESTORED)).toBe(1)
      // The replica without a copy answered the keeper's ask: its ids are among those the counters go past.
      expect(linesOf(keeper!).find((l) => RESTORED.test(l))).toMatch(/\(the highest this replica and 1 other knew of\)/)
      for (const path of ['/automations/list', '/dashboards/list']) expect((await call(dropped!.url, 'POST', path, shop, { page_size: 1 })).status).toBe(200)
      expect(linesOf(dropped!).filter((l) => / lost the twin /.test(l)), linesOf(dropped!).join('\n')).toHaveLength(1)
      await expect.poll(() => linesOf(dropped!).filter((l) => REJOINED.test(l)).length).toBe(1)
      expect(await metricsOf(dropped!)).toMatchObject({ twin_orphaned: false })
      // It serves the twin the store holds: every earlier write, a retry replayed byte for byte, a new write seen by both.
      expect((await automationTitles(dropped!.url, shop, 'dropped-')).sort()).toEqual(['dropped-0', 'dropped-1'])
      const retry = await keyedCreate(dropped!.url, shop, 'dropped-0')
      expect({ status: retry.status, text: retry.text, replayed: retry.replayed }).toEqual({ status: first.status, text: first.text, replayed: 'true' })
      expect((await keyedCreate(dropped!.url, shop, 'dropped-2')).status).toBe(201)
      for (const r of [dropped!, keeper!]) expect((await automationTitles(r.url, shop, 'dropped-')).sort()).toEqual(['dropped-0', 'dropped-1', 'dropped-2'])

      // Restarted, it serves the twin the store holds too.
      await dropped!.stop()
      restarted = await startReplica({ store: own.url, twin: 'dropped', args: ARGS })
      expect((await automationTitles(restarted.url, shop, 'dropped-')).sort()).toEqual(['dropped-0', 'dropped-1', 'dropped-2'])
    } finally {
      await Promise.all([dropped?.stop(), keeper?.stop(), restarted?.stop()])
      await own.stop()
    }
  })

  it('a replica without its copy, after the store lost the twin, finds another twin created under the name (not a restore): it goes on refusing, 503 {error} saying why, one line', async () => {
    const own = await ownRedis({ persistence: false })
    const dropped = await startReplica({ store: own.url, twin: 'dropped', args: ARGS, env: { SHOPTWIN_RESTORE_MAX_MB: '0.001' } })
    let other: Replica | undefined
    try {
      const shop = firstShop(dropped)
      expect((await keyedCreate(dropped.url, shop, 'dropped-0')).status).toBe(201)
      await redisCommand(own.socket, 'FLUSHALL')
      expect((await call(dropped.url, 'POST', '/automations/list', shop, { page_size: 1 })).status).toBe(503)
      await expect.poll(() => linesOf(dropped).filter((l) => DROPPED.test(l)).length).toBe(1)
      other = await startReplica({ store: own.url, twin: 'dropped', args: [...ARGS, '--seed', '7'] })
      const reply = await call(dropped.url, 'POST', '/automations/list', shop, { page_size: 1 })
      expect({ status: reply.status, body: JSON.parse(reply.text) as unknown }).toEqual({ status: 503, body: { error: expect.stringMatching(/^The shared state store lost twin 'dropped' and another twin was created under its name since \(not a restore of this one\); this replica does not serve it/) } })
      expect((await call(dropped.url, 'POST', '/dashboards/list', shop, {})).status).toBe(503)
      await expect.poll(() => linesOf(dropped).filter((l) => / holds another twin under the name now \(other settings: created anew, not a restore of this one\), so this replica goes on refusing/.test(l)).length).toBe(1)
      expect(await metricsOf(dropped)).toMatchObject({ twin_orphaned: true })
      expect((await call(other.url, 'GET', '/health', undefined)).status).toBe(200)
    } finally {
      await Promise.all([dropped.stop(), other?.stop()])
      await own.stop()
    }
  })

  const OVERTAKEN = /^shoptwin: replica (\w+) of twin 'overtaken': the shared store unix:\/\/\S+ lost the twin \((.+)\); another replica restored it with less, and it was written since \(head (\d+)\): the (\d+) entries this replica had past it are lost; it rebuilds from the store's log\. To do: /

  // Written on past the restore: fewer entries than the replica that had more had past it (the store's head is behind its own),
  // or as many (the head looks whole to it; the entry at its last is another).
  it.each([
    ['one write', 1, 4, "its log's head is 4, behind the 6 entries this replica applied"],
    ['two writes, as many entries as it had past the restored log', 2, 6, "its log's entry 6 is not the one this replica applied there"],
  ])("a replica that restored with less, then %s on it: a replica that had more finds its extra entries overwritten, says how many are lost, and serves the store's twin (the lost writes gone, the later ones there)", async (_, writesAfter, head, why) => {
    const own = await ownRedis({ persistence: false })
    const [less, more] = await startReplicas(2, { store: own.url, twin: 'overtaken', args: ARGS })
    try {
      const shop = firstShop(less!)
      expect((await keyedCreate(less!.url, shop, 'overtaken-0')).status).toBe(201)
      await expect.poll(async () => (await metricsOf(more!)).restore_copy_entries).toBe(2)
      // `less` stopped: it does not hear of the next two writes, which only `more` holds.
      less!.signal('SIGSTOP')
      const lost = [await keyedCreate(more!.url, shop, 'overtaken-1'), await keyedCreate(more!.url, shop, 'overtaken-2')]
      expect(lost.map((r) => r.status)).toEqual([201, 201])
      expect(await metricsOf(more!)).toMatchObject({ restore_copy_entries: 6 })
      // `more` stopped too; the store loses the twin; `less` goes on, restores what it had, and writes land on it.
      more!.signal('SIGSTOP')
      await redisCommand(own.socket, 'FLUSHALL')
      less!.signal('SIGCONT')
      const later = Array.from({ length: writesAfter }, (_, i) => `overtaken-${3 + i}`)
      for (const key of later) {
        let after: Reply = { status: 0, text: '' }
        for (let attempt = 0; attempt < 20 && after.status !== 201; attempt++) after = await keyedCreate(less!.url, shop, key)
        expect(after.status, after.text).toBe(201)
      }
      await expect.poll(() => countIn([less!], RESTORED)).toBe(1)
      expect(await metricsOf(less!)).toMatchObject({ log_head: head, twin_restores: 1 })

      // `more` goes on: the store's log parted from its own after entry 2; its 4 entries past it (two writes) are lost.
      more!.signal('SIGCONT')
      await expect.poll(() => linesOf(more!).filter((l) => OVERTAKEN.test(l)).length, { timeout: 15_000 }).toBe(1)
      const said = OVERTAKEN.exec(linesOf(more!).find((l) => OVERTAKEN.test(l))!)!
      expect({ why: said[2], head: said[3], lost: said[4] }).toEqual({ why, head: String(head), lost: '4' })
      // Both serve the store's twin: the write before the loss and those after; the two `more` alone held are gone.
      for (const r of [less!, more!]) {
        await expect.poll(async () => (await call(r.url, 'POST', '/automations/list', shop, { page_size: 1 })).status, { timeout: 15_000 }).toBe(200)
        expect((await automationTitles(r.url, shop, 'overtaken-')).sort(), r.url).toEqual(['overtaken-0', ...later])
      }
      expect(await metricsOf(more!)).toMatchObject({ twin_orphaned: false, twin_restores: 0, log_head: head, applied: head, restore_copy_entries: head })
      // Its later writes go on from the store's log; a key of a lost write runs again (its record went with it).
      const again = await keyedCreate(more!.url, shop, 'overtaken-1')
      expect({ status: again.status, replayed: again.replayed }).toEqual({ status: 201, replayed: null })
      for (const r of [less!, more!]) expect((await automationTitles(r.url, shop, 'overtaken-')).sort()).toEqual(['overtaken-0', 'overtaken-1', ...later])
      expect(linesOf(more!).filter((l) => / lost (part of )?the twin /.test(l))).toHaveLength(1)
    } finally {
      await Promise.all([less?.stop(), more?.stop()])
      await own.stop()
    }
  })
})

describe('the ids a twin hands out, across a loss of the store', () => {
  /** The ids of what a replica lists (journal entries by `GET /__admin/requests`, activity entries by `GET /account/activity`). */
  const journalIds = async (r: Replica) => (JSON.parse((await call(r.url, 'GET', '/__admin/requests', undefined)).text) as { requests: Array<{ id: number }> }).requests.map((e) => e.id)
  const activityIds = async (r: Replica, shop: string) => (JSON.parse((await call(r.url, 'GET', '/account/activity?page_size=100', shop)).text) as { data: Array<{ id: number }> }).data.map((e) => e.id)
  /** `n` reads on a replica, 16 at a time; their trace ids. */
  const reads = async (r: Replica, shop: string, n: number) => {
    const traces: string[] = []
    for (let i = 0; i < n; i += 16) {
      const replies = await Promise.all(Array.from({ length: Math.min(16, n - i) }, () => call(r.url, 'POST', '/automations/list', shop, { page_size: 1 })))
      for (const reply of replies) {
        expect(reply.status, reply.text).toBe(200)
        traces.push(reply.trace!)
      }
    }
    return traces
  }
  const counterOf = async (redis: TestRedis, name: string) => Number(/^\$\d+\r\n(\d+)\r\n$/.exec(await redisCommand(redis.socket, 'GET', `st:{tw:ids}:${name}`))?.[1] ?? 0)
  const PART = /^shoptwin: replica (\w+) of twin 'ids': the shared store unix:\/\/\S+ lost part of the twin \((its (trace|journal|activity) ids counter is \d+, behind the \d+ this replica saw)\): .*Its log was whole \(head \d+\); this replica wrote back (.+) \(the highest this replica and 1 other knew of\)\. To do: /

  it("trace, journal and activity ids go on past every replica's after the store lost the twin, though the replica that restores it never saw the last ones (another's); a replica that did not answer moves the counters past its own when it finds them behind, and says so", async () => {
    const own = await ownRedis({ persistence: false })
    const [a, b] = await startReplicas(2, { store: own.url, twin: 'ids', args: ARGS })
    try {
      const shop = firstShop(a!)
      // A write, so the twin has a log to restore.
      const write = await keyedCreate(a!.url, shop, 'ids-0')
      expect(write.status, write.text).toBe(201)
      const traces = [write.trace!, ...(await reads(a!, shop, 19))]
      expect(await journalIds(a!)).toHaveLength(20)
      // `a` stopped: the ids `b` numbers next are ones it never sees (nor reads in the store: it looks each second).
      a!.signal('SIGSTOP')
      traces.push(...(await reads(b!, shop, 40)))
      const journalBefore = await journalIds(b!)
      const activityBefore = await activityIds(b!, shop)
      expect(journalBefore).toHaveLength(60)
      expect(activityBefore.length).toBeGreaterThanOrEqual(60)
      await expect.poll(async () => (await metricsOf(b!)).append_pending).toBe(0)
      // Right after `b` looked at the store: `a`, continued, finds the loss first and restores the twin.
      await afterProbe(b!)
      await redisCommand(own.socket, 'FLUSHALL')
      a!.signal('SIGCONT')
      traces.push(...(await reads(a!, shop, 1)))
      // (Its line reaches this process beside its answer, not before it.)
      await expect.poll(() => countIn([a!, b!], RESTORED)).toBe(1)
      const restored = linesOf(a!).filter((l) => RESTORED.test(l))
      expect(restored, `${linesOf(a!).join('\n')}\n${linesOf(b!).join('\n')}`).toHaveLength(1)
      expect(restored[0]).toMatch(/\(the highest this replica and 1 other knew of\)/)
      expect(countIn([b!], RESTORED)).toBe(0)
      // The counters are past the last ids `b` gave out before the loss, with the twin.
      expect(await counterOf(own, 'journal:id')).toBeGreaterThanOrEqual(Math.max(...journalBefore))
      expect(await counterOf(own, 'activity:id')).toBeGreaterThanOrEqual(Math.max(...activityBefore))

      // New entries on both are numbered past every one before the loss.
      traces.push(...(await reads(a!, shop, 10)), ...(await reads(b!, shop, 10)))
      const journalAfter = await journalIds(a!)
      const activityAfter = await activityIds(b!, shop)
      expect(journalAfter.length).toBeGreaterThanOrEqual(20)
      expect(Math.min(...journalAfter)).toBeGreaterThan(Math.max(...journalBefore))
      expect(Math.min(...activityAfter)).toBeGreaterThan(Math.max(...activityBefore))
      // Past a block of trace ids (1,024): a replica takes its next block from the counter the restore set.
      traces.push(...(await reads(a!, shop, 1100)))
      expect(traces.length - new Set(traces).size, 'trace ids given twice').toBe(0)
      expect((await metricsOf(a!)).traces_unshared).toBe(0)

      // Once more, `b` stopped too before the loss: it cannot answer, and the line says whose ids may repeat.
      a!.signal('SIGSTOP')
      await reads(b!, shop, 30)
      const journalOfB = Math.max(...(await journalIds(b!)))
      await expect.poll(async () => (await metricsOf(b!)).append_pending).toBe(0)
      const bId = String((await metricsOf(b!)).replica)
      b!.signal('SIGSTOP')
      await redisCommand(own.socket, 'FLUSHALL')
      a!.signal('SIGCONT')
      await reads(a!, shop, 1)
      await expect.poll(() => countIn([a!], RESTORED)).toBe(2)
      expect(linesOf(a!).filter((l) => RESTORED.test(l))[1]).toContain(`; 1 heard from lately did not answer (${bId}): ids it gave out past these may be given again)`)
      // Continued, `b` finds the journal's counter behind the last id it saw, and moves it past.
      b!.signal('SIGCONT')
      await expect.poll(() => linesOf(b!).filter((l) => PART.test(l)).length, { timeout: 15_000 }).toBe(1)
      const part = PART.exec(linesOf(b!).find((l) => PART.test(l))!)!
      expect(part[1]).toBe(bId)
      expect(part[4]).toMatch(/the journal ids counter \(past \d+\)/)
      expect(await counterOf(own, 'journal:id')).toBeGreaterThanOrEqual(journalOfB)
      expect(countIn([a!, b!], RESTORED)).toBe(2)
    } finally {
      await Promise.all([a?.stop(), b?.stop()])
      await own.stop()
    }
  })
})

describe("a replica never answers from, nor commits on, a log the store no longer has", () => {
  const OVERTAKEN_EPOCH = /^shoptwin: replica \w+ of twin 'epoch': the shared store unix:\/\/\S+ lost the twin \((.+)\); another replica restored it with less, and it was written since \(head (\d+)\): the (\d+) entries this replica had past it are lost; it rebuilds from the store's log\. To do: /
  const entryAt = async (redis: TestRedis, seq: number) => redisCommand(redis.socket, 'XRANGE', 'st:{tw:epoch}:log', `${seq}-0`, `${seq}-0`)

  it("overtaken by a shorter restore written on to its own head, with the same entry at its last (its look each second sees nothing amiss): its first read and its first write after it goes on are the store's twin, not its own (the log's epoch, read in the same round trip)", async () => {
    const own = await ownRedis({ persistence: false })
    const [less, more] = await startReplicas(2, { store: own.url, twin: 'epoch', args: ARGS })
    try {
      const shop = firstShop(less!)
      // A frozen clock: the same write on the same twin makes the same entries.
      expect((await call(less!.url, 'POST', '/__admin/clock', undefined, { now: FROZEN })).status).toBe(200)
      expect((await keyedCreate(less!.url, shop, 'epoch-0')).status).toBe(201)
      const base = Number((await metricsOf(less!)).restore_copy_entries)
      await expect.poll(async () => (await metricsOf(more!)).restore_copy_entries).toBe(base)
      less!.signal('SIGSTOP')
      // `more` alone holds `epoch-a` then `epoch-b`.
      for (const key of ['epoch-a', 'epoch-b']) expect((await keyedCreate(more!.url, shop, key)).status).toBe(201)
      const head = Number((await metricsOf(more!)).restore_copy_entries)
      const last = await entryAt(own, head)
      more!.signal('SIGSTOP')
      await redisCommand(own.socket, 'FLUSHALL')
      less!.signal('SIGCONT')
      // `less` restores what it had, then `epoch-c` and `epoch-b` land on it: the log is as long as `more`'s, with the same last entry.
      for (const key of ['epoch-c', 'epoch-b']) {
        let reply: Reply = { status: 0, text: '' }
        for (let attempt = 0; attempt < 20 && reply.status !== 201; attempt++) reply = await keyedCreate(less!.url, shop, key)
        expect(reply.status, reply.text).toBe(201)
      }
      expect(await metricsOf(less!)).toMatchObject({ log_head: head, twin_restores: 1 })
      expect(await entryAt(own, head), 'the entry at its last, as more applied it').toBe(last)

      more!.signal('SIGCONT')
      // At once, a read, then a write: the store's twin (`epoch-a` is gone), never `more`'s own.
      expect((await automationTitles(more!.url, shop, 'epoch-')).sort()).toEqual(['epoch-0', 'epoch-b', 'epoch-c'])
      const write = await keyedCreate(more!.url, shop, 'epoch-d')
      expect(write.status, write.text).toBe(201)
      for (const r of [less!, more!]) expect((await automationTitles(r.url, shop, 'epoch-')).sort(), r.url).toEqual(['epoch-0', 'epoch-b', 'epoch-c', 'epoch-d'])
      await expect.poll(() => linesOf(more!).filter((l) => OVERTAKEN_EPOCH.test(l)).length).toBe(1)
      const said = OVERTAKEN_EPOCH.exec(linesOf(more!).find((l) => OVERTAKEN_EPOCH.test(l))!)!
      expect({ head: said[2], lost: said[3] }).toEqual({ head: String(head), lost: String(head - base) })
      expect(await metricsOf(more!)).toMatchObject({ log_head: head + 2, applied: head + 2, twin_restores: 0 })
    } finally {
      await Promise.all([less?.stop(), more?.stop()])
      await own.stop()
    }
  })
})

describe('the store loses some of the twin\'s keys: nothing the twin numbers goes back, its replicas agree', () => {
  const KEYS = ['cfg', 'head', 'log', 'gen', 'epoch', 'trace:ids', 'journal:id', 'activity:id']
  const cases = [...KEYS.map((k) => [k]), ...KEYS.flatMap((k, i) => KEYS.slice(i + 1).map((l) => [k, l]))]
  const valueOf = async (redis: TestRedis, twin: string, key: string) => Number(/^\$\d+\r\n(\d+)\r\n$/.exec(await redisCommand(redis.socket, 'GET', `st:{tw:${twin}}:${key}`))?.[1] ?? 0)
  const marks = async (redis: TestRedis, twin: string) => Object.fromEntries(await Promise.all(['head', 'gen', 'trace:ids', 'journal:id', 'activity:id'].map(async (k) => [k, await valueOf(redis, twin, k)] as const)))

  it(`each key alone and each pair (${cases.length} losses, one after another, under two replicas): the replicas serve the same twin after, and the head, the generation and the id counters are never behind what they were`, async () => {
    const own = await ownRedis({ persistence: false })
    const replicas = await startReplicas(2, { store: own.url, twin: 'part', args: ARGS })
    try {
      const shop = firstShop(replicas[0]!)
      // A reset, so the generation is 1 (a generation lost is then seen).
      expect((await call(replicas[1]!.url, 'POST', '/__admin/reset', undefined, {})).status).toBe(200)
      const written: string[] = []
      for (const [n, lost] of cases.entries()) {
        const what = lost.join(' and ')
        const key = `part-${n}`
        let reply: Reply = { status: 0, text: '' }
        for (let attempt = 0; attempt < 20 && reply.status !== 201; attempt++) reply = await keyedCreate(replicas[n % 2]!.url, shop, key)
        expect(reply.status, `${what}: ${reply.text}`).toBe(201)
        written.push(key)
        for (const r of replicas) expect((await automationTitles(r.url, shop, 'part-')).sort(), what).toEqual([...written].sort())
        await expect.poll(async () => (await metricsOf(replicas[(n + 1) % 2]!)).append_pending).toBe(0)
        await expect.poll(async () => (await metricsOf(replicas[n % 2]!)).append_pending).toBe(0)
        const before = await marks(own, 'part')
        await redisCommand(own.socket, 'DEL', ...lost.map((k) => `st:{tw:part}:${k}`))
        // Each replica answers the twin as it was (a read, then a keyed write on the other).
        for (const r of replicas) await expect.poll(async () => (await call(r.url, 'POST', '/automations/list', shop, { page_size: 1 })).status, { timeout: 15_000 }).toBe(200)
        const after = `part-${n}-after`
        reply = { status: 0, text: '' }
        for (let attempt = 0; attempt < 20 && reply.status !== 201; attempt++) reply = await keyedCreate(replicas[(n + 1) % 2]!.url, shop, after)
        expect(reply.status, `${what}: ${reply.text}`).toBe(201)
        written.push(after)
        for (const r of replicas) expect((await automationTitles(r.url, shop, 'part-')).sort(), `${what}: ${r.url}`).toEqual([...written].sort())
        // Both at the store's head, in the same generation; nothing the twin numbers behind what it was.
        await expect.poll(async () => (await Promise.all(replicas.map(metricsOf))).map((m) => [m.applied === m.log_head, m.generation]), { timeout: 15_000 }).toEqual([[true, before.gen], [true, before.gen]])
        // A counter lost alone is found by a replica's look each second (nothing is numbered on it meanwhile).
        await expect.poll(async () => Object.entries(await marks(own, 'part')).filter(([k, v]) => v < before[k]!), { timeout: 15_000 }).toEqual([])
      }
    } finally {
      await Promise.all(replicas.map((r) => r.stop()))
      await own.stop()
    }
  })

  it("a replica that missed a reset restores the twin after the log key alone was lost (the one that had it stopped): the generation does not go back, and once the other goes on both serve its log", async () => {
    const own = await ownRedis({ persistence: false })
    const [behind, ahead] = await startReplicas(2, { store: own.url, twin: 'gen', args: ARGS })
    try {
      const shop = firstShop(behind!)
      expect((await keyedCreate(behind!.url, shop, 'gen-0')).status).toBe(201)
      behind!.signal('SIGSTOP')
      expect((await call(ahead!.url, 'POST', '/__admin/reset', undefined, {})).status).toBe(200)
      expect((await keyedCreate(ahead!.url, shop, 'gen-1')).status).toBe(201)
      const gen = Number((await metricsOf(ahead!)).generation)
      expect(gen).toBe(1)
      ahead!.signal('SIGSTOP')
      await redisCommand(own.socket, 'DEL', 'st:{tw:gen}:log')
      behind!.signal('SIGCONT')
      // No request first: it finds the loss by what it hears and looks at (a request would read the generation first).
      await expect.poll(() => countIn([behind!], RESTORED), { timeout: 15_000 }).toBe(1)
      await expect.poll(async () => (await call(behind!.url, 'POST', '/automations/list', shop, { page_size: 1 })).status, { timeout: 15_000 }).toBe(200)
      expect(Number(/^\$\d+\r\n(\d+)\r\n$/.exec(await redisCommand(own.socket, 'GET', 'st:{tw:gen}:gen'))?.[1] ?? 0), 'the store\'s generation').toBeGreaterThanOrEqual(gen)
      expect(Number((await metricsOf(behind!)).generation)).toBeGreaterThanOrEqual(gen)
      ahead!.signal('SIGCONT')
      // `ahead` writes its longer log over the shorter (its own beginning): the reset and gen-1 are there on both.
      for (const r of [behind!, ahead!]) {
        await expect.poll(async () => (await automationTitles(r.url, shop, 'gen-')).sort(), { timeout: 15_000 }).toEqual(['gen-1'])
        await expect.poll(async () => (await metricsOf(r)).generation).toBeGreaterThanOrEqual(gen)
      }
    } finally {
      await Promise.all([behind?.stop(), ahead?.stop()])
      await own.stop()
    }
  })
})

describe('trace ids, while the store is away', () => {
  it("a replica that runs past its block of trace ids while the store is away numbers where no other replica does: no trace id is given twice across the replicas once the store is back", async () => {
    const own = await ownRedis()
    const [away, other] = await startReplicas(2, { store: own.url, twin: 'traceids', args: ARGS })
    try {
      const shop = firstShop(away!)
      await own.stop({ remove: false })
      // More answers than its block (1,024 ids; its next could not be fetched): 503s, each with its trace id.
      const traces: string[] = []
      for (let i = 0; i < 1100; i += 25) {
        const replies = await Promise.all(Array.from({ length: 25 }, () => call(away!.url, 'POST', '/automations/list', shop, { page_size: 1 })))
        for (const reply of replies) {
          expect(reply.status).toBe(503)
          traces.push(reply.trace!)
        }
      }
      await own.restart()
      await expect.poll(async () => (await call(other!.url, 'POST', '/automations/list', shop, { page_size: 1 })).status, { timeout: 15_000 }).toBe(200)
      // The other replica numbers in its own block: the one after the first block, where the old numbering went on.
      for (let i = 0; i < 200; i += 25) {
        const replies = await Promise.all(Array.from({ length: 25 }, () => call(other!.url, 'POST', '/automations/list', shop, { page_size: 1 })))
        for (const reply of replies) traces.push(reply.trace!)
      }
      expect(traces.filter((t) => !t)).toEqual([])
      const twice = traces.filter((t, i) => traces.indexOf(t) !== i)
      expect(twice, 'trace ids given twice').toEqual([])
      expect((await metricsOf(away!)).traces_unshared).toBeGreaterThan(0)
    } finally {
      await Promise.all([away?.stop(), other?.stop()])
      await own.stop()
    }
  })
})
