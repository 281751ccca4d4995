/**
 * Test harness of the suite itself: the mock started in-process on a loopback port, a proxy in
 * front of it that can break exactly one behaviour (a mutation), and a way to run rules directly.
 */
import { createServer as createHttpServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createRunEnvironment, runRule } from '../runner/run-rule.ts'
import type { Rule, RuleOutcome, RunOptions } from '../types.ts'

/** The demo keys of the mock (fixed for every seed). */
export const DEMO_KEYS = { standard: 'demo-key', enterprise: 'demo-enterprise-key', limited: 'demo-limited-key' } as const

export interface RunningMock {
  url: string
  shopId: string
  shops: Array<{ shop_id: string; is_active: boolean; plan: string }>
  close(): Promise<void>
}

/**
 * Starts the mock on 127.0.0.1, port 0; the shop is the first active shop on the scale plan.
 * Storefront snapshot builds take `haloRefreshMs` on the mock clock (its control API), so the halo
 * rule sees refreshing → ok within the tests' bound.
 */
export async function startMock(options: { rateLimit: boolean; seed?: number; haloRefreshMs?: number }): Promise<RunningMock> {
  // Imported by a computed path: the mock is another part of the project, loaded only here.
  const mockPath = ['..', '..', 'mock', 'index.ts'].join('/')
  const mock = (await import(mockPath)) as { createServer: (o: unknown) => { listen(port?: number, host?: string): Promise<string>; close(): Promise<void> } }
  const server = mock.createServer({ stateOptions: { seed: options.seed ?? 42, rateLimit: options.rateLimit } })
  const url = await server.listen(0, '127.0.0.1')
  const config = await fetch(`${url}/__admin/halo/config`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ refresh_ms: options.haloRefreshMs ?? 1500 }) })
  await config.arrayBuffer()
  const reply = await fetch(`${url}/account/shops`, { headers: { 'x-api-key': DEMO_KEYS.standard } })
  const shops = ((await reply.json()) as { data: RunningMock['shops'] }).data
  const shop = shops.find((s) => s.is_active && s.plan === 'scale') ?? shops.find((s) => s.is_active) ?? shops[0]
  return { url, shopId: shop.shop_id, shops, close: () => server.close() }
}

/** Run options against a target with the demo keys. */
export function demoOptions(baseUrl: string, shopId: string, overrides: Partial<RunOptions> = {}): RunOptions {
  return {
    baseUrl,
    apiKey: DEMO_KEYS.standard,
    enterpriseApiKey: DEMO_KEYS.enterprise,
    limitedApiKey: DEMO_KEYS.limited,
    shopId,
    allowWrites: true,
    rules: [],
    rps: 200,
    haloBoundSeconds: 10,
    ruleTimeoutSeconds: 60,
    ...overrides,
  }
}

/** Runs rules in order against a target, sharing one environment (as a run of the CLI does). */
export async function runRules(rules: readonly Rule[], options: RunOptions): Promise<RuleOutcome[]> {
  const env = createRunEnvironment(options)
  const outcomes: RuleOutcome[] = []
  for (const rule of rules) outcomes.push(await runRule(rule, env))
  return outcomes
}

/** A request as the proxy received it. */
export interface ProxiedRequest {
  method: string
  path: string
  query: string
  headers: Record<string, string>
  body: string
  /** The body parsed, when it is JSON. */
  json: any
}

export interface ProxiedResponse {
  status: number
  headers: Record<string, string>
  body: string
}

/** Sends a (possibly changed) request on to the mock. */
export type Forward = (request?: Partial<ProxiedRequest> & { json?: any }) => Promise<ProxiedResponse>

/** Breaks one behaviour: gets each request and the way to forward it, returns the answer. */
export type Mutation = (request: ProxiedRequest, forward: Forward) => Promise<ProxiedResponse>

const HOP_HEADERS = new Set(['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'host'])

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** A proxy on 127.0.0.1, port 0, in front of `upstream`, applying a mutation (or none). */
export async function startProxy(upstream: string, mutation?: Mutation): Promise<{ url: string; close(): Promise<void>; setMutation(m?: Mutation): void }> {
  let current = mutation
  const server: Server = createHttpServer(async (req, res) => {
    try {
      const body = await readBody(req)
      const [path, query = ''] = (req.url ?? '/').split('?')
      const headers: Record<string, string> = {}
      for (const [name, value] of Object.entries(req.headers)) if (typeof value === 'string' && !HOP_HEADERS.has(name)) headers[name] = value
      let json: any
      try {
        json = body ? JSON.parse(body) : undefined
      } catch {
        json = undefined
      }
      const request: ProxiedRequest = { method: req.method ?? 'GET', path, query, headers, body, json }
      const forward: Forward = async (change = {}) => {
        const next = { ...request, ...change }
        const sentBody = 'json' in change && change.json !== undefined ? JSON.stringify(change.json) : next.body
        const response = await fetch(`${upstream}${next.path}${next.query ? `?${next.query}` : ''}`, {
          method: next.method,
          headers: next.headers,
          body: next.method === 'GET' || next.method === 'HEAD' ? undefined : sentBody,
        })
        const out: Record<string, string> = {}
        response.headers.forEach((value, name) => {
          if (!HOP_HEADERS.has(name) && name !== 'content-encoding') out[name] = value
        })
        return { status: response.status, headers: out, body: await response.text() }
      }
      const answer = current ? await current(request, forward) : await forward()
      res.writeHead(answer.status, answer.headers)
      res.end(answer.body)
    } catch (error) {
      res.writeHead(502, { 'content-type': 'application/json' })
      res.end(JSON.stringify({ error: `proxy: ${(error as Error).message}` }))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    setMutation(m) {
      current = m
    },
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    }),
  }
}

/** A JSON answer. */
export const jsonAnswer = (status: number, body: unknown, headers: Record<string, string> = {}): ProxiedResponse => ({
  status,
  headers: { 'content-type': 'application/json', ...headers },
  body: JSON.stringify(body),
})

/** Forwards, then changes the JSON body of matching answers. */
export function rewriteJson(match: (request: ProxiedRequest, response: ProxiedResponse) => boolean, change: (json: any, request: ProxiedRequest) => any): Mutation {
  return async (request, forward) => {
    const response = await forward()
    if (!match(request, response)) return response
    let json: any
    try {
      json = JSON.parse(response.body)
    } catch {
      return response
    }
    const changed = change(json, request) ?? json
    return { ...response, body: JSON.stringify(changed) }
  }
}
