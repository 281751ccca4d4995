/**
 * `npm run bench:connector`: the assistant connector, in one run on one machine.
 *   1. The whole OAuth dance (register, authorize, sign in, consent, exchange) plus 10 tool calls,
 *      end to end, in-process (the connector's fetch handler called directly) and over HTTP (the
 *      standalone server on loopback): median of BENCH_DANCES runs (default 20), ms.
 *   2. Tool-call overhead: the same read (getShopSps) as an MCP tools/call and as the REST request,
 *      sequentially, BENCH_CALLS each (default 500), in-process and over HTTP: mean µs and the ratio.
 * Only loopback addresses are used; the rate limit and the response cache are off for both doors.
 */
import { createServer } from '../mock/server.ts'
import { createConnector } from '../mock/connector/index.ts'
import { createOperationRoutes } from '../mock/handlers.ts'
import { createMockState, type MockState } from '../mock/state.ts'
import { consent, createBrowser, pkcePair } from '../test/connector-helpers.ts'

const DANCES = Number(process.env.BENCH_DANCES ?? 20)
const CALLS = Number(process.env.BENCH_CALLS ?? 500)
const REDIRECT = 'https://bench.example.com/cb'
const ACCEPT = 'application/json, text/event-stream'

type Fetch = typeof fetch

async function dance(fetchFn: Fetch, base: string, state: MockState): Promise<string> {
  const user = state.connector.data.users[0]!
  const client = (await (await fetchFn(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'bench', redirect_uris: [REDIRECT] }) })).json()) as { client_id: string }
  const { verifier, challenge } = pkcePair()
  const url = new URL(`${base}/oauth/authorize`)
  for (const [k, v] of Object.entries({ response_type: 'code', client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge, code_challenge_method: 'S256', state: 's' })) url.searchParams.set(k, v)
  const back = await consent(createBrowser(fetchFn), url.href, { email: user.email, password: user.password, shops: [state.world.shops[0]!.shop_id], tools: ['getShopSps'] })
  const tokens = (await (await fetchFn(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT }) })).json()) as { access_token: string }
  return tokens.access_token
}

function toolCall(fetchFn: Fetch, base: string, token: string, shopId: string): Promise<Response> {
  return fetchFn(`${base}/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json', accept: ACCEPT },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getShopSps', arguments: { shop_id: shopId } } }),
  })
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

async function danceAndCalls(fetchFn: Fetch, base: string, state: MockState): Promise<number> {
  const started = performance.now()
  const token = await dance(fetchFn, base, state)
  for (let i = 0; i < 10; i++) {
    const answer = (await (await toolCall(fetchFn, base, token, state.world.shops[0]!.shop_id)).json()) as { result?: { isError?: boolean } }
    if (!answer.result || answer.result.isError) throw new Error('tool call failed')
  }
  return performance.now() - started
}

async function meanMicros(n: number, once: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < 50; i++) await once()
  const started = performance.now()
  for (let i = 0; i < n; i++) await once()
  return ((performance.now() - started) * 1000) / n
}

const stateOptions = { seed: 42, rateLimit: false, now: '2026-03-01T10:00:00.000Z' }

// In-process: the connector's handler and the REST pipeline, no network.
const local = createMockState(stateOptions)
const MCP_BASE = 'https://mcp.example.com'
const connector = createConnector(local, { baseUrl: MCP_BASE })
const localFetch = ((input: string | URL | Request, init?: RequestInit) => connector.handle(new Request(input, init))) as Fetch
const sps = createOperationRoutes(local, { baseUrl: 'https://api.example.com' }).find((r) => r.op.operationId === 'getShopSps')!
const shopId = local.world.shops[0]!.shop_id
const inProcessDance: number[] = []
for (let i = 0; i < DANCES; i++) inProcessDance.push(await danceAndCalls(localFetch, MCP_BASE, local))
const localToken = await dance(localFetch, MCP_BASE, local)
const localTool = await meanMicros(CALLS, async () => (await toolCall(localFetch, MCP_BASE, localToken, shopId)).text())
const restHeaders = new Headers({ 'x-api-key': 'demo-key', 'x-shop-id': shopId })
const localRest = await meanMicros(CALLS, () => sps.run({ method: 'GET', url: new URL('https://api.example.com/shop/sps'), headers: restHeaders, bodyText: '' }))

// Over HTTP: the standalone server on loopback.
const mock = createServer({ stateOptions: { ...stateOptions, responseCache: false } })
const base = await mock.listen(0, '127.0.0.1')
const httpDance: number[] = []
for (let i = 0; i < DANCES; i++) httpDance.push(await danceAndCalls(fetch, base, mock.state))
const httpToken = await dance(fetch, base, mock.state)
const httpShop = mock.state.world.shops[0]!.shop_id
const httpTool = await meanMicros(CALLS, async () => (await toolCall(fetch, base, httpToken, httpShop)).text())
const httpRest = await meanMicros(CALLS, async () => (await fetch(`${base}/shop/sps`, { headers: { 'x-api-key': 'demo-key', 'x-shop-id': httpShop } })).text())
await mock.close()

const ms = (x: number) => `${x.toFixed(1)} ms`
const us = (x: number) => `${x.toFixed(0)} µs`
console.log(`connector bench (node ${process.version}; ${DANCES} dances, ${CALLS} calls each)`)
console.log(`OAuth dance + 10 tool calls, median   in-process ${ms(median(inProcessDance))}   over HTTP ${ms(median(httpDance))}`)
console.log(`getShopSps, mean per call             in-process: tool ${us(localTool)} vs REST ${us(localRest)} (x${(localTool / localRest).toFixed(1)})`)
console.log(`                                      over HTTP:  tool ${us(httpTool)} vs REST ${us(httpRest)} (x${(httpTool / httpRest).toFixed(1)})`)
