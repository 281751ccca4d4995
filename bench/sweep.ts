/**
 * `npm run bench:sweep` (also the last section of `npm run bench`): every operation of the contract
 * (aliases left out: they run their canonical operation's handler), shoptwin without its response cache
 * against `prism mock` on the same minimal valid request (mock/testing.ts `minimalCall`, the contract
 * sweep's), short autocannon runs; req/s of each and the ratio (goal ≥ 2×).
 *
 * The reads go first, then the writes, so the reads see the world as built. A write taking an
 * Idempotency-Key gets a distinct one on every request (each is a new write; rate limit off); the
 * others repeat the same request: the status column says what shoptwin answered it with (a delete of
 * the example id is a 404, the example's update a 404 or 409), and a 4xx is still a full request
 * through the pipeline and the handler.
 *
 * Options: BENCH_SWEEP_SECONDS (per operation and target, default 1, after a 0.5 s warm-up),
 * BENCH_CONNECTIONS (default 50), BENCH_SWEEP_ONLY (a regular expression on operationIds).
 */
import { loadContract, type OperationInfo } from '../openapi/index.ts'
import { minimalCall, readingOperations } from '../mock/testing.ts'
import { headersFor, load, start, stop, waitFor200, type Operation, type Target } from './targets.ts'

const ENTERPRISE_KEY = 'demo-enterprise-key'

interface SweepRow {
  operationId: string
  status: number
  bytes: number
  prism: number
  uncached: number
  ratio: number
  non2xx: string
}

/** The sweep's operations: reads, then writes; each as the bench sends it. */
function sweepOperations(today: string): Array<{ info: OperationInfo; op: Operation }> {
  const contract = loadContract()
  const only = process.env.BENCH_SWEEP_ONLY ? new RegExp(process.env.BENCH_SWEEP_ONLY) : undefined
  const reads = new Set(readingOperations(contract))
  const canonical = contract.operations.filter((info) => info.aliasOf === undefined && (!only || only.test(info.operationId)))
  return [...canonical.filter((info) => reads.has(info)), ...canonical.filter((info) => !reads.has(info))].map((info) => {
    const { path, query, body } = minimalCall(contract, info, today)
    return {
      info,
      op: {
        name: info.operationId,
        method: info.method,
        path: query ? `${path}?${query}` : path,
        rawBody: body,
        headers: { 'x-api-key': ENTERPRISE_KEY },
        freshIdempotencyKey: info.idempotent,
      },
    }
  })
}

/** Runs the sweep against its own Prism and cache-off shoptwin; returns the table's rows and the verdict lines. */
export async function sweep({ seconds = Number(process.env.BENCH_SWEEP_SECONDS ?? 1), connections = Number(process.env.BENCH_CONNECTIONS ?? 50) } = {}): Promise<{ rows: SweepRow[]; lines: string[] }> {
  const uncached = await start('uncached')
  const prism = await start('prism')
  const rows: SweepRow[] = []
  try {
    const shops = (await (await fetch(`${uncached.url}/account/shops`, { headers: { 'x-api-key': ENTERPRISE_KEY } })).json()) as { data: Array<{ shop_id: string }> }
    const shopId = shops.data[0]!.shop_id
    const clock = (await (await fetch(`${uncached.url}/__admin/clock`)).json()) as { now: string }
    // Both servers warmed before the first operation's figures (JIT, the main shop's data).
    for (const target of [prism, uncached]) await load(target, { name: 'warm-up', method: 'GET', path: '/account/shops', headers: { 'x-api-key': ENTERPRISE_KEY } }, shopId, 2, connections)
    for (const { info, op } of sweepOperations(clock.now.slice(0, 10))) {
      const probe = await fetch(`${uncached.url}${op.path}`, {
        method: op.method,
        headers: { ...headersFor(shopId), ...op.headers, ...(op.freshIdempotencyKey ? { 'idempotency-key': `bench-probe-${info.operationId}` } : {}) },
        body: op.rawBody,
      })
      const bytes = Buffer.byteLength(await probe.text())
      const rps = {} as Record<Target['name'], number>
      const non2xx = {} as Record<Target['name'], number>
      for (const target of [prism, uncached]) {
        // A slow operation leaves requests queued when autocannon stops: /health answers once they are done.
        await waitFor200(`${target.url}/health`)
        await load(target, op, shopId, 0.5, connections)
        const result = await load(target, op, shopId, seconds, connections)
        rps[target.name] = result.rps
        non2xx[target.name] = result.non2xx + result.errors
      }
      rows.push({
        operationId: info.operationId,
        status: probe.status,
        bytes,
        prism: rps.prism,
        uncached: rps.uncached,
        ratio: +(rps.uncached / rps.prism).toFixed(2),
        non2xx: `${non2xx.uncached}, ${non2xx.prism}`,
      })
    }
  } finally {
    await stop(uncached)
    await stop(prism)
  }
  const below = rows.filter((r) => r.ratio < 2)
  const lines = [
    `${below.length === 0 ? '✓' : '✗'} every operation without the response cache at ≥ 2× Prism: ${rows.length - below.length} of ${rows.length}` +
      (below.length ? `; below: ${below.map((r) => `${r.operationId} ${r.ratio}×`).join(', ')}` : ''),
  ]
  return { rows, lines }
}

/** Prints the sweep like the other tables of the bench. */
export function printSweep({ rows, lines }: Awaited<ReturnType<typeof sweep>>): void {
  console.table(rows.map((r) => ({ operation: r.operationId, status: r.status, bytes: r.bytes, 'prism req/s': r.prism, 'uncached req/s': r.uncached, 'uncached/prism': r.ratio, 'non-2xx (uncached, prism)': r.non2xx })))
  for (const line of lines) console.log(line)
}

if (import.meta.main) {
  console.log(`sweep on Node ${process.version}: every operation, shoptwin without its response cache vs Prism, ${process.env.BENCH_SWEEP_SECONDS ?? 1} s per run after a 0.5 s warm-up\n`)
  printSweep(await sweep())
}
