/**
 * Prism as an independent validator: the suite's traffic to our mock goes through
 * `prism proxy openapi/openapi.yaml <mock> --errors`, and Prism must find no response that
 * violates the document. (Prism answers requests it finds invalid with 422 itself: the suite sends
 * many on purpose, so request violations are counted, not judged, except in the sweep of valid
 * minimal requests.)
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { catalogue } from '../conformance/catalogue.ts'
import { createRunEnvironment, runRule, type RunEnvironment } from '../conformance/runner/run-rule.ts'
import { demoOptions, startMock, type RunningMock } from '../conformance/testing/harness.ts'
import type { Exchange } from '../conformance/types.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const prismEntry = `${root}node_modules/@stoplight/prism-cli/dist/index.js`

/**
 * Requests of the sweep that Prism refuses although they are valid: Prism validates absent
 * optional deepObject query parameters as empty objects, so the GET forms whose body has
 * optional {from, to} ranges are refused (a Prism limitation, not a document bug: the
 * parameters are not required).
 */
const PRISM_REQUEST_LIMITATIONS = new Set(['listSparkCodesGet'])

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function startPrismProxy(upstream: string): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort()
  const child = spawn(process.execPath, [prismEntry, 'proxy', `${root}openapi/openapi.yaml`, upstream, '-p', String(port), '-h', '127.0.0.1', '--errors'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`prism did not start:\n${output.slice(-2000)}`)), 60_000)
    const listen = (d: Buffer) => {
      output += d
      if (output.includes('Prism is listening')) {
        clearTimeout(timer)
        resolve()
      }
    }
    child.stdout!.on('data', listen)
    child.stderr!.on('data', listen)
    child.on('exit', (code) => reject(new Error(`prism exited with ${code}:\n${output.slice(-2000)}`)))
  })
  return { url: `http://127.0.0.1:${port}`, child }
}

/** Prism's verdicts on one exchange: violations of the request and of the response. */
function prismViolations(exchange: Exchange): { request: string[]; response: string[] } {
  const out = { request: [] as string[], response: [] as string[] }
  let violations: Array<{ location: string[]; message: string }> = []
  try {
    violations = JSON.parse(exchange.responseHeaders['sl-violations'] ?? '[]')
    if (!violations.length && (exchange.responseHeaders['content-type'] ?? '').includes('problem+json')) violations = JSON.parse(exchange.responseExcerpt).validation ?? []
  } catch {
    // an excerpt cut short: the header is the source then
  }
  for (const v of violations) (v.location[0] === 'response' ? out.response : out.request).push(`${v.location.join('.')}: ${v.message}`)
  return out
}

/**
 * Whether the mock itself answers this request 5xx (sent again, directly, with the demo key): 501
 * for an area not landed yet, where Prism mocks the answer itself, or 500 for an area in progress.
 * Either judges an unfinished mock, which test/conformance-mock.test.ts reports.
 */
async function mockAnswersUnfinished(e: Exchange): Promise<boolean> {
  const url = new URL(e.url)
  const headers = { ...e.requestHeaders, 'x-api-key': 'demo-key' }
  delete (headers as Record<string, string>)['idempotency-key']
  const response = await fetch(`${mock.url}${url.pathname}${url.search}`, { method: e.method, headers, body: e.method === 'GET' ? undefined : e.requestBody })
  await response.arrayBuffer()
  return response.status >= 500
}

let mock: RunningMock
let prism: { url: string; child: ChildProcess }
let env: RunEnvironment

beforeAll(async () => {
  mock = await startMock({ rateLimit: false })
  prism = await startPrismProxy(mock.url)
  env = createRunEnvironment(demoOptions(prism.url, mock.shopId, { rps: 100 }))
  for (const rule of catalogue.filter((r) => r.id !== 'ratelimit.burst-429')) await runRule(rule, env)
}, 600_000)

afterAll(async () => {
  prism?.child.kill()
  await mock?.close()
})

describe('Prism proxy --errors agrees with the suite\'s ajv validation', () => {
  it('finds no response of the mock that violates the document', async () => {
    const violations: string[] = []
    for (const e of env.history) {
      const found = prismViolations(e).response
      // Where the mock answers 501 (an area not landed yet) Prism mocks the answer itself: its own
      // static examples then break patterns, which judges Prism, not the mock.
      if (!found.length || (await mockAnswersUnfinished(e))) continue
      violations.push(...found.map((v) => `${e.method} ${e.operationId} (${e.rule}): ${v}`))
    }
    expect([...new Set(violations)]).toEqual([])
  })

  it('accepts every valid minimal request of the sweep', () => {
    const sweep = env.history.filter((e) => e.rule === 'contract.reads-answer' && !PRISM_REQUEST_LIMITATIONS.has(e.operationId))
    const refused = sweep.flatMap((e) => prismViolations(e).request.map((v) => `${e.method} ${e.url.replace(prism.url, '')}: ${v}`))
    expect([...new Set(refused)]).toEqual([])
  })

  it('and ajv finds no schema error where Prism found none (the two validators agree)', () => {
    const ajvOnly = env.history.filter((e) => e.status !== 501 && e.schema.some((f) => f.severity === 'error') && !prismViolations(e).response.length && !(e.responseHeaders['content-type'] ?? '').includes('problem+json'))
    expect(ajvOnly.map((e) => `${e.method} ${e.operationId}: ${e.schema.map((f) => f.message).join('; ')}`)).toEqual([])
  })
})

describe('Prism proxy --errors agrees that the connector answers as its contract entries say (x-shoptwin-door: connector)', () => {
  it('finds no violation in the metadata documents, registration, token errors and revocation of the mock\'s connector', async () => {
    const form = { 'content-type': 'application/x-www-form-urlencoded' }
    const send = async (method: string, path: string, headers: Record<string, string> = {}, body?: string) => {
      const response = await fetch(`${prism.url}${path}`, { method, headers, body, redirect: 'manual' })
      await response.arrayBuffer()
      const violations = JSON.parse(response.headers.get('sl-violations') ?? '[]') as Array<{ location: string[]; message: string }>
      return { call: `${method} ${path} → ${response.status}`, violations: violations.map((v) => `${v.location.join('.')}: ${v.message}`) }
    }
    const registered = await fetch(`${prism.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Prism check', redirect_uris: ['https://assistant.example.org/callback'] }) })
    const { client_id } = (await registered.json()) as { client_id: string }
    const seen = [
      await send('GET', '/.well-known/oauth-authorization-server'),
      await send('GET', '/.well-known/oauth-protected-resource/mcp'),
      // An http redirect URI off loopback breaks the contract's pattern (issue 24): Prism refuses it itself (422), as a client generated from the contract would.
      await send('POST', '/oauth/register', { 'content-type': 'application/json' }, JSON.stringify({ redirect_uris: ['http://evil.example/cb'] })),
      await send('POST', '/oauth/token', form, new URLSearchParams({ grant_type: 'authorization_code', code: 'code_unknown', code_verifier: 'v'.repeat(43), redirect_uri: 'https://assistant.example.org/callback', client_id }).toString()),
      await send('POST', '/oauth/token', form, new URLSearchParams({ grant_type: 'refresh_token', refresh_token: 'stw_rt_unknown', client_id: 'unknown-client' }).toString()),
      await send('POST', '/oauth/revoke', form, new URLSearchParams({ token: 'stw_at_unknown', client_id }).toString()),
    ]
    expect(registered.status).toBe(201)
    expect(seen.map((s) => s.call)).toEqual([
      'GET /.well-known/oauth-authorization-server → 200', 'GET /.well-known/oauth-protected-resource/mcp → 200', 'POST /oauth/register → 422',
      'POST /oauth/token → 400', 'POST /oauth/token → 401', 'POST /oauth/revoke → 200',
    ])
    expect(seen.flatMap((s) => s.violations.map((v) => `${s.call}: ${v}`))).toEqual([])
  })
})
