/**
 * Replicas of one twin as their operators run them: `shoptwin serve --store … --twin …` processes on
 * 127.0.0.1 port 0, and a round-robin balancer in front (as haproxy would be).
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer, request as httpRequest, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'

const CLI = fileURLToPath(new URL('../../mock/cli.ts', import.meta.url))

export interface Replica {
  url: string
  process: ChildProcess
  output(): string
  /** Sends a signal (SIGKILL, SIGSTOP, SIGCONT...). */
  signal(signal: NodeJS.Signals): void
  stop(): Promise<void>
}

export interface ReplicaOptions {
  store: string
  twin?: string
  args?: string[]
  env?: Record<string, string>
  /** The port (default 0: any free one); a replica restarted where its balancer expects it takes its old one. */
  port?: number
}

/** Starts a replica and waits for its banner (the log replayed, the port open). */
export async function startReplica({ store, twin = 'default', args = [], env = {}, port = 0 }: ReplicaOptions): Promise<Replica> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', String(port), '--store', store, '--twin', twin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  let out = ''
  child.stdout!.on('data', (d) => (out += d))
  child.stderr!.on('data', (d) => (out += d))
  const url = await new Promise<string>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`replica did not start within 120 s:\n${out}`)), 120_000)
    const look = () => {
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)
      if (m) {
        clearTimeout(timer)
        resolve(m[1]!)
      }
    }
    child.stdout!.on('data', look)
    child.once('exit', (code) => {
      clearTimeout(timer)
      reject(new Error(`replica exited (${code}) before listening:\n${out}`))
    })
  })
  return {
    url,
    process: child,
    output: () => out,
    signal: (signal) => void child.kill(signal),
    async stop() {
      if (child.exitCode !== null || child.signalCode !== null) return
      const exited = new Promise((r) => child.once('exit', r))
      child.kill('SIGCONT')
      child.kill('SIGTERM')
      await exited
    },
  }
}

/**
 * Starts replicas with these options (`envOf(i)`: the i-th one's own environment): the first alone (it
 * may create the twin), the others together. When one fails to start, those started are stopped
 * before the error goes up (none is left running).
 */
export async function startReplicas(n: number, options: ReplicaOptions, envOf: (i: number) => Record<string, string> = () => ({})): Promise<Replica[]> {
  const at = (i: number) => ({ ...options, env: { ...options.env, ...envOf(i) } })
  const first = await startReplica(at(0))
  const others = await Promise.allSettled(Array.from({ length: n - 1 }, (_, i) => startReplica(at(i + 1))))
  const started = [first, ...others.flatMap((o) => (o.status === 'fulfilled' ? [o.value] : []))]
  const failed = others.find((o) => o.status === 'rejected')
  if (failed) {
    await Promise.all(started.map((r) => r.stop()))
    throw failed.reason
  }
  return started
}

/** Runs the CLI and returns its exit code and output (for refusals at startup). */
export function runCli(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; output: string }> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [CLI, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let output = ''
    child.stdout!.on('data', (d) => (output += d))
    child.stderr!.on('data', (d) => (output += d))
    child.once('exit', (code) => resolve({ code, output }))
  })
}

export interface Balancer {
  url: string
  /** The upstreams, in turn; replaceable (a restarted replica has a new port). */
  upstreams: string[]
  close(): Promise<void>
}

/** A round-robin HTTP balancer on 127.0.0.1:0; an upstream that is down gets the next one (as haproxy's retries do). */
export async function startBalancer(upstreams: string[]): Promise<Balancer> {
  let next = 0
  const balancer: Balancer = { url: '', upstreams: [...upstreams], close: async () => {} }
  const forward = (req: import('node:http').IncomingMessage, res: import('node:http').ServerResponse, body: Buffer, tries: number) => {
    const target = new URL(balancer.upstreams[next++ % balancer.upstreams.length]!)
    const upstream = httpRequest({ host: target.hostname, port: target.port, method: req.method, path: req.url, headers: req.headers }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    upstream.once('error', () => {
      if (res.headersSent) return res.destroy()
      if (tries > 0) return forward(req, res, body, tries - 1)
      res.writeHead(502, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: 'no replica answered' }))
    })
    upstream.end(body)
  }
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => forward(req, res, Buffer.concat(chunks), balancer.upstreams.length))
  })
  // Longer than a client's own idle timeout (undici: 4 s), so the balancer never closes a connection
  // the client is about to reuse (the client would see 'other side closed' on a POST it cannot retry).
  server.keepAliveTimeout = 65_000
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  balancer.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  balancer.close = () =>
    new Promise((r) => {
      server.closeAllConnections()
      server.close(() => r())
    })
  return balancer
}

/** The counts, times REPLICAS_SCALE (e.g. 0.1 while developing). */
export const count = (n: number): number => Math.max(1, Math.round(n * Number(process.env.REPLICAS_SCALE ?? 1)))
/** The instant the replica tests freeze the twin's clock at. */
export const FROZEN = '2026-05-04T10:00:00.000Z'

/** The demo key the replica tests send. */
export const DEMO_KEY = 'demo-key'
const LOAD = fileURLToPath(new URL('../replicas/load.ts', import.meta.url))

export interface Reply {
  status: number
  text: string
  retryAfter?: string | null
  /** The replica that answered, when a balancer says so (`x-shoptwin-replica`, the README's haproxy configuration). */
  replica?: string | null
  /** The answer's trace id (`x-shoptwin-trace`). */
  trace?: string | null
  /** `idempotent-replayed`: true on a replay of a completed key. */
  replayed?: string | null
  /** What the request carried in `x-load` (a labelled load: `<label>-<process>-<n>`). */
  'x-load'?: string
}

/** One request with the demo key (and the shop, when given); the reply, read whole. */
export async function call(base: string, method: string, path: string, shop: string | undefined, body?: unknown, headers: Record<string, string> = {}): Promise<Reply> {
  const response = await fetch(`${base}${path}`, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': DEMO_KEY, ...(shop ? { 'x-shop-id': shop } : {}), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  }).catch((error: Error) => {
    // Which request failed, and why (fetch says only "fetch failed").
    throw new Error(`${method} ${base}${path}: ${error.message} (${String((error.cause as Error | undefined)?.message ?? '')})`, { cause: error })
  })
  return { status: response.status, text: await response.text(), retryAfter: response.headers.get('retry-after'), replica: response.headers.get('x-shoptwin-replica'), trace: response.headers.get('x-shoptwin-trace'), replayed: response.headers.get('idempotent-replayed') }
}

/** Runs `n` load processes (test/replicas/load.ts), each sending its share of the requests at once (or one after another); their replies. */
export async function load(processes: number, job: { urls: string[]; method: string; path: string; shop: string; body?: unknown; count: number; headers?: Record<string, string>; sequential?: boolean; label?: string }): Promise<Reply[]> {
  const runs = Array.from({ length: processes }, (_, i) => {
    const share = Math.floor(job.count / processes) + (i < job.count % processes ? 1 : 0)
    return new Promise<Reply[]>((resolve, reject) => {
      const child = spawn(process.execPath, [LOAD], { stdio: ['pipe', 'pipe', 'inherit'] })
      let out = ''
      child.stdout!.on('data', (d) => (out += d))
      child.once('exit', (code) => (code === 0 ? resolve(JSON.parse(out) as Reply[]) : reject(new Error(`load process exited ${code}`))))
      child.stdin!.end(JSON.stringify({ ...job, apiKey: DEMO_KEY, count: share, offset: i }))
    })
  })
  return (await Promise.all(runs)).flat()
}

/** A valid automation body (a keyed write of the spec). */
export const automation = (title: string) => ({ title, message_type: 'dm', outreach_audience: { type: 'new_affiliates' }, dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]' }] })

/** The titles of a shop's automations that start with `prefix`, every page. */
export async function automationTitles(base: string, shop: string, prefix: string): Promise<string[]> {
  const titles: string[] = []
  for (let page = 1; ; page++) {
    const body = JSON.parse((await call(base, 'POST', '/automations/list', shop, { page_size: 100, page_number: page })).text) as { data: { results?: Array<{ title: string }>; automations?: Array<{ title: string }>; has_more?: boolean } }
    const rows = body.data.results ?? body.data.automations ?? []
    titles.push(...rows.map((r) => r.title).filter((t) => t.startsWith(prefix)))
    if (!body.data.has_more || rows.length === 0) return titles
  }
}

/** The first shop a replica's banner lists. */
export const firstShop = (replica: Replica): string => /\n {2}([0-9a-f-]{36}) /.exec(replica.output())![1]!

/** A sweep of a twin's reads and its clock (what a restart must leave byte-identical); `idempotencyKey`: a keyed write's record to read too. */
export async function readSweep(base: string, shop: string, idempotencyKey: string): Promise<string[]> {
  const reads: Array<[string, string, unknown]> = [
    ['POST', '/dashboards/list', {}],
    ['POST', '/automations/list', { page_size: 100 }],
    ['POST', '/affiliate/samples/list', { page_size: 100 }],
    ['POST', '/affiliate/samples/funnel', {}],
    ['POST', '/halo-effect', { date_range: { from: '2026-04-01', to: '2026-05-01' } }],
    ['POST', '/shop/stats', { date_range: { from: '2026-04-01', to: '2026-05-01' }, stats: ['samples_approved', 'dms_sent'] }],
    ['GET', `/idempotency/${idempotencyKey}`, undefined],
    ['GET', '/__admin/clock', undefined],
  ]
  const out: string[] = []
  for (const [method, path, body] of reads) out.push(`${method} ${path} ${(await call(base, method, path, shop, body)).text}`)
  return out
}
