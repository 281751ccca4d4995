/**
 * `npm run bench:store` (and the `store` section of `npm run bench`): one replica on Redis against the
 * in-memory twin, in one run on one machine (the load generator, Redis and the replica share its
 * cores). Ratios, not absolute times:
 *   - cached and uncached reads, and a keyed write: req/s and p50 of `--store` vs in-memory;
 *   - the store round trips a read costs when nothing changed (Redis's own command counters);
 *   - the startup of a replica that replays 10,000 logged writes.
 * Goals (issue 23): reads ≥ 0.5 of in-memory req/s; write p50 at most 1 ms above in-memory; startup
 * with 10,000 logged writes ready within 5 s. Only loopback and a unix socket are used.
 */
// The tests' own redis-server on a unix socket in a temp dir (Debian's, as .ci/run installs it).
import { redisCommand, startRedis } from '../test/support/redis.ts'
import { Agent, request } from 'node:http'
import { paced } from './paced.ts'
import { API_KEY, bodyOf, headersFor, load, start, stop, type Operation, type Target } from './targets.ts'

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const logged = Number(process.env.BENCH_LOGGED_WRITES ?? 10_000)

export async function sharedStoreBench(): Promise<void> {
  const redis = await startRedis()
  console.log(`\n## One replica on Redis vs in-memory (${connections} connections unless said, ${duration} s per run)\n`)
  try {
    const memory = await start('shoptwin')
    const shared = await start('shoptwin', ['--store', redis.url, '--twin', 'bench'])
    const memoryUncached = await start('uncached')
    const sharedUncached = await start('uncached', ['--store', redis.url, '--twin', 'bench-uncached'])
    const shopId = ((await (await fetch(`${memory.url}/account/shops`, { headers: { 'x-api-key': API_KEY } })).json()) as { data: Array<{ shop_id: string }> }).data[0]!.shop_id
    const crm: Operation = { name: 'POST /affiliate/crm/list (50)', method: 'POST', path: '/affiliate/crm/list', body: { page_size: 50, page_number: 1 } }
    const write: Operation = {
      name: 'POST /automations/create (keyed write)',
      method: 'POST',
      path: '/automations/create',
      body: { title: 'bench', message_type: 'dm', outreach_audience: { type: 'new_affiliates' }, dm_messages: [{ type: 'text', content: 'Hi' }] },
      freshIdempotencyKey: true,
    }
    // At 50 connections a p50 is mostly the queue (connections / req/s); at one connection it is what one request costs.
    const rows: Array<[string, Target, Target, Operation, number]> = [
      ['cached read', memory, shared, crm, connections],
      ['uncached read', memoryUncached, sharedUncached, crm, connections],
      ['keyed write', memory, shared, write, connections],
    ]
    console.log('| what | in-memory req/s | --store req/s | ratio | in-memory p50 | --store p50 | p50 difference |')
    console.log('|---|---|---|---|---|---|---|')
    const saturated = new Map<string, number>()
    for (const [label, a, b, op, conns] of rows) {
      await load(a, op, shopId, 2, conns)
      await load(b, op, shopId, 2, conns)
      const x = await load(a, op, shopId, duration, conns)
      const y = await load(b, op, shopId, duration, conns)
      saturated.set(label, Math.min(x.rps, y.rps))
      console.log(`| ${label}: ${op.name} | ${x.rps} | ${y.rps} | ${(y.rps / x.rps).toFixed(2)} | ${x.p50} ms | ${y.p50} ms | ${(y.p50 - x.p50).toFixed(2)} ms |`)
    }
    // The same connections at a fixed rate both sides sustain (a quarter of the slower one's full-load
    // req/s in this run: requests that come one by one cost each process more CPU than a full load's
    // batches): no queue, so the p50 difference is what the store adds to a request (bench/paced.ts).
    console.log('\n| at a fixed rate, 50 connections | rate (req/s) | in-memory p50 / p99 | --store p50 / p99 | p50 difference | non-2xx, errors |')
    console.log('|---|---|---|---|---|---|')
    for (const [label, a, b, op, conns] of rows) {
      const rate = Math.round(saturated.get(label)! / 4)
      const x = await paced(a.url, op, shopId, { rate, seconds: duration, connections: conns })
      const y = await paced(b.url, op, shopId, { rate, seconds: duration, connections: conns })
      const added = y.p50 - x.p50
      const clean = x.non2xx + y.non2xx + x.errors + y.errors === 0 && x.answered === x.sent && y.answered === y.sent
      console.log(`| ${label === 'keyed write' ? (added <= 1 && clean ? '✓ ' : '✗ ') : ''}${label}: ${op.name} | ${rate} (answered ${x.answered}, ${y.answered} of ${x.sent}) | ${x.p50} / ${x.p99} ms | ${y.p50} / ${y.p99} ms | ${added.toFixed(2)} ms | ${x.non2xx + y.non2xx}, ${x.errors + y.errors} |`)
    }
    // One request at a time (autocannon's latencies are whole milliseconds): what one request costs, no queue.
    for (const [label, a, b, op] of [['uncached read, one at a time', memoryUncached, sharedUncached, crm], ['keyed write, one at a time', memory, shared, write]] as const) {
      await oneAtATime(a, op, shopId, 200)
      await oneAtATime(b, op, shopId, 200)
      const x = await oneAtATime(a, op, shopId, 2000)
      const y = await oneAtATime(b, op, shopId, 2000)
      console.log(`| ${label}: ${op.name} | ${x.rps} | ${y.rps} | ${(y.rps / x.rps).toFixed(2)} | ${x.p50.toFixed(2)} ms | ${y.p50.toFixed(2)} ms | ${(y.p50 - x.p50).toFixed(2)} ms |`)
    }

    // Round trips per read when nothing changed: the replica's own count of the commands it sent (one
    // round trip each) and of its batched appends (activity log, journal, traces: on a connection of their own), over 200 sequential reads, rate limit off and on.
    const metricsOf = async (t: Target) => (await (await fetch(`${t.url}/__admin/metrics`)).json()) as { store_commands: number; append_flushes: number }
    const limited = await start('shoptwin', ['--store', redis.url, '--twin', 'bench-limited', '--rate-limit', 'on', '--rate-per-second', '100000'])
    for (const [label, t] of [['rate limit off', shared], ['rate limit on', limited]] as const) {
      // What a metrics call itself costs, measured: two in a row.
      const first = await metricsOf(t)
      const before = await metricsOf(t)
      const own = before.store_commands - first.store_commands
      for (let i = 0; i < 200; i++) await (await fetch(`${t.url}/affiliate/crm/list`, { method: 'POST', headers: headersFor(shopId), body: JSON.stringify(crm.body) })).arrayBuffer()
      await new Promise((r) => setTimeout(r, 50))
      const after = await metricsOf(t)
      // The appends travel in pipelines on a connection of their own: one round trip per flush, not per entry.
      const commands = (after.store_commands - before.store_commands - own) / 200
      const flushes = (after.append_flushes - before.append_flushes) / 200
      console.log(`store round trips per read when nothing changed (${label}): ${(commands + flushes).toFixed(2)} (${commands.toFixed(2)} on the request's path, ${flushes.toFixed(2)} append pipelines: activity, journal and trace entries together, off the path) (goal: at most 1)`)
    }
    await stop(limited)
    for (const t of [memory, shared, memoryUncached, sharedUncached]) await stop(t)

    // Startup with a long log: `logged` writes, then a fresh replica replays them before it listens.
    // Two logs: unkeyed updates (an operation each), and keyed creates (an operation and the
    // idempotency record it completed each: twice the entries, each record a JSON of its answer).
    const memoryStart = await start('shoptwin')
    await stop(memoryStart)
    for (const keyed of [false, true]) {
      const twin = keyed ? 'bench-log-keyed' : 'bench-log'
      const writer = await start('shoptwin', ['--store', redis.url, '--twin', twin])
      const board = (await (await fetch(`${writer.url}/dashboards/create`, { method: 'POST', headers: headersFor(shopId), body: JSON.stringify({ name: 'log-0' }) })).json()) as { data: { id: string } }
      const batch = 50
      const one = (i: number) =>
        keyed
          ? fetch(`${writer.url}/automations/create`, { method: 'POST', headers: { ...headersFor(shopId), 'idempotency-key': `log-${i}` }, body: JSON.stringify({ ...write.body as object, title: `log-${i}` }) })
          : fetch(`${writer.url}/dashboards/update`, { method: 'POST', headers: headersFor(shopId), body: JSON.stringify({ dashboard_id: board.data.id, name: `log-${i}` }) })
      for (let i = 1; i < logged; i += batch) await Promise.all(Array.from({ length: Math.min(batch, logged - i) }, (_, j) => one(i + j).then((r) => r.arrayBuffer())))
      const head = (await redisCommand(redis.socket, 'GET', `st:{tw:${twin}}:head`)).split('\r\n')[1]
      await stop(writer)
      const times: number[] = []
      for (let i = 0; i < 3; i++) {
        const replica = await start('shoptwin', ['--store', redis.url, '--twin', twin])
        times.push(replica.startupMs)
        await stop(replica)
      }
      times.sort((a, b) => a - b)
      const what = keyed ? `${logged} logged keyed writes (${head} entries: each write's operations and its idempotency record)` : `${head} logged operations`
      console.log(`startup of a replica replaying ${what}: median ${(times[1]! / 1000).toFixed(2)} s (min ${(times[0]! / 1000).toFixed(2)}, max ${(times[2]! / 1000).toFixed(2)}); in-memory start in the same run: ${(memoryStart.startupMs / 1000).toFixed(2)} s (goal: ready within 5 s)`)
    }
  } finally {
    await redis.stop()
  }
}

/** `n` requests one after another on one kept-alive connection: req/s and p50 (ms, to the microsecond). */
async function oneAtATime(target: Target, op: Operation, shopId: string, n: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 })
  const url = new URL(`${target.url}${op.path}`)
  const body = bodyOf(op)
  const times: number[] = []
  const started = performance.now()
  try {
    for (let i = 0; i < n; i++) {
      const headers = { ...headersFor(shopId), ...op.headers, ...(op.freshIdempotencyKey ? { 'idempotency-key': `one-${process.pid}-${Date.now()}-${i}` } : {}) }
      const t = performance.now()
      await new Promise<void>((resolve, reject) => {
        const req = request(url, { method: op.method, headers, agent }, (res) => {
          res.resume()
          res.on('end', resolve)
        })
        req.on('error', reject)
        req.end(body)
      })
      times.push(performance.now() - t)
    }
  } finally {
    agent.destroy()
  }
  times.sort((a, b) => a - b)
  return { rps: Math.round(n / ((performance.now() - started) / 1000)), p50: times[Math.floor(n / 2)]! }
}

if (import.meta.url === `file://${process.argv[1]}`) await sharedStoreBench()
