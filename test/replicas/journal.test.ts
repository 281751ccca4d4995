/**
 * The request journal and the traces of one twin on three replicas, each a process of its own, behind
 * haproxy running the README's configuration, loaded from several processes (issue 23): every replica
 * lists every request (in the order each client sent them, as the README says), opens every trace, and
 * shows no secret, nor does Redis's append-only file; a DELETE on one empties all; a replica killed and
 * restarted reads the same journal; and the flush barrier: what a replica still holds in its batch is
 * read on another (the read waits for a stopped replica only up to its bound). `npm run test:replicas`.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { REDACTED, type JournalEntry } from '../../mock/stores/journal.ts'
import type { Trace, TraceSummary } from '../../mock/trace/types.ts'
import { NAMES, startTwinBehindHaproxy } from '../support/haproxy.ts'
import { redisCommand, startRedis, type TestRedis } from '../support/redis.ts'
import { call, count, DEMO_KEY, firstShop, load, type Replica, type Reply, startReplica } from '../support/replicas.ts'

let redis: TestRedis
beforeAll(async () => {
  redis = await startRedis()
})
afterAll(async () => {
  await redis?.stop()
})

/** Secrets every request carries beside the demo key: none may reach a journal, a trace or the store. */
const SECRETS = { authorization: 'Bearer t0ken-s3cret-journal', cookie: 'sid=c00kie-s3cret-journal' }
const leaks = (text: string) => [DEMO_KEY, 't0ken-s3cret', 'c00kie-s3cret'].filter((secret) => text.includes(secret))

const journalOf = async (base: string): Promise<{ text: string; entries: JournalEntry[] }> => {
  const reply = await call(base, 'GET', '/__admin/requests', undefined)
  expect(reply.status, reply.text).toBe(200)
  return { text: reply.text, entries: (JSON.parse(reply.text) as { requests: JournalEntry[] }).requests }
}
/**
 * A reader waits up to 10 s for the other replicas' flushes, not 1 s (SHOPTWIN_BARRIER_WAIT_MS): on a
 * loaded 2-core machine a replica may not be scheduled within a second, and these proofs are about
 * what the acks bring (every entry on every replica), not about the bound's length; the bound itself
 * is proven with a stopped replica, whose read ends when it passes.
 */
const PATIENT = { SHOPTWIN_BARRIER_WAIT_MS: '10000' }
const labelOf = (entry: JournalEntry) => entry.headers['x-load']
const metricsOf = async (replica: Replica) => JSON.parse((await call(replica.url, 'GET', '/__admin/metrics', undefined)).text) as Record<string, number>

/** Every replica's journal is the same text, and it lists exactly the labelled requests sent, each client's in the order it sent them. */
async function expectEveryJournal(replicas: Replica[], replies: Reply[]): Promise<JournalEntry[]> {
  const journals = await Promise.all(replicas.map((r) => journalOf(r.url)))
  for (const j of journals) expect(j.text).toBe(journals[0]!.text)
  const { text, entries } = journals[0]!
  const sent = replies.map((r) => r['x-load']!)
  expect(entries).toHaveLength(sent.length)
  expect(entries.map(labelOf).sort()).toEqual([...sent].sort())
  expect(new Set(entries.map((e) => e.id)).size).toBe(entries.length)
  // The status each client got is the one journaled.
  const statusOf = new Map(replies.map((r) => [r['x-load']!, r.status]))
  for (const e of entries) expect(e.status, labelOf(e)).toBe(statusOf.get(labelOf(e)!))
  // Each load process sent one request after another: the journal lists them in that order, whichever replica got each.
  const byClient = new Map<string, number[]>()
  for (const e of entries) {
    const [label, process, n] = labelOf(e)!.split('-')
    const client = `${label}-${process}`
    byClient.set(client, [...(byClient.get(client) ?? []), Number(n)])
  }
  for (const [client, ns] of byClient) expect(ns, client).toEqual([...ns].sort((x, y) => x - y))
  expect(leaks(text)).toEqual([])
  for (const e of entries) expect(e.headers.authorization).toBe(REDACTED)
  return entries
}

/** The console's live feed (`/__admin/console/events`, server-sent events) of a replica, read as it comes. */
function openFeed(base: string) {
  const controller = new AbortController()
  let text = ''
  const reading = (async () => {
    const response = await fetch(`${base}/__admin/console/events`, { signal: controller.signal })
    const reader = response.body!.getReader()
    const decoder = new TextDecoder()
    // Terminates: the stream ends when the feed is closed (aborted).
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return
      text += decoder.decode(value, { stream: true })
    }
  })().catch(() => {})
  return {
    text: () => text,
    async close() {
      controller.abort()
      await reading
    },
  }
}

describe('the journal and the traces across three replica processes behind haproxy (issue 23)', () => {
  it(`${count(300)} requests from 6 load processes: every replica lists each one in its client's order and opens every trace, one replica's console feed shows them all, no secret anywhere (the AOF too); a DELETE on one empties all; a replica killed (SIGKILL) and restarted sees the journal`, async () => {
    const t = await startTwinBehindHaproxy({ store: redis.url, name: 'journal', args: ['--rate-limit', 'off'], env: PATIENT })
    const all = () => Object.values(t.replicas)
    try {
      // haproxy's health checks are requests too (GET /health on each replica each second): paused, so
      // the journal holds only what the load sent.
      for (const n of NAMES) expect(await t.haproxy.command(`disable health replicas/${n}`)).toBe('\n')
      // A check already on its way when they stopped lands before this clear, or is cleared by the next.
      await expect.poll(async () => (await call(t.haproxy.url, 'DELETE', '/__admin/requests', undefined), (await journalOf(t.replicas.a.url)).entries.length), { timeout: 10_000 }).toBe(0)
      // The console's live feed open on c while the load goes through haproxy.
      const feed = openFeed(t.replicas.c.url)

      // Three kinds of request (two answers, a refusal), each from two processes sending one after another
      // through haproxy. GETs: an unkeyed POST that haproxy sends on a pooled connection the replica is
      // closing at that instant gets its client connection closed with no answer (haproxy's `http-reuse
      // safe` leaves the retry to the client), which fails the load process: not what this test is about.
      const job = (label: string, path: string, shop = t.shop) => load(2, { urls: [t.haproxy.url], method: 'GET', path, shop, count: count(100), headers: SECRETS, sequential: true, label })
      const replies = (await Promise.all([job('sps', '/shop/sps'), job('shops', '/account/shops'), job('bad', '/shop/sps', 'no-such-shop')])).flat()
      const refused = replies.find((r) => r['x-load']!.startsWith('bad'))!.status
      expect(refused).toBeGreaterThanOrEqual(400)
      expect(new Set(replies.map((r) => r.status))).toEqual(new Set([200, refused]))
      // haproxy spread them: every replica answered some (so each journal lists the others' requests).
      expect(new Set(replies.map((r) => r.replica))).toEqual(new Set(NAMES))

      await expectEveryJournal(all(), replies)

      // Every trace id, whichever replica answered it, opens on every replica: the same trace, the request it was.
      const traced = replies.filter((r) => r.trace)
      expect(traced).toHaveLength(replies.length)
      // The list too (with the health checks haproxy made before they were paused: the journal was cleared, the traces were not).
      const lists = await Promise.all(all().map(async (r) => (JSON.parse((await call(r.url, 'GET', '/__admin/traces', undefined)).text) as { traces: TraceSummary[] }).traces))
      for (const list of lists) expect(list).toEqual(lists[0])
      expect(lists[0]!.filter((s) => s.path !== '/health').map((s) => s.id).sort()).toEqual(traced.map((r) => r.trace!).sort())
      for (const reply of traced) {
        const opened = await Promise.all(all().map((r) => call(r.url, 'GET', `/__admin/traces/${reply.trace}`, undefined)))
        for (const o of opened) expect({ status: o.status, text: o.text }).toEqual({ status: 200, text: opened[0]!.text })
        const trace = JSON.parse(opened[0]!.text) as Trace
        expect(trace.request.headers['x-load']).toBe(reply['x-load'])
        expect(trace.response.status).toBe(reply.status)
        expect(trace.request.headers.authorization).toBe(REDACTED)
        expect(leaks(opened[0]!.text)).toEqual([])
      }

      // c's console feed showed every answer, whichever replica gave it.
      await expect.poll(() => traced.filter((r) => !feed.text().includes(`"id":"${r.trace}"`)).length, { timeout: 30_000 }).toBe(0)
      expect(leaks(feed.text())).toEqual([])
      await feed.close()

      // Redis's append-only file holds every command it applied (not rewritten: what was trimmed since is still there): the entries are there, their secrets are not.
      const dir = join(redis.dir, 'appendonlydir')
      const written = readdirSync(dir)
        .map((file) => readFileSync(join(dir, file), 'latin1'))
        .join('')
      expect(written).toContain(replies[0]!['x-load'])
      expect(written).toContain(REDACTED)
      expect(leaks(written)).toEqual([])

      // A replica killed with SIGKILL and started again (where haproxy expects it) reads the same journal.
      const gone = new Promise((r) => t.replicas.c.process.once('exit', r))
      t.replicas.c.signal('SIGKILL')
      await gone
      t.replicas.c = await startReplica({ store: redis.url, twin: t.name, args: t.args, env: t.env, port: Number(new URL(t.replicas.c.url).port) })
      expect((await journalOf(t.replicas.c.url)).text).toBe((await journalOf(t.replicas.a.url)).text)
      expect((await call(t.replicas.c.url, 'GET', `/__admin/traces/${traced[0]!.trace}`, undefined)).status).toBe(200)

      // A DELETE on one replica empties the journal of every replica; what comes next is listed on all.
      expect((await call(t.replicas.b.url, 'DELETE', '/__admin/requests', undefined)).status).toBe(200)
      for (const replica of all()) expect((await journalOf(replica.url)).entries).toEqual([])
      const after = await load(3, { urls: [t.haproxy.url], method: 'GET', path: '/shop/sps', shop: t.shop, count: count(30), headers: SECRETS, sequential: true, label: 'after' })
      await expectEveryJournal(all(), after)
    } finally {
      await t.stop()
    }
  })

  it('the barrier: what a replica still holds in its batch is read on another replica; a stopped replica holds that read only up to the bound', async () => {
    // Replica a holds its appends (journal, traces) until a reader asks for them: its batch waits 10 minutes, not 5 ms.
    const held = { ...PATIENT, SHOPTWIN_APPEND_DELAY_MS: '600000' }
    const a = await startReplica({ store: redis.url, twin: 'barrier', args: ['--rate-limit', 'off'], env: held })
    const [b, c] = await Promise.all([startReplica({ store: redis.url, twin: 'barrier', args: ['--rate-limit', 'off'], env: PATIENT }), startReplica({ store: redis.url, twin: 'barrier', args: ['--rate-limit', 'off'], env: PATIENT })])
    const shop = firstShop(a)
    const send = async (label: string) => {
      const reply = await call(a.url, 'GET', '/shop/sps', shop, undefined, { ...SECRETS, 'x-load': label })
      expect(reply.status).toBe(200)
      return { ...reply, 'x-load': label }
    }
    try {
      const sent: Array<Reply & { 'x-load': string }> = []
      for (let i = 0; i < 5; i++) sent.push(await send(`held-0-${i}`))
      // Still in a's batch: 5 journal entries and 5 traces (and a's head reports), none flushed.
      const before = await metricsOf(a)
      expect(before.append_pending).toBeGreaterThanOrEqual(10)
      expect(before.append_flushes).toBe(0)
      expect(await redisCommand(redis.socket, 'LLEN', 'st:{tw:barrier}:g0:journal')).toBe(':0\r\n')

      // Read on b: b asks every replica for what it holds, and waits for their answers (no timeout).
      await expectEveryJournal([b], sent)
      expect(await metricsOf(b)).toMatchObject({ barriers: 1, barrier_timeouts: 0 })
      // a sent its batch to the store (a head report its watch queued since may wait in the next one: not asserted on append_pending).
      expect(await redisCommand(redis.socket, 'LLEN', 'st:{tw:barrier}:g0:journal')).toBe(':5\r\n')

      // A trace a still holds opens on c.
      const trace = (await send('held-0-5')).trace!
      const opened = await call(c.url, 'GET', `/__admin/traces/${trace}`, undefined)
      expect(opened.status, opened.text).toBe(200)
      expect((JSON.parse(opened.text) as Trace).request.headers['x-load']).toBe('held-0-5')
      expect(await metricsOf(c)).toMatchObject({ barrier_timeouts: 0 })

      // c stopped (SIGSTOP) cannot answer: a read on b waits for it only up to the bound, then answers
      // with what the others sent (a's held entry included).
      c.signal('SIGSTOP')
      try {
        await send('held-0-6')
        await send('held-0-7')
        const started = performance.now()
        const entries = (await journalOf(b.url)).entries
        const waited = performance.now() - started
        expect(entries.map(labelOf)).toEqual(Array.from({ length: 8 }, (_, i) => `held-0-${i}`))
        expect(await metricsOf(b)).toMatchObject({ barrier_timeouts: 1 })
        console.log(`the read on b with c stopped took ${waited.toFixed(0)} ms (the barrier's bound here: ${PATIENT.SHOPTWIN_BARRIER_WAIT_MS} ms)`)
      } finally {
        c.signal('SIGCONT')
      }
    } finally {
      await Promise.all([a.stop(), b.stop(), c.stop()])
    }
  })
})
