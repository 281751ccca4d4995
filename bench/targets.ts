/**
 * The servers a bench loads and how it loads them: bare node:http (the ceiling), `prism mock` on the
 * contract (the peer), shoptwin as `shoptwin serve` runs it (default world, rate limit off) with its
 * response cache (`shoptwin`) or without (`uncached`), the certification pair, and the two proxies
 * in front of shoptwin (`shoptwin proxy`, `prism proxy`: the upstream's URL in `extra`). Only
 * loopback addresses are used.
 */
import autocannon from 'autocannon'
import { execFileSync, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { cpus, tmpdir } from 'node:os'
import { createServer as createNetServer } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const root = fileURLToPath(new URL('..', import.meta.url))
const node = process.execPath
export const HOST = '127.0.0.1'
export const API_KEY = 'demo-key'

export interface Target {
  name: 'bare' | 'prism' | 'shoptwin' | 'uncached' | 'untraced' | 'certify-on' | 'certify-off' | 'proxy' | 'prism-proxy' | 'tcp-pipe' | 'http-pipe' | 'raw-pipe' | 'proxy-inline' | 'haproxy-pipe'
  child: ChildProcess
  url: string
}

export interface Operation {
  name: string
  method: 'GET' | 'POST' | 'DELETE'
  path: string
  body?: unknown
  /** Sent as is (the sweep's bodies are JSON text already). */
  rawBody?: string
  headers?: Record<string, string>
  /** A distinct Idempotency-Key on every request, so each write is a new one. */
  freshIdempotencyKey?: boolean
}

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createNetServer()
    srv.listen(0, HOST, () => {
      const { port } = srv.address() as { port: number }
      srv.close(() => resolve(port))
    })
    srv.on('error', reject)
  })
}

/** Polls `url` until it answers 200; the time it took, in ms. */
export async function waitFor200(url: string, timeoutMs = 60_000): Promise<number> {
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

/** HAProxy, where Debian installed it (`apt-get install haproxy`): the proxy section's floor in C. */
export const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy'].find((path) => existsSync(path))

function spawnServer(name: Target['name'], port: number, extra: string[] = []): ChildProcess {
  if (name === 'haproxy-pipe') {
    // A byte pipe in C (TCP mode: no HTTP parsing), one thread as a Node process has one: what a proxy pays here for the bytes alone.
    // Its buffers are 256 KB, the shoptwin proxy's read size (HAProxy's default 16 KB costs it twice the system time on a 221 KB answer).
    const upstream = new URL(extra[0]!)
    const config = join(mkdtempSync(join(tmpdir(), 'shoptwin-bench-haproxy-')), 'haproxy.cfg')
    writeFileSync(config, `global\n  nbthread 1\n  maxconn 4096\n  tune.bufsize 262144\ndefaults\n  mode tcp\n  timeout connect 5s\n  timeout client 30s\n  timeout server 30s\nfrontend pipe\n  bind ${HOST}:${port}\n  default_backend upstream\nbackend upstream\n  server upstream ${upstream.hostname}:${upstream.port}\n`)
    return spawn(HAPROXY!, ['-f', config, '-db'], { stdio: ['ignore', 'ignore', 'inherit'] })
  }
  const args =
    name === 'shoptwin' || name === 'uncached' || name === 'untraced'
      ? [join(root, 'mock/cli.ts'), 'serve', '--port', String(port), '--host', HOST, '--scale', 'default', '--rate-limit', 'off', ...(name === 'uncached' ? ['--response-cache', 'off'] : []), ...(name === 'untraced' ? ['--trace', 'off'] : []), ...extra]
      : name === 'certify-on' || name === 'certify-off'
        ? [join(root, 'bench/certify-server.ts'), String(port), HOST, name === 'certify-on' ? 'on' : 'off']
        : name === 'proxy'
        ? [join(root, 'mock/cli.ts'), 'proxy', '--upstream', extra[0]!, '--port', String(port), '--host', HOST]
        : name === 'tcp-pipe' || name === 'http-pipe' || name === 'raw-pipe' || name === 'proxy-inline'
        ? [join(root, 'bench/proxy-floor.ts'), name === 'proxy-inline' ? 'inline' : name.slice(0, -'-pipe'.length), extra[0]!, String(port), HOST]
        : name === 'prism-proxy'
        ? [join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'proxy', join(root, 'openapi/openapi.yaml'), extra[0]!, '-p', String(port), '-h', HOST, '-v', 'silent']
        : name === 'prism'
        ? [join(root, 'node_modules/@stoplight/prism-cli/dist/index.js'), 'mock', join(root, 'openapi/openapi.yaml'), '-p', String(port), '-h', HOST, '-v', 'silent']
        : [join(root, 'bench/bare-server.ts'), String(port), HOST, ...extra]
  return spawn(node, args, { stdio: ['ignore', 'ignore', 'inherit'] })
}

/** Spawns a target and waits for its first 200 on /health. */
export async function start(name: Target['name'], extra: string[] = []): Promise<Target & { startupMs: number }> {
  const port = await freePort()
  const spawned = performance.now()
  const child = spawnServer(name, port, extra)
  const url = `http://${HOST}:${port}`
  await waitFor200(`${url}/health`)
  return { name, child, url, startupMs: performance.now() - spawned }
}

export async function stop(target: Target): Promise<void> {
  if (target.child.exitCode !== null) return
  const exited = new Promise((r) => target.child.once('exit', r))
  target.child.kill('SIGTERM')
  await Promise.race([exited, new Promise((r) => setTimeout(r, 5000))])
  if (target.child.exitCode === null) target.child.kill('SIGKILL')
}

/**
 * Puts every thread of process `pid` on the CPU cores `cores` (a taskset list: `0`, `1`, `0-1`); false where that cannot be
 * done (one core, no taskset). The benches that give a process a core of its own: bench/proxy-cost.ts, the proxy section.
 */
export function pin(pid: number | undefined, cores: string): boolean {
  // The machine's cores, not availableParallelism(): that counts the cores this process may use, one once it is pinned.
  if (!pid || cpus().length < 2) return false
  try {
    execFileSync('taskset', ['-a', '-p', '-c', cores, String(pid)], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}

/** Peak resident set size of a process, from /proc (Linux). */
export function peakRssMb(pid: number | undefined): number | null {
  if (!pid) return null
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8')
    const kb = Number(/VmHWM:\s+(\d+)/.exec(status)?.[1])
    return Math.round(kb / 1024)
  } catch {
    return null
  }
}

export function headersFor(shopId: string, apiKey = API_KEY): Record<string, string> {
  return { 'content-type': 'application/json', 'x-api-key': apiKey, 'x-shop-id': shopId }
}

export function bodyOf(op: Operation): string | undefined {
  return op.rawBody ?? (op.body === undefined ? undefined : JSON.stringify(op.body))
}

/** CPU time (ms) a process has used so far, user + system, or one of them (system: the kernel's work for it, copies of socket bytes among it), from /proc (Linux). */
export function cpuMs(pid: number | undefined, which: 'user' | 'system' | 'both' = 'both'): number {
  if (!pid) return 0
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return ((which === 'system' ? 0 : Number(fields[11])) + (which === 'user' ? 0 : Number(fields[12]))) * 10
}

/**
 * Waits until a process has stopped using the CPU (two readings 200 ms apart equal, at most `maxMs`):
 * work it deferred (the proxy's grading backlog) is then done, and counted in its CPU per request.
 * Returns how long it took, in ms.
 */
export async function settle(pid: number | undefined, maxMs = 60_000): Promise<number> {
  const started = performance.now()
  let last = cpuMs(pid)
  for (;;) {
    await new Promise((r) => setTimeout(r, 200))
    const now = cpuMs(pid)
    if (now === last || performance.now() - started > maxMs) return Math.round(performance.now() - started)
    last = now
  }
}

/** autocannon on one operation for `seconds`: req/s, p50, p99 (ms), non-2xx answers and errors. */
export async function load(target: Target, op: Operation, shopId: string, seconds: number, connections: number) {
  const headers = { ...headersFor(shopId), ...op.headers }
  let written = 0
  const result = await autocannon({
    url: `${target.url}${op.path}`,
    method: op.method,
    headers,
    body: bodyOf(op),
    connections,
    duration: seconds,
    ...(op.freshIdempotencyKey
      ? { requests: [{ setupRequest: (request: autocannon.Request) => ({ ...request, headers: { ...request.headers, 'idempotency-key': `bench-${process.pid}-${++written}` } }) }] }
      : {}),
  })
  return {
    rps: Math.round(result.requests.average),
    requests: result.requests.total,
    mean: result.latency.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
  }
}

export type Load = Awaited<ReturnType<typeof load>>
