/**
 * `shoptwin proxy` as a reverse proxy: what it forwards (headers, bodies, streaming, Host and
 * X-Forwarded-*), what it answers when the upstream fails (502, 504, never a hang), that it changes
 * nothing without --inject, that no secret reaches a report, and the command line (SIGTERM, reports,
 * exit code per --fail-on). Every server listens on 127.0.0.1, port 0, and is closed at the end.
 */
import { spawn } from 'node:child_process'
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'
import { createServer, type MockServer } from '../mock/server.ts'
import { startProxy } from '../proxy/index.ts'
import { NOT_PASSIVE, passiveJudges } from '../proxy/judges/index.ts'
import { proxyHtml, proxyJson, proxyJunit } from '../proxy/reporters.ts'

const root = resolve(import.meta.dirname, '..')
let mock: MockServer
let mockUrl: string
let shopId: string
let faulty: Server
let faultyUrl: string
const received: Array<{ headers: IncomingMessage['headers']; body: string }> = []
const hanging = new Set<IncomingMessage>()

beforeAll(async () => {
  mock = createServer({ stateOptions: { seed: 42, scale: 'small', now: '2026-11-20T12:00:00Z', today: '2026-11-20', rateLimit: false } })
  mockUrl = await mock.listen(0, '127.0.0.1')
  shopId = mock.state.world.shops[0]!.shop_id
  // An upstream with faults on demand (x-fault), echoing what it received otherwise.
  faulty = createHttpServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      received.push({ headers: req.headers, body: Buffer.concat(chunks).toString() })
      const fault = req.headers['x-fault']
      if (fault === 'slow') return void hanging.add(req)
      if (fault === 'reset') return void req.socket.destroy()
      if (fault === 'mid-reset') {
        res.writeHead(200, { 'content-type': 'application/json' })
        res.write('{"data": {"sps"')
        return void setImmediate(() => req.socket.destroy())
      }
      if (fault === 'invalid-json') {
        res.writeHead(200, { 'content-type': 'application/json' })
        return void res.end('{"data": {"sps": 4.1')
      }
      if (fault === '500') {
        res.writeHead(500, { 'content-type': 'application/json' })
        return void res.end('{"error": "boom"}')
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ data: { sps: 4.2 } }))
    })
  })
  await new Promise<void>((done) => faulty.listen(0, '127.0.0.1', done))
  faultyUrl = `http://127.0.0.1:${(faulty.address() as AddressInfo).port}`
})

afterAll(async () => {
  for (const req of hanging) req.socket.destroy()
  await new Promise<void>((done) => {
    faulty.closeAllConnections()
    faulty.close(() => done())
  })
  await mock.close()
})

const headers = () => ({ 'x-api-key': 'demo-key', 'x-shop-id': shopId, 'content-type': 'application/json' })

describe('proxy: forwarding', () => {
  it('without --inject the client gets the upstream\'s answers unchanged: status, headers, body byte for byte', async () => {
    const proxy = await startProxy({ upstream: mockUrl })
    try {
      const requests: Array<[string, RequestInit]> = [
        ['/account/shops', { headers: { 'x-api-key': 'demo-key' } }],
        ['/shop/stats', { method: 'POST', headers: headers(), body: JSON.stringify({ date_range: { from: '2026-10-01', to: '2026-10-31' }, stats: ['total_gmv', 'video_views'], include_charts: true }) }],
        ['/ads/campaigns', { method: 'POST', headers: headers(), body: '{}' }],
        ['/affiliate/crm/list?x=1', { method: 'POST', headers: headers(), body: JSON.stringify({ page_size: 3 }) }],
        ['/nowhere', { headers: headers() }],
      ]
      for (const [path, init] of requests) {
        const direct = await fetch(`${mockUrl}${path}`, init)
        const proxied = await fetch(`${proxy.url}${path}`, init)
        // Each answer has its own trace id (issue 28): the proxy forwards the upstream's, unchanged.
        const strip = (h: Headers) => Object.fromEntries([...h.entries()].filter(([k]) => !['date', 'connection', 'keep-alive', 'x-shoptwin-trace'].includes(k)))
        expect(proxied.status, path).toBe(direct.status)
        expect(strip(proxied.headers), path).toEqual(strip(direct.headers))
        expect(await proxied.text(), path).toBe(await direct.text())
      }
      const report = await proxy.stop()
      expect(report.situations).toEqual({})
      expect(report.exchanges).toBe(requests.length)
    } finally {
      await proxy.stop()
    }
  })

  it('sets Host to the upstream and X-Forwarded-For/-Host/-Proto, drops hop-by-hop headers, keeps the rest and the body', async () => {
    const proxy = await startProxy({ upstream: faultyUrl })
    received.length = 0
    const body = JSON.stringify({ big: 'x'.repeat(200_000) })
    await fetch(`${proxy.url}/shop/sps`, { method: 'GET', headers: { ...headers(), 'x-custom': 'kept', connection: 'keep-alive' } }).then((r) => r.text())
    await fetch(`${proxy.url}/shop/stats`, { method: 'POST', headers: headers(), body }).then((r) => r.text())
    await proxy.stop()
    const [get, post] = received
    expect(get!.headers.host).toBe(new URL(faultyUrl).host)
    expect(get!.headers['x-forwarded-for']).toBe('127.0.0.1')
    expect(get!.headers['x-forwarded-host']).toBe(new URL(proxy.url).host)
    expect(get!.headers['x-forwarded-proto']).toBe('http')
    expect(get!.headers['x-custom']).toBe('kept')
    expect(get!.headers['x-api-key']).toBe('demo-key')
    expect(post!.body).toBe(body)
  })

  it('upstream faults: a silent upstream gets 504, a reset 502, both as {"error"}; invalid JSON and 5xx pass through; all are recorded and the proxy goes on', async () => {
    const proxy = await startProxy({ upstream: faultyUrl, timeoutMs: 300 })
    const call = (fault: string) => fetch(`${proxy.url}/shop/sps`, { headers: { ...headers(), 'x-fault': fault } }).then(async (r) => ({ status: r.status, text: await r.text().catch((e: Error) => `(cut: ${e.message})`) }), (e: Error) => ({ status: 0, text: e.message }))
    const slow = await call('slow')
    const reset = await call('reset')
    const midReset = await call('mid-reset')
    const invalid = await call('invalid-json')
    const error = await call('500')
    const fine = await call('none')
    const report = await proxy.stop()
    expect(slow.status).toBe(504)
    expect(JSON.parse(slow.text).error).toMatch(/did not answer within 300 ms/)
    expect(reset.status).toBe(502)
    expect(JSON.parse(reset.text).error).toMatch(/upstream failed/)
    expect(midReset.text).toMatch(/cut|terminated|fetch failed/)
    expect(invalid).toEqual({ status: 200, text: '{"data": {"sps": 4.1' })
    expect(error.status).toBe(500)
    expect(fine.status).toBe(200)
    expect(report.upstreamFailures.map((f) => f.what)).toEqual([
      'the upstream did not answer within 300 ms',
      'the upstream failed: ECONNRESET',
      'the upstream reset the connection mid-answer',
      'answered 500',
    ])
    const outcome = (id: string) => report.server.outcomes.find((o) => o.id === id)!
    expect(outcome('contract.reads-answer').status).toBe('fail')
    expect(outcome('contract.reads-answer').failures.map((f) => f.received)).toEqual(expect.arrayContaining(['the upstream did not answer within 300 ms', 'the upstream failed: ECONNRESET']))
    expect(outcome('contract.responses-valid').failures.some((f) => f.message.startsWith('body is not valid JSON'))).toBe(true)
    expect(report.exitCode).toBe(1)
  })

  it('an upstream that is down gets 502 {"error"} at once', async () => {
    const down = createHttpServer()
    await new Promise<void>((done) => down.listen(0, '127.0.0.1', done))
    const port = (down.address() as AddressInfo).port
    await new Promise<void>((done) => down.close(() => done()))
    const proxy = await startProxy({ upstream: `http://127.0.0.1:${port}` })
    const reply = await fetch(`${proxy.url}/health`)
    const report = await proxy.stop()
    expect(reply.status).toBe(502)
    expect((await reply.json()).error).toMatch(/ECONNREFUSED/)
    expect(report.upstreamFailures).toHaveLength(1)
  })
})

describe('proxy: the rules and the reports', () => {
  it('every rule of the catalogue is judged passively or says why not, never both', () => {
    const judged = passiveJudges().map((j) => j.rule)
    expect(new Set(judged).size).toBe(judged.length)
    const both = judged.filter((id) => id in NOT_PASSIVE)
    expect(both).toEqual([])
    expect([...judged, ...Object.keys(NOT_PASSIVE)].sort()).toEqual(catalogue.map((r) => r.id).sort())
  })

  it('keys, tokens and cookies appear in no report; curl reads the key from $API_KEY; a rule traffic never exercised is "not exercised"', async () => {
    const proxy = await startProxy({ upstream: mockUrl })
    await fetch(`${proxy.url}/ads/campaigns?echo=demo-key`, { method: 'POST', headers: { ...headers(), authorization: 'Bearer secret-token-123', cookie: 'session=cookie-secret-456' }, body: JSON.stringify({ note: 'demo-key' }) }).then((r) => r.text())
    await fetch(`${proxy.url}/shop/sps`, { headers: { 'x-api-key': 'demo-key' } }).then((r) => r.text())
    const report = await proxy.stop()
    const texts = [proxyJson(report), proxyJunit(report), proxyHtml(report)].map((t) => proxy.secrets().reduce((out, s) => out.split(s).join('<redacted>'), t))
    for (const text of [proxyJson(report), proxyHtml(report), proxyJunit(report), ...texts]) {
      for (const secret of ['secret-token-123', 'cookie-secret-456']) expect(text).not.toContain(secret)
    }
    for (const text of texts) expect(text).not.toContain('demo-key')
    const missingRange = report.server.outcomes.find((o) => o.id === 'dates.missing-range')!
    expect(missingRange.status).toBe('pass')
    expect(missingRange.exchanges[0]!.curl).toContain('-H "x-api-key: $API_KEY"')
    expect(report.server.outcomes.find((o) => o.id === 'idempotency.replay-identical')!.reason).toMatch(/^not exercised/)
    expect(report.server.outcomes.find((o) => o.id === 'aliases.get-equals-post')!.reason).toMatch(/^not judged passively/)
  })

  it('--fail-on: a MUST violation exits 1 under must and should, 0 under never', async () => {
    for (const failOn of ['must', 'should', 'never'] as const) {
      const proxy = await startProxy({ upstream: faultyUrl, failOn })
      await fetch(`${proxy.url}/shop/sps`, { headers: { ...headers(), 'x-fault': 'invalid-json' } }).then((r) => r.text())
      expect((await proxy.stop()).exitCode).toBe(failOn === 'never' ? 0 : 1)
    }
  })
})

describe('proxy: the command line', () => {
  it('shoptwin proxy runs until SIGTERM, is quiet when piped, writes report.json, junit.xml, report.html and exits per --fail-on', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoptwin-proxy-'))
    try {
      const child = spawn(process.execPath, [join(root, 'mock/cli.ts'), 'proxy', '--upstream', mockUrl, '--port', '0', '--report-dir', dir], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      child.stdout.on('data', (c: Buffer) => (out += c.toString()))
      child.stderr.on('data', (c: Buffer) => (out += c.toString()))
      const url = await new Promise<string>((done, fail) => {
        child.stdout.on('data', () => {
          const match = /^proxy: (http:\/\/\S+) →/m.exec(out)
          if (match) done(match[1]!)
        })
        child.on('exit', () => fail(new Error(out)))
      })
      await fetch(`${url}/account/shops`, { headers: { 'x-api-key': 'demo-key' } }).then((r) => r.text())
      await fetch(`${url}/ads/campaigns`, { method: 'POST', headers: headers(), body: JSON.stringify({ date_range: { from: '2026-10-01', to: '2026-10-31' } }) }).then((r) => r.text())
      const printedBefore = out
      const code = new Promise<number | null>((done) => child.on('exit', (c) => done(c)))
      child.kill('SIGTERM')
      expect(await code).toBe(0)
      // Piped: no live line per exchange, only the banner before the stop.
      expect(printedBefore.trim().split('\n')).toHaveLength(1)
      expect(out).toMatch(/server: NO VIOLATION/)
      const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))
      expect(json.exchanges).toBe(2)
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/^<\?xml/)
      const html = readFileSync(join(dir, 'report.html'), 'utf8')
      expect(html).toContain('The server\'s answers')
      for (const file of ['report.json', 'junit.xml', 'report.html']) expect(readFileSync(join(dir, file), 'utf8')).not.toContain('demo-key')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  /** `shoptwin proxy … -- <command>` piped: its output and exit code, once the child printed `ready` if `onReady` is given. */
  function proxyRunning(args: string[], onReady?: (child: ReturnType<typeof spawn>) => void): Promise<{ code: number | null; out: string }> {
    return new Promise((done) => {
      const child = spawn(process.execPath, [join(root, 'mock/cli.ts'), 'proxy', '--upstream', mockUrl, '--port', '0', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      let out = ''
      const read = (c: Buffer) => {
        out += c.toString()
        if (onReady && /^ready$/m.test(out)) {
          onReady(child)
          onReady = undefined
        }
      }
      child.stdout.on('data', read)
      child.stderr.on('data', read)
      child.on('exit', (code) => done({ code, out }))
    })
  }

  it('-- <command>: runs your integration with SHOPTWIN_BASE_URL on the proxy, stops when it ends, reports, and exits 1 when it failed', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoptwin-proxy-command-'))
    try {
      const call = "const r = await fetch(process.env.SHOPTWIN_BASE_URL + '/account/shops', { headers: { 'x-api-key': 'demo-key' } }); await r.text(); if (process.env.SHOPTWIN_UPSTREAM_URL !== process.argv[1]) process.exit(9);"
      const passed = await proxyRunning(['--report-dir', dir, '--', process.execPath, '--input-type=module', '-e', call, mockUrl])
      expect(passed.code, passed.out).toBe(0)
      expect(passed.out).toMatch(/^proxy: http:\/\/127\.0\.0\.1:\d+ → .*; running /m)
      const json = JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8'))
      expect([json.exchanges, json.command.outcome, json.command.failed]).toEqual([1, 'the command exited with 0', false])
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toMatch(/<testcase classname="proxy\.command" name="[^"]+" time="0\.000"><\/testcase>/)

      const failed = await proxyRunning(['--report-dir', dir, '--fail-on', 'never', '--', process.execPath, '--input-type=module', '-e', `${call} process.exit(3)`, mockUrl])
      expect(failed.code, failed.out).toBe(1)
      expect(failed.out).toMatch(/: the command exited with 3$/m)
      expect(readFileSync(join(dir, 'junit.xml'), 'utf8')).toContain('<failure message="the command exited with 3" type="fail"/>')
      expect(readFileSync(join(dir, 'report.html'), 'utf8')).toContain('the command exited with 3')
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('-- <command>: a SIGTERM to shoptwin (a cancelled CI job) is passed on to the command, then the reports are written; a command that cannot start exits 2', { timeout: 60_000 }, async () => {
    const dir = mkdtempSync(join(tmpdir(), 'shoptwin-proxy-command-'))
    try {
      const waits = "process.on('SIGTERM', () => { console.log('the command got SIGTERM'); process.exit(0) }); setInterval(() => {}, 1000); console.log('ready')"
      const stopped = await proxyRunning(['--report-dir', dir, '--', process.execPath, '-e', waits], (child) => child.kill('SIGTERM'))
      expect(stopped.out).toContain('the command got SIGTERM')
      expect(stopped.code, stopped.out).toBe(0)
      expect(JSON.parse(readFileSync(join(dir, 'report.json'), 'utf8')).command.outcome).toBe('the command exited with 0')
      const missing = await proxyRunning(['--', join(dir, 'no-such-command')])
      expect(missing.code).toBe(2)
      expect(missing.out).toMatch(/cannot run .*no-such-command/)
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  })

  it('bad usage exits 2 with one line naming the problem', async () => {
    const run = (args: string[]) => new Promise<{ code: number | null; err: string }>((done) => {
      const child = spawn(process.execPath, [join(root, 'mock/cli.ts'), 'proxy', ...args], { stdio: ['ignore', 'pipe', 'pipe'] })
      let err = ''
      child.stderr.on('data', (c: Buffer) => (err += c.toString()))
      child.on('exit', (code) => done({ code, err }))
    })
    expect(await run([])).toMatchObject({ code: 2, err: expect.stringContaining('--upstream URL is required') })
    expect(await run(['--upstream', 'ftp://x'])).toMatchObject({ code: 2, err: expect.stringContaining('--upstream must be an http(s) URL') })
    expect(await run(['--upstream', mockUrl, '--fail-on', 'sometimes'])).toMatchObject({ code: 2, err: expect.stringContaining('--fail-on must be must, should or never') })
    expect(await run(['--upstream', mockUrl, '--inject', '/nonexistent.json'])).toMatchObject({ code: 2, err: expect.stringContaining('--inject must be standard, strict or a JSON file') })
    expect(await run(['--upstream', mockUrl, '--'])).toMatchObject({ code: 2, err: expect.stringContaining('nothing after --') })
  })
})

describe('proxy: the live line', () => {
  it('one line per exchange: method, path, status, time, and the first finding or a tick', async () => {
    const { liveLine } = await import('../proxy/cli.ts')
    const x = { seq: 3, atMs: 0, durationMs: 4, method: 'POST', path: '/automations/create', query: '', operationId: 'createAutomation', requestHeaders: {}, requestBody: '', requestTruncated: false, status: 500, retryAfter: null, injected: '500 (applied)', upstream: { status: 201, headers: {}, body: '', raw: Buffer.alloc(0), truncated: false } }
    expect(liveLine({ x, findings: [] }, false)).toBe('#3 POST /automations/create → 500 (upstream 201) 4 ms  ✓ [--inject: 500 (applied)]')
    expect(liveLine({ x: { ...x, injected: undefined, status: 201 }, findings: [{ rule: 'contract.responses-valid', message: 'status 201 is not documented', failure: true }] }, false)).toBe('#3 POST /automations/create → 201 4 ms  ✗ contract.responses-valid: status 201 is not documented')
  })
})
