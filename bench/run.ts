/**
 * `npm run bench`: shoptwin beside its ceiling (a bare node:http server answering a pre-serialised
 * body of the same size) and its peer (`prism mock` on our contract), in one run on one machine.
 *
 * For each operation: autocannon (50 connections, 10 s after a 3 s warm-up) → req/s, p50, p99;
 * peak RSS of each server process (VmHWM); the ratios shoptwin/bare and shoptwin/Prism. shoptwin runs
 * as `npm start` runs it, with its response cache (identical reads answered again until any write,
 * control-API call or clock move); a second shoptwin with `--response-cache off` gives the figures
 * without it. Then the startup time (bench/startup.ts: spawn → first 200 on /health, 5 cold starts of
 * the sources, the built package and Prism), the time to the first answer from the main shop (shoptwin
 * builds a shop's data on its first use) and world generation time per scale (every shop built).
 *
 * Then `shoptwin proxy` (no --inject) and `prism proxy` in front of one shoptwin, against that
 * shoptwin direct: req/s ratios, and p50 at a fixed offered rate (issue 27: the proxy at >= 0.7 of
 * direct, p50 at most +1 ms). Beside the verdict, the same rounds with a core of its own for the proxy (the server and the
 * load generator pinned to core 0, the proxy and the raw floor to core 1, taskset): whether it keeps up with what it forwards.
 *
 * Last, the sweep (bench/sweep.ts): every operation of the contract without the response cache
 * against Prism.
 *
 * Options: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50), BENCH_SCALES
 * (default "small,default,large"), BENCH_SECTIONS (default "table,startup,certification,proxy,trace,sweep,store": the
 * sections to run; the ✓/✗ lines of issue 8 need the first two), BENCH_PROXY_PAIRS and BENCH_PROXY_PAIR_SECONDS (the proxy
 * section's rounds of runs its verdicts are judged on; default 5 of 4 s). Only loopback addresses are used.
 */
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { join } from 'node:path'
import { sharedStoreBench } from './shared-store.ts'
import { fileURLToPath } from 'node:url'
import { measureStartup, startupTable } from './startup.ts'
import { printSweep, sweep } from './sweep.ts'
import { paced, type PacedLoad } from './paced.ts'
import { API_KEY, cpuMs, HAPROXY, headersFor, load as loadTarget, peakRssMb, pin, settle, start, stop, type Load, type Operation, type Target } from './targets.ts'

const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const scales = (process.env.BENCH_SCALES ?? 'small,default,large').split(',')
const sections = new Set((process.env.BENCH_SECTIONS ?? 'table,startup,certification,proxy,trace,sweep,store').split(','))

/** The targets of the main table (the certification pair is measured apart). */
type Measured = 'bare' | 'prism' | 'shoptwin' | 'uncached'

const load = (target: Target, op: Operation, shopId: string, seconds: number) => loadTarget(target, op, shopId, seconds, connections)

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)]!
}

async function main(): Promise<void> {
  console.log(`bench on Node ${process.version}, ${connections} connections, ${duration} s per run (after a 3 s warm-up)\n`)

  const shoptwin = await start('shoptwin')
  const shops = (await (await fetch(`${shoptwin.url}/account/shops`, { headers: { 'x-api-key': API_KEY } })).json()) as { data: Array<{ shop_id: string }> }
  const shopId = shops.data[0]!.shop_id
  const today = ((await (await fetch(`${shoptwin.url}/__admin/clock`)).json()) as { today?: string; now?: string }).now?.slice(0, 10) ?? new Date().toISOString().slice(0, 10)
  const daysBefore = (n: number) => new Date(Date.parse(`${today}T00:00:00Z`) - n * 86_400_000).toISOString().slice(0, 10)

  const statsKeys = ((await import('../openapi/index.ts')) as { STAT_KEYS: readonly string[] }).STAT_KEYS
  const operations: Operation[] = [
    { name: 'GET /health', method: 'GET', path: '/health' },
    { name: 'POST /affiliate/crm/list (50, filtered)', method: 'POST', path: '/affiliate/crm/list', body: { page_size: 50, page_number: 1, filters: { min_videos: 1 } } },
    { name: 'POST /shop/stats (all keys, 90 d, charts)', method: 'POST', path: '/shop/stats', body: { date_range: { from: daysBefore(90), to: daysBefore(1) }, stats: [...statsKeys], include_charts: true } },
    { name: 'POST /ads/creatives (100)', method: 'POST', path: '/ads/creatives', body: { page_size: 100 } },
  ]

  const measured: Array<{ op: Operation; byTarget: Record<Target['name'], Load> }> = []
  let rss: Record<Measured, number | null> | undefined
  if (sections.has('table')) rss = await table(shoptwin, operations, shopId, measured)
  else await stop(shoptwin)

  const startup: Record<string, number> = {}
  if (sections.has('startup')) {
    // bench/startup.ts (npm run bench:startup): cold starts, interleaved; the served build when dist/ is there.
    const built = existsSync(join(fileURLToPath(new URL('..', import.meta.url)), 'dist/mock/cli.js'))
    const results = await measureStartup(built ? ['source', 'built', 'prism'] : ['source', 'prism'], 5)
    console.log(`startup, spawn to first answer, 5 cold starts per target${built ? '' : ' (no dist/: npm run build for the served build)'}:`)
    for (const line of startupTable(results)) console.log(line)
    startup.shoptwin = Math.round(median(results.get(built ? 'built' : 'source')!.map((r) => r.firstAnswerMs)))
    startup.prism = Math.round(median(results.get('prism')!.map((r) => r.firstAnswerMs)))

    const generation: Record<string, number> = {}
    for (const scale of scales) {
      const { createWorld } = await import('../fixtures/index.ts')
      const t0 = performance.now()
      createWorld({ seed: 42, scale: scale as 'small', today })
      generation[scale] = Math.round(performance.now() - t0)
    }
    console.log('world generation, every shop built (ms, in this process, after earlier scales warmed the code):', generation)
  }

  if (rss && startup.shoptwin !== undefined) {
    console.log('\ntargets of issue 8, on this run:')
    for (const line of verdicts(measured, rss, startup)) console.log(line)
  }

  if (sections.has('certification')) {
    console.log('\nclient certification (issue 18): throughput with a session recording every request vs without')
    for (const line of await certificationCost(operations.slice(0, 2), shopId)) console.log(line)
  }

  if (sections.has('proxy')) {
    console.log('\nshoptwin proxy (issue 27): through the proxy (no --inject) and through `prism proxy`, vs direct to the same shoptwin')
    for (const line of await proxyCost(operations, shopId)) console.log(line)
  }

  if (sections.has('trace')) {
    console.log('\ntraces (issue 28): throughput on cached reads with tracing on (the default) vs --trace off')
    for (const line of await traceCost(operations.slice(1, 3), shopId)) console.log(line)
  }

  if (sections.has('sweep')) {
    console.log('\nevery operation without the response cache vs Prism (issue 16, item 8; `npm run bench:sweep` runs this alone)')
    printSweep(await sweep({ connections }))
  }

  // Issue 23: one replica on Redis vs in-memory, and a replica's startup on a long log (`npm run bench:store` alone).
  if (sections.has('store')) await sharedStoreBench()
}

/** The main table: each operation on every target; fills `measured`, returns the peak RSS of each. */
async function table(shoptwin: Target, operations: Operation[], shopId: string, measured: Array<{ op: Operation; byTarget: Record<Target['name'], Load> }>): Promise<Record<Measured, number | null>> {
  // The bare server answers each path with a body of the size shoptwin answers it with.
  const sizes: Record<string, number> = {}
  for (const op of operations) {
    const res = await fetch(`${shoptwin.url}${op.path}`, { method: op.method, headers: headersFor(shopId), body: op.body === undefined ? undefined : JSON.stringify(op.body) })
    const text = await res.text()
    sizes[op.path] = Buffer.byteLength(text)
    if (res.status !== 200) console.log(`note: shoptwin answers ${op.name} with ${res.status}: ${text.slice(0, 120)}`)
  }
  const sizeFile = join(mkdtempSync(join(tmpdir(), 'shoptwin-bench-')), 'sizes.json')
  writeFileSync(sizeFile, JSON.stringify(sizes))

  const prism = await start('prism')
  const bare = await start('bare', [sizeFile])
  const uncached = await start('uncached')
  const targets: Target[] = [bare, prism, shoptwin, uncached]

  const rows: Array<Record<string, string | number | null>> = []
  let rss: Record<Measured, number | null>
  try {
    for (const op of operations) {
      const byTarget = {} as Record<Target['name'], Load>
      for (const target of targets) {
        await load(target, op, shopId, 3)
        byTarget[target.name] = await load(target, op, shopId, duration)
      }
      measured.push({ op, byTarget })
      const s = byTarget.shoptwin!
      const u = byTarget.uncached!
      rows.push({
        operation: op.name,
        'bytes': sizes[op.path]!,
        'bare req/s': byTarget.bare!.rps,
        'prism req/s': byTarget.prism!.rps,
        'shoptwin req/s': s.rps,
        'shoptwin p50 ms': s.p50,
        'shoptwin p99 ms': s.p99,
        'bare p99 ms': byTarget.bare!.p99,
        'prism p99 ms': byTarget.prism!.p99,
        'shoptwin/bare': +(s.rps / byTarget.bare!.rps).toFixed(2),
        'shoptwin/prism': +(s.rps / byTarget.prism!.rps).toFixed(2),
        'uncached req/s': u.rps,
        'uncached p50 ms': u.p50,
        'uncached p99 ms': u.p99,
        'uncached/bare': +(u.rps / byTarget.bare!.rps).toFixed(2),
        'uncached/prism': +(u.rps / byTarget.prism!.rps).toFixed(2),
        'non-2xx (shoptwin, uncached, prism)': `${s.non2xx}, ${u.non2xx}, ${byTarget.prism!.non2xx}`,
      })
    }
    rss = { bare: peakRssMb(bare.child.pid), prism: peakRssMb(prism.child.pid), shoptwin: peakRssMb(shoptwin.child.pid), uncached: peakRssMb(uncached.child.pid) }
    console.table(rows)
    console.log('peak RSS under load (MB):', rss)
  } finally {
    for (const t of targets) await stop(t)
  }

  return rss
}

/** req/s of the twin with a certification session recording (profile producing nothing) over without; goal >= 0.8. */
async function certificationCost(ops: Operation[], shopId: string): Promise<string[]> {
  const lines: string[] = []
  for (const op of ops) {
    const rps: Record<string, number> = {}
    for (const name of ['certify-off', 'certify-on'] as const) {
      const target = await start(name)
      try {
        await load(target, op, shopId, 3)
        rps[name] = (await load(target, op, shopId, duration)).rps
      } finally {
        await stop(target)
      }
    }
    const ratio = rps['certify-on']! / rps['certify-off']!
    lines.push(`${ratio >= 0.8 ? '✓' : '✗'} ${op.name}: ${rps['certify-on']} req/s recording, ${rps['certify-off']} without, ratio ${ratio.toFixed(2)} (goal >= 0.8)`)
  }
  return lines
}

/**
 * The proxy's verdicts are judged on pairs of short runs, direct and through the proxy back to back, the order swapped from
 * one pair to the next, and the median of the pairs: the speed of this machine (a VM on two cores) moves by a third between
 * runs a minute apart (the load generator's own CPU per request too), so two long runs minutes apart compared the
 * machine's spells as much as the proxy. A pair sees one spell; the median drops the pairs a change of spell cut. The req/s
 * rounds also load the floors (the least HTTP forwarding in Node, a byte pipe in C) between direct and the proxy: what any
 * proxy could do on this machine in the same minutes, beside the verdict.
 */
const PAIRS = Number(process.env.BENCH_PROXY_PAIRS ?? 5)
const PAIR_SECONDS = Number(process.env.BENCH_PROXY_PAIR_SECONDS ?? 4)

/**
 * `measure` on direct and on each of `others` in PAIRS rounds, back to back, the order turned from round to round (with one
 * other, a pair swapped), every process of the round quiet before each run (the proxy grades what a run left in its next quiet
 * spell, off the request's path: not during the next run); each round's figures, by target.
 */
async function inRounds<R>(direct: Target, others: Target[], measure: (target: Target) => Promise<R>): Promise<Array<Map<Target, R>>> {
  const all = [direct, ...others]
  const rounds: Array<Map<Target, R>> = []
  for (let i = 0; i < PAIRS; i++) {
    const got = new Map<Target, R>()
    const turn = i % all.length
    for (const target of [...all.slice(turn), ...all.slice(0, turn)]) {
      for (const t of all) await settle(t.child.pid)
      got.set(target, await measure(target))
    }
    rounds.push(got)
  }
  return rounds
}

/**
 * `run` with this process (the load generator) and `server` on core 0 and each of `proxies` on core 1, then every one of them
 * back on every core; undefined, without running it, where that cannot be done (one core, no taskset). The verdict's rounds
 * share two cores among three busy processes, so a proxy's every microsecond is taken from the server and the load generator;
 * here it is not (a proxy in front of a server on a machine of its own): whether the proxy keeps up with what it forwards.
 */
async function withACoreOfItsOwn<R>(server: Target, proxies: Target[], run: () => Promise<R>): Promise<R | undefined> {
  const all = `0-${cpus().length - 1}`
  try {
    if (!pin(process.pid, '0') || !pin(server.child.pid, '0') || !proxies.every((p) => pin(p.child.pid, '1'))) return undefined
    return await run()
  } finally {
    for (const pid of [process.pid, server.child.pid, ...proxies.map((p) => p.child.pid)]) pin(pid, all)
  }
}

/**
 * Direct to one shoptwin, through `shoptwin proxy`, through `prism proxy`, and through the floors of
 * a proxy written in Node (bench/proxy-floor.ts: a TCP pipe, a bare node:http proxy, the least HTTP
 * forwarding on raw sockets) and in C (HAProxy in TCP mode, where installed): the same
 * requests, one after the other. `shoptwin proxy` grades off the request's path (proxy/backlog.ts:
 * exchanges wait while requests are in flight, up to 50,000); the same proxy grading each exchange as
 * it ends is loaded too (`proxy-inline`: its figure under traffic that never lets up). Beside req/s and
 * p50 at full load: the CPU each proxy process spends per request, read from /proc once the process is
 * idle again (so the proxy's deferred grading counts: steady on a shared machine, where req/s follow
 * the other processes' load), and the added latency on one connection (a proxy's own delay, not the
 * queue of a saturated machine). The p50 goal is judged at a fixed offered rate both sustain (a quarter of the
 * proxy's full-load req/s, bench/paced.ts): at full load p50 is the queue (connections ÷ req/s), which
 * says req/s a second time.
 */
async function proxyCost(ops: Operation[], shopId: string): Promise<string[]> {
  const upstream = await start('shoptwin')
  const proxy = await start('proxy', [upstream.url])
  const inline = await start('proxy-inline', [upstream.url])
  const prism = await start('prism-proxy', [upstream.url])
  const tcp = await start('tcp-pipe', [upstream.url])
  const http = await start('http-pipe', [upstream.url])
  const raw = await start('raw-pipe', [upstream.url])
  // The floor in C, where HAProxy is installed: a byte pipe that does not pay for JS (the kernel's share of a large answer stays).
  const haproxy = HAPROXY ? await start('haproxy-pipe', [upstream.url]) : undefined
  const lines: string[] = []
  const rows: Array<Record<string, string | number>> = []
  const cpuRows: Array<Record<string, string | number>> = []
  try {
    for (const op of ops) {
      const by: Record<string, Load & { cpuUs: number; userUs: number; systemUs: number; settleMs: number }> = {}
      for (const target of [upstream, proxy, inline, prism, tcp, http, raw, ...(haproxy ? [haproxy] : [])]) {
        await load(target, op, shopId, 3)
        await settle(target.child.pid)
        const cpu = cpuMs(target.child.pid)
        const [user, system] = [cpuMs(target.child.pid, 'user'), cpuMs(target.child.pid, 'system')]
        const result = await load(target, op, shopId, duration)
        // The proxy's grading of the exchanges that waited runs now: counted in its CPU, and timed.
        const settleMs = await settle(target.child.pid)
        const perRequest = (ms: number) => Math.round((ms * 1000) / Math.max(1, result.requests))
        by[target.name] = { ...result, settleMs, cpuUs: perRequest(cpuMs(target.child.pid) - cpu), userUs: perRequest(cpuMs(target.child.pid, 'user') - user), systemUs: perRequest(cpuMs(target.child.pid, 'system') - system) }
      }
      const one: Record<string, Load> = {}
      for (const target of [upstream, proxy]) {
        await loadTarget(target, op, shopId, 1, 1)
        one[target.name] = await loadTarget(target, op, shopId, Math.min(duration, 5), 1)
      }
      // The latency the proxy adds, below saturation: the same fixed offered rate direct and through it, a quarter of the proxy's own
      // req/s at full load. Half was not sustained (p50 of seconds through the proxy, 2026-11-26 06:02): one request at a time, each
      // process pays per request what a full load spreads over a batch (and the proxy grades at once), so its CPU per request doubles.
      const rate = Math.max(50, Math.round(by.proxy!.rps / 200) * 50)
      const fixed: Record<string, PacedLoad> = {}
      let allSustained = true
      const pacedRounds = await inRounds(upstream, [proxy], async (target) => {
        const result = (fixed[target.name] = await paced(target.url, op, shopId, { rate, seconds: PAIR_SECONDS, connections }))
        allSustained &&= result.answered === result.sent && result.errors === 0
        return result
      })
      const addedP50s = pacedRounds.map((round) => +(round.get(proxy)!.p50 - round.get(upstream)!.p50).toFixed(2))
      // req/s through the proxy over direct, for the verdict: the ratio of each round, the median of them; in the same rounds, the
      // least HTTP forwarding in Node and a byte pipe in C (where installed): what this machine lets any proxy do in those minutes.
      const floors = [raw, ...(haproxy ? [haproxy] : [])]
      const rpsRounds = await inRounds(upstream, [proxy, ...floors], async (target) => (await load(target, op, shopId, PAIR_SECONDS)).rps)
      const ratiosOf = (target: Target) => rpsRounds.map((round) => +(round.get(target)! / round.get(upstream)!).toFixed(2))
      const ratios = ratiosOf(proxy)
      const ratioOfRounds = median(ratios)
      const rawOfRounds = median(ratiosOf(raw))
      const haproxyOfRounds = haproxy ? median(ratiosOf(haproxy)) : undefined
      const ownCore = await withACoreOfItsOwn(upstream, [proxy, raw], () => inRounds(upstream, [proxy, raw], async (target) => (await load(target, op, shopId, PAIR_SECONDS)).rps))
      const addedP50 = median(addedP50s)
      const direct = by.shoptwin!
      const ours = by.proxy!
      const graded = by['proxy-inline']!
      const theirs = by['prism-proxy']!
      const ratio = (t: Load) => +(t.rps / direct.rps).toFixed(2)
      const haproxyRatio = haproxy ? ratio(by['haproxy-pipe']!) : 'not installed'
      rows.push({ operation: op.name, 'direct req/s': direct.rps, 'proxy req/s': ours.rps, 'proxy/direct': ratio(ours), 'proxy/direct, rounds (median)': ratioOfRounds, 'floors/direct, same rounds (raw http; haproxy)': `${rawOfRounds}; ${haproxyOfRounds ?? 'not installed'}`, 'proxy grading inline/direct': ratio(graded), 'prism proxy/direct': ratio(theirs), 'floors/direct (tcp, http, raw http; haproxy)': `${ratio(by['tcp-pipe']!)}, ${ratio(by['http-pipe']!)}, ${ratio(by['raw-pipe']!)}; ${haproxyRatio}`, 'full load p50 ms (direct, proxy, inline, prism)': `${direct.p50}, ${ours.p50}, ${graded.p50}, ${theirs.p50}`, 'full load p99 ms (direct, proxy, inline, prism)': `${direct.p99}, ${ours.p99}, ${graded.p99}, ${theirs.p99}`, 'fixed rate: req/s, p50 added (median of pairs); last pair p50 ms (direct, proxy), p99 ms': `${rate}: ${addedP50}; ${fixed.shoptwin!.p50}, ${fixed.proxy!.p50}; ${fixed.shoptwin!.p99}, ${fixed.proxy!.p99}`, 'non-2xx (proxy, prism)': `${ours.non2xx}, ${theirs.non2xx}` })
      cpuRows.push({ operation: op.name, 'upstream µs/req (direct)': direct.cpuUs, 'shoptwin proxy µs/req (grading included)': ours.cpuUs, 'grading inline µs/req': graded.cpuUs, 'node:http floor µs/req': by['http-pipe']!.cpuUs, 'tcp floor µs/req': by['tcp-pipe']!.cpuUs, 'raw http floor µs/req (user + system)': `${by['raw-pipe']!.cpuUs} (${by['raw-pipe']!.userUs} + ${by['raw-pipe']!.systemUs})`, 'haproxy floor µs/req (user + system)': haproxy ? `${by['haproxy-pipe']!.cpuUs} (${by['haproxy-pipe']!.userUs} + ${by['haproxy-pipe']!.systemUs})` : '-', 'shoptwin proxy, user + system µs/req': `${ours.userUs} + ${ours.systemUs}`, 'prism proxy µs/req': theirs.cpuUs, 'grading after the load (ms)': ours.settleMs, '1 connection: mean ms (direct, proxy)': `${one.shoptwin!.mean.toFixed(2)}, ${one.proxy!.mean.toFixed(2)}` })
      // Whether a proxy that only forwards (no validation, no recording), in Node or in C, reached the goal in the same rounds: when not, the ✗ is the machine's as much as the proxy's.
      const floorsBelow = ratioOfRounds < 0.7 && rawOfRounds < 0.7 && (haproxyOfRounds ?? 0) < 0.7 ? `; ${haproxy ? 'a byte pipe in C and ' : ''}the least HTTP forwarding in Node are below 0.7 too in the same rounds` : ''
      lines.push(`${ratioOfRounds >= 0.7 ? '✓' : '✗'} ${op.name} through shoptwin proxy at >= 0.7 of direct: ${ratioOfRounds.toFixed(2)}, the median of ${PAIRS} rounds of ${PAIR_SECONDS} s runs, direct, the proxy and the floors back to back, the order turned round to round (${ratios.join(', ')}); in the same rounds the least HTTP forwarding on raw sockets ${rawOfRounds.toFixed(2)}${haproxy ? `, a byte pipe in C (haproxy, TCP mode) ${haproxyOfRounds!.toFixed(2)}` : ''}${floorsBelow}; in the table's runs ${ratio(ours).toFixed(2)} (${ours.rps} vs ${direct.rps} req/s; grading each exchange inline ${ratio(graded).toFixed(2)}; prism proxy ${ratio(theirs).toFixed(2)}; the floors of a Node proxy here: tcp pipe ${ratio(by['tcp-pipe']!)}, bare node:http ${ratio(by['http-pipe']!)}, the least HTTP forwarding on raw sockets ${ratio(by['raw-pipe']!)}; a byte pipe in C, haproxy in TCP mode: ${haproxyRatio})`)
      const d = fixed.shoptwin!
      const p = fixed.proxy!
      const signed = (ms: number) => `${ms >= 0 ? '+' : ''}${ms.toFixed(2)}`
      lines.push(`${addedP50 <= 1 && allSustained ? '✓' : '✗'} ${op.name} p50 through shoptwin proxy at most 1 ms over direct, at a fixed ${rate} req/s (a quarter of the proxy's full-load rate; ${connections} connections, open loop): ${signed(addedP50)} ms, the median of ${PAIRS} pairs of ${PAIR_SECONDS} s runs, direct and proxy back to back, swapped pair to pair (${addedP50s.map(signed).join(', ')}); the last pair: ${p.p50} vs ${d.p50} ms, p90 ${p.p90} vs ${d.p90}, p99 ${p.p99} vs ${d.p99} ms; ${allSustained ? 'every request answered in every run' : 'a run did not answer every request'}`)
      lines.push(`· ${op.name} p50 at full load (${connections} connections: the queue, about ${connections} ÷ req/s, so req/s again): ${ours.p50} ms through the proxy vs ${direct.p50} ms direct (grading inline ${graded.p50} ms, prism proxy ${theirs.p50} ms)`)
      if (ownCore) {
        const of = (target: Target) => ownCore.map((round) => +(round.get(target)! / round.get(upstream)!).toFixed(2))
        lines.push(`· ${op.name} with a core of its own (not the verdict: the server and the load generator on core 0, the proxy on core 1, direct as well; a proxy in front of a server on another machine): through shoptwin proxy ${median(of(proxy)).toFixed(2)} of direct req/s (${of(proxy).join(', ')}), the least HTTP forwarding on raw sockets ${median(of(raw)).toFixed(2)}, the median of ${PAIRS} rounds`)
      }
      const added = one.proxy!.mean - one.shoptwin!.mean
      lines.push(`· ${op.name} on 1 connection (one request at a time, the proxy's own delay): +${added.toFixed(2)} ms mean (${one.proxy!.mean.toFixed(2)} vs ${one.shoptwin!.mean.toFixed(2)} ms; p50 ${one.proxy!.p50} vs ${one.shoptwin!.p50} ms)`)
    }
    console.table(rows)
    console.table(cpuRows)
    lines.unshift(`peak RSS under load (MB): upstream ${peakRssMb(upstream.child.pid)}, shoptwin proxy ${peakRssMb(proxy.child.pid)} (grading inline ${peakRssMb(inline.child.pid)}), prism proxy ${peakRssMb(prism.child.pid)}`)
  } finally {
    for (const t of [...(haproxy ? [haproxy] : []), raw, http, tcp, prism, inline, proxy, upstream]) await stop(t)
  }
  return lines
}

/**
 * req/s of cached reads with tracing on over off; goal >= 0.9. Both servers run side by side and are
 * loaded in turn, twice each (on, off, on, off), so drift on a shared machine hits both; the best of
 * each pair is compared.
 */
async function traceCost(ops: Operation[], shopId: string): Promise<string[]> {
  const lines: string[] = []
  const on = await start('shoptwin')
  const off = await start('untraced')
  try {
    for (const op of ops) {
      const rps = { on: [] as number[], off: [] as number[] }
      for (const target of [on, off]) await load(target, op, shopId, 3)
      for (let round = 0; round < 2; round++) {
        rps.on.push((await load(on, op, shopId, duration)).rps)
        rps.off.push((await load(off, op, shopId, duration)).rps)
      }
      const best = { on: Math.max(...rps.on), off: Math.max(...rps.off) }
      const ratio = best.on / best.off
      lines.push(`${ratio >= 0.9 ? '✓' : '✗'} ${op.name} (cached): ${best.on} req/s traced, ${best.off} with --trace off, ratio ${ratio.toFixed(2)} (goal >= 0.9; runs on ${rps.on.join(', ')}, off ${rps.off.join(', ')})`)
    }
  } finally {
    await stop(on)
    await stop(off)
  }
  return lines
}

/** One line per target, ✓ or ✗, with the figures it was judged on (and the ceiling's, where it explains a miss). */
function verdicts(measured: Array<{ op: Operation; byTarget: Record<Target['name'], Load> }>, rss: Record<Measured, number | null>, startup: Record<string, number>): string[] {
  const line = (ok: boolean, text: string) => `${ok ? '✓' : '✗'} ${text}`
  const out: string[] = []
  const health = measured.find((m) => m.op.path === '/health')!.byTarget
  out.push(line(health.shoptwin.rps >= 0.25 * health.bare.rps, `GET /health at ≥ 25% of bare node:http: ${Math.round((100 * health.shoptwin.rps) / health.bare.rps)}%`))
  for (const { op, byTarget: t } of measured) {
    const ratio = t.shoptwin.rps / t.prism.rps
    out.push(line(ratio >= 2, `${op.name} at ≥ 2× Prism: ${ratio.toFixed(2)}× (without the response cache ${(t.uncached.rps / t.prism.rps).toFixed(2)}×)`))
  }
  for (const { op, byTarget: t } of measured) {
    const ceiling = t.bare.p99 > 10 ? `; the bare server's own p99 on this body is ${t.bare.p99} ms` : ''
    out.push(line(t.shoptwin.p99 <= 10, `${op.name} p99 ≤ 10 ms at ${connections} connections: ${t.shoptwin.p99} ms${ceiling}`))
  }
  const stats = measured.find((m) => m.op.path === '/shop/stats')!.byTarget
  out.push(line(stats.shoptwin.p50 <= 5, `POST /shop/stats all keys p50 ≤ 5 ms: ${stats.shoptwin.p50} ms`))
  out.push(line(startup.shoptwin! < startup.prism!, `startup faster than Prism's: ${startup.shoptwin} ms vs ${startup.prism} ms`))
  out.push(line(startup.shoptwin! <= 500, `startup to the first answer at most 0.5 s (issue 25), median: ${startup.shoptwin} ms`))
  out.push(line(rss.shoptwin! < rss.prism!, `peak RSS under load below Prism's: ${rss.shoptwin} MB vs ${rss.prism} MB`))
  return out
}

await main()
