/**
 * Graceful shutdown (issue 8, Robustness): the real CLI server in a child process, requests held
 * in flight by the control API's latency fault (POST /__admin/faults), SIGTERM while they are
 * held: every one completes with its normal answer and the process exits 0.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { request as httpRequest } from 'node:http'
import { fileURLToPath } from 'node:url'
import { afterAll, describe, expect, it } from 'vitest'
import { loadContract } from '../openapi/index.ts'
import { contractProblem } from '../mock/testing.ts'

const contract = loadContract()
const CLI = fileURLToPath(new URL('../mock/cli.ts', import.meta.url))
/** Long enough that the requests are surely still held when SIGTERM arrives; asserted below. */
const LATENCY_MS = 2_000
const children: ChildProcess[] = []

afterAll(() => {
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
})

interface Started {
  child: ChildProcess
  url: string
  output: () => string
  /** Resolves when the child prints this text (or rejects if it exits first). */
  printed: (text: string) => Promise<number>
  exited: Promise<{ code: number | null; signal: string | null; at: number }>
}

/** `shoptwin serve` on 127.0.0.1, port 0 (the OS picks), rate limit off. */
async function startServer(): Promise<Started> {
  const child = spawn(process.execPath, [CLI, 'serve', '--port', '0', '--host', '127.0.0.1', '--scale', 'small', '--seed', '42', '--rate-limit', 'off'], { stdio: ['ignore', 'pipe', 'pipe'] })
  children.push(child)
  let out = ''
  const waiters: Array<{ text: string; resolve: (at: number) => void; reject: (e: Error) => void }> = []
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) => child.once('exit', (code, signal) => resolve({ code, signal, at: performance.now() })))
  const check = () => {
    for (const w of waiters.splice(0)) if (out.includes(w.text)) w.resolve(performance.now())
    else waiters.push(w)
  }
  child.stdout!.setEncoding('utf8')
  child.stderr!.setEncoding('utf8')
  child.stdout!.on('data', (chunk: string) => {
    out += chunk
    check()
  })
  child.stderr!.on('data', (chunk: string) => (out += chunk))
  void exited.then(({ code }) => {
    for (const w of waiters.splice(0)) w.reject(new Error(`server exited with ${code} before printing ${w.text}: ${out}`))
  })
  const printed = (text: string) =>
    new Promise<number>((resolve, reject) => {
      waiters.push({ text, resolve, reject })
      check()
    })
  await printed('Control API')
  const url = /listening on (http:\/\/\S+)/.exec(out)![1]
  return { child, url, output: () => out, printed, exited }
}

interface Answer {
  status: number
  text: string
  at: number
}

/** One request on its own connection (node:http, no keep-alive pool). */
function send(url: string, method: string, path: string, headers: Record<string, string>, body?: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method, headers, agent: false, timeout: 20_000 }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (d: string) => (text += d))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text, at: performance.now() }))
      res.on('error', reject)
    })
    req.on('timeout', () => req.destroy(new Error(`${method} ${path}: no answer within 20 s`)))
    req.on('error', reject)
    req.end(body)
  })
}

const admin = async (url: string, method: string, path: string, body?: unknown) => {
  const response = await fetch(`${url}/__admin${path}`, { method, headers: { 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
  return { status: response.status, json: (await response.json()) as any }
}

describe('graceful shutdown (issue 8: Robustness)', () => {
  it('shutdown: SIGTERM while requests are in flight lets every one finish with its normal answer, then the process exits 0', { timeout: 60_000 }, async () => {
    const server = await startServer()
    const world = (await admin(server.url, 'GET', '/world')).json
    const shopId = world.shops[0].shop_id as string
    const headers = { 'x-api-key': 'demo-key', 'x-shop-id': shopId, 'content-type': 'application/json' }
    // The answers the held requests must get: asked before any fault is set.
    const expectedSps = await send(server.url, 'GET', '/shop/sps', headers)
    const expectedProducts = await send(server.url, 'POST', '/shop/products', headers, JSON.stringify({ sort_by: 'price' }))
    expect([expectedSps.status, expectedProducts.status]).toEqual([200, 200])

    const approved = JSON.stringify({ data: { message: '0 of 0 sample requests approved', success_count: 0 } })
    expect((await admin(server.url, 'POST', '/faults', { route: 'getShopSps', latency_ms: LATENCY_MS, count: 4 })).status).toBe(201)
    expect((await admin(server.url, 'POST', '/faults', { route: 'POST /shop/products', latency_ms: LATENCY_MS, count: 2 })).status).toBe(201)
    expect((await admin(server.url, 'POST', '/faults', { route: '/affiliate/samples/approve', latency_ms: LATENCY_MS, count: 1 })).status).toBe(201)
    const keepAlive = async (): Promise<Answer> => {
      const response = await fetch(`${server.url}/shop/sps`, { headers, signal: AbortSignal.timeout(20_000) })
      return { status: response.status, text: await response.text(), at: performance.now() }
    }
    const inFlight = [
      ...Array.from({ length: 3 }, () => ({ op: 'getShopSps', answer: send(server.url, 'GET', '/shop/sps', headers), expected: expectedSps.text })),
      // A keep-alive connection (fetch's pool) must not hold the exit up until its idle timeout.
      { op: 'getShopSps', answer: keepAlive(), expected: expectedSps.text },
      ...Array.from({ length: 2 }, () => ({ op: 'listShopProducts', answer: send(server.url, 'POST', '/shop/products', headers, JSON.stringify({ sort_by: 'price' })), expected: expectedProducts.text })),
      // An idempotent write held open too: it completes, it is not dropped half-way.
      { op: 'approveSampleRequests', answer: send(server.url, 'POST', '/affiliate/samples/approve', { ...headers, 'idempotency-key': 'held-at-shutdown' }, JSON.stringify({ apply_ids: [] })), expected: approved },
    ]
    // Every held request has taken its fault (it is inside the latency) once no fault is left.
    for (let polls = 0; (await admin(server.url, 'GET', '/faults')).json.faults.length > 0; polls++) {
      if (polls > 1_000) throw new Error('the held requests never reached the server')
    }

    const signalled = performance.now()
    server.child.kill('SIGTERM')
    const shutdownSeen = await server.printed('SIGTERM received')
    const answers = await Promise.all(inFlight.map(async (f) => ({ ...f, answer: await f.answer })))
    const { code, signal, at: exitedAt } = await server.exited

    for (const { op, answer, expected } of answers) {
      expect(answer.status).toBe(200)
      expect(answer.text).toBe(expected)
      expect(contractProblem(contract, contract.byId.get(op)!, answer.status, answer.text)).toBeUndefined()
      // Still held when the server began shutting down: the answer came after it said so.
      expect(answer.at).toBeGreaterThan(shutdownSeen)
    }
    console.log(`robustness shutdown: answers ${answers.map((a) => Math.round(a.answer.at - signalled)).join(", ")} ms after SIGTERM, exit after ${Math.round(exitedAt - signalled)} ms`)
    expect(signal).toBeNull()
    expect(code).toBe(0)
    // It exits once they are done, not after a keep-alive or grace timeout.
    expect(exitedAt - signalled).toBeLessThan(LATENCY_MS + 2_500)
    expect(server.output()).not.toMatch(/Error:|\n\s+at /)
  })

  it('shutdown: SIGTERM on an idle server exits 0 at once, and a second SIGTERM during shutdown does not change that', { timeout: 30_000 }, async () => {
    const server = await startServer()
    expect((await send(server.url, 'GET', '/health', {})).status).toBe(200)
    const signalled = performance.now()
    server.child.kill('SIGTERM')
    await server.printed('SIGTERM received')
    server.child.kill('SIGTERM')
    const { code, at } = await server.exited
    expect(code).toBe(0)
    expect(at - signalled).toBeLessThan(3_000)
  })
})
