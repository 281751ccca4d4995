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
}

/** Starts a replica and waits for its banner (the log replayed, the port open). */
export async function startReplica({ store, twin = 'default', args = [], env = {} }: ReplicaOptions): Promise<Replica> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--store', store, '--twin', twin, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
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
