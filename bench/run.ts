/**
 * `npm run bench`: shoptwin beside its ceiling (a bare node:http server answering a pre-serialised
 * body of the same size) and its peer (`prism mock` on our contract), in one run on one machine.
 *
 * For each operation: autocannon (50 connections, 10 s after a 3 s warm-up) → req/s, p50, p99;
 * peak RSS of each server process (VmHWM); the ratios shoptwin/bare and shoptwin/Prism. shoptwin runs
 * as `npm start` runs it, with its response cache (identical reads answered again until any write,
 * control-API call or clock move); a second shoptwin with `--response-cache off` gives the figures
 * without it. Then the startup time (spawn → first 200 on /health, median of 5), the time to the first
 * answer from the main shop (shoptwin builds a shop's data on its first use) and world generation time
 * per scale (every shop built).
 *
 * Options: BENCH_DURATION (s, default 10), BENCH_CONNECTIONS (default 50), BENCH_SCALES
 * (default "small,default,large"). Only loopback addresses are used.
 */
import autocannon from 'autocannon'
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync, writeFileSync, mkdtempSync } from 'node:fs'
import { createServer as createNetServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const node = process.execPath
const duration = Number(process.env.BENCH_DURATION ?? 10)
const connections = Number(process.env.BENCH_CONNECTIONS ?? 50)
const scales = (process.env.BENCH_SCALES ?? 'small,default,large').split(',')
const HOST = '127.0.0.1'
const API_KEY = 'demo-key'

/** The targets of the main table (the certification pair is measured apart). */
type Measured = 'bare' | 'prism' | 'shoptwin' | 'uncached'

interface Target {
  name: 'bare' | 'prism' | 'shoptwin' | 'uncached' | 'certify-on' | 'certify-off'
  child: ChildProcess
  url: string
}

interface Operation {
  name: string
  method: 'GET' | 'POST'
  path: string
  body?: unknown
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer()
    srv.listen(0, HOST, () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

async function waitFor200(url: string, timeoutMs = 60_000): Promise<number> {
  const started = performance.now()
  for (;;) {
    try {
      const res = await fetch(url)
      await res.arrayBuffer()
      if (res.status === 200) return performance.now() - started
    } catch {
      // not listening yet
    }
    if (performance.now() - started > timeoutMs) throw new Error(`${url} did not answer 200 within ${timeoutMs} ms`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

function spawnServer(name: Target['name'], port: number, extra: string[] = []): ChildProcess {
  const args =
    name === 'shoptwin' || name === 'uncached'
      ? [join(root, 'mock/cli.ts'), 'serve', '--port', String(port), '--host', HOST, '--scale', 'default', '--rate-limit', 'off', ...(name === 'uncached' ? ['--response-cache', 'off'] : []), ...extra]
      : name === 'certify-on' || name === 'certify-off'
        ? [join(root, 'bench/certify-server.ts'), String(port), HOST, name === 'certify-on' ? 'on' : 'off']
        : name === 'prism'
        ? [join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', join(root, 'openapi/openapi.yaml'), '-p', String(port), '-h', HOST, '-v', 'silent']
        : [join(root, 'bench/bare-server.ts'), String(port), HOST, ...extra]
  return spawn(node, args, { stdio: ['ignore', 'ignore', 'inherit'] })
}

async function start(name: Target['name'], extra: string[] = []): Promise<Target & { startupMs: number }> {
  const port = await freePort()
  const spawned = performance.now()
  const child = spawnServer(name, port, extra)
  const url = `http://${HOST}:${port}`
  await waitFor200(`${url}/health`)
  return { name, child, url, startupMs: performance.now() - spawned }
}

async function stop(target: Target): Promise<void> {
  if (target.child.exitCode !== null) return
  const exited = new Promise((r) => target.child.once('exit', r))
  target.child.kill('SIGTERM')
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
  if (target.child.exitCode === null) target.child.kill('SIGKILL')
}

/** Peak resident set size of a process, from /proc (Linux). */
function peakRssMb(pid: number | undefined): number | null {
  if (!pid) return null
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1])
    return Math.round(kb / 1024)
  } catch {
    return null
  }
}

function headersFor(target: Target, shopId: string): Record<string, string> {
  return { 'content-type': 'application/json', 'x-api-key': API_KEY, 'x-shop-id': shopId, ...(target.name === 'prism' ? {} : {}) }
}

async function load(target: Target, op: Operation, shopId: string, seconds: number) {
  const result = await autocannon({
    url: `${target.url}${op.path}`,
    method: op.method,
    headers: headersFor(target, shopId),
    body: op.body === undefined ? undefined : JSON.stringify(op.body),
    connections,
    duration: seconds,
  })
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  }
}

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

  // The bare server answers each path with a body of the size shoptwin answers it with.
  const sizes: Record<string, number> = {}
  for (const op of operations) {
    const res = await fetch(`${shoptwin.url}${op.path}`, { method: op.method, headers: headersFor(shoptwin, shopId), body: op.body === undefined ? undefined : JSON.stringify(op.body) })
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
  const measured: Array<{ op: Operation; byTarget: Record<Target['name'], Load> }> = []
  let rss: Record<Measured, number | null> | undefined
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

  const startup: Record<string, number> = {}
  const firstShopAnswer: Record<string, number> = {}
  const crmList = operations[1]!
  for (const name of ['shoptwin', 'prism'] as const) {
    const times: number[] = []
    const firstAnswers: number[] = []
    for (let i = 0; i < 5; i++) {
      const t = await start(name)
      times.push(t.startupMs)
      // The main shop's first answer: shoptwin builds the shop's data then.
      const asked = performance.now()
      const res = await fetch(`${t.url}${crmList.path}`, { method: 'POST', headers: headersFor(t, shopId), body: JSON.stringify(crmList.body) })
      await res.arrayBuffer()
      firstAnswers.push(t.startupMs + performance.now() - asked)
      await stop(t)
    }
    startup[name] = Math.round(median(times))
    firstShopAnswer[name] = Math.round(median(firstAnswers))
  }
  console.log('startup, spawn to first 200 on /health, median of 5 (ms):', startup)
  console.log(`spawn to the first answer of ${crmList.name} on the main shop, median of 5 (ms):`, firstShopAnswer)

  const generation: Record<string, number> = {}
  for (const scale of scales) {
    const { createWorld } = await import('../fixtures/index.ts')
    const t0 = performance.now()
    createWorld({ seed: 42, scale: scale as 'small', today })
    generation[scale] = Math.round(performance.now() - t0)
  }
  console.log('world generation, every shop built (ms, in this process, after earlier scales warmed the code):', generation)

  console.log('\ntargets of issue 8, on this run:')
  for (const line of verdicts(measured, rss!, startup)) console.log(line)

  console.log('\nclient certification (issue 18): throughput with a session recording every request vs without')
  for (const line of await certificationCost(operations.slice(0, 2), shopId)) console.log(line)
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

type Load = Awaited<ReturnType<typeof load>>

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
  out.push(line(rss.shoptwin! < rss.prism!, `peak RSS under load below Prism's: ${rss.shoptwin} MB vs ${rss.prism} MB`))
  return out
}

await main()
