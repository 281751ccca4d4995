/**
 * spec: Authentication 6. The connector rules of `shoptwin conformance --mcp-url` (conformance/rules/
 * connector/): every rule passes against shoptwin's connector, and each is killed by a mutation of it
 * (a fetch wrapper that makes the connector misbehave the way a faulty server would).
 */
import { getResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { createHandlers } from '../mock/handlers.ts'
import { connectorRules, runConnectorRules } from '../conformance/rules/connector/run.ts'
import { createConnector } from '../mock/connector/index.ts'
import { createMockState } from '../mock/state.ts'

const BASE = 'https://mcp.example.com'
const MCP = `${BASE}/mcp`
const S256 = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM'

type Mutation = (request: Request, next: (request: Request) => Promise<Response>) => Promise<Response>

const API = 'https://api.example.com'

/** shoptwin's connector (and its REST API at API) in-process, through `mutation` when given. */
function target(mutation?: Mutation): { fetchFn: typeof fetch; user: { email: string; password: string }; api: { baseUrl: string; apiKey: string } } {
  const state = createMockState({ seed: 9, now: '2026-08-01T00:00:00.000Z', rateLimit: false })
  const connector = createConnector(state, { baseUrl: BASE })
  const rest = createHandlers(state, { baseUrl: API })
  const serve = async (r: Request) => (r.url.startsWith(API) ? ((await getResponse(rest, r)) ?? new Response(null, { status: 404 })) : connector.handle(r))
  const fetchFn = ((input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init)
    return mutation ? mutation(request, serve) : serve(request)
  }) as typeof fetch
  const { email, password } = state.connector.data.users[0]!
  return { fetchFn, user: { email, password }, api: { baseUrl: API, apiKey: 'demo-key' } }
}

const withJson = async (response: Response, edit: (body: any) => any, status = response.status) => {
  const headers = new Headers(response.headers)
  headers.delete('content-length')
  return new Response(JSON.stringify(edit(await response.json())), { status, headers })
}

const MUTATIONS: Record<string, Mutation> = {
  // A 401 without the Bearer challenge.
  'connector.unauthorized-challenge': async (request, next) => {
    const response = await next(request)
    if (response.status !== 401) return response
    const headers = new Headers(response.headers)
    headers.delete('www-authenticate')
    return new Response(response.body, { status: 401, headers })
  },
  // Metadata that offers the plain PKCE method too.
  'connector.discovery-documents': async (request, next) => {
    const response = await next(request)
    return new URL(request.url).pathname === '/.well-known/oauth-authorization-server' ? withJson(response, (b) => ({ ...b, code_challenge_methods_supported: ['S256', 'plain'] })) : response
  },
  // Registration that takes any http redirect URI.
  'connector.registration-redirects': async (request, next) => {
    if (new URL(request.url).pathname !== '/oauth/register') return next(request)
    const text = (await request.text()).replaceAll('http://conformance.example.com', 'https://conformance.example.com')
    return next(new Request(request.url, { method: 'POST', headers: request.headers, body: text }))
  },
  // An authorization endpoint that proceeds without PKCE (or with plain).
  'connector.pkce-required': async (request, next) => {
    const url = new URL(request.url)
    if (url.pathname === '/oauth/authorize' && request.method === 'GET' && url.searchParams.has('client_id')) {
      url.searchParams.set('code_challenge', S256)
      url.searchParams.set('code_challenge_method', 'S256')
      return next(new Request(url, request))
    }
    return next(request)
  },
  // An authorization endpoint that sends its errors to whatever redirect URI it was given.
  'connector.redirect-exact': async (request, next) => {
    const url = new URL(request.url)
    const redirect = url.searchParams.get('redirect_uri')
    if (url.pathname === '/oauth/authorize' && redirect && (redirect.endsWith('/extra') || redirect.includes('attacker.'))) return new Response(null, { status: 302, headers: { location: `${redirect}?error=invalid_request&state=s` } })
    return next(request)
  },
  // A token endpoint that answers a repeated code with the first answer again.
  'connector.code-single-use': (() => {
    const seen = new Map<string, string>()
    return async (request: Request, next: (r: Request) => Promise<Response>) => {
      if (new URL(request.url).pathname !== '/oauth/token') return next(request)
      const text = await request.text()
      const code = new URLSearchParams(text).get('code')
      if (code && seen.has(code)) return new Response(seen.get(code)!, { status: 200, headers: { 'content-type': 'application/json' } })
      const response = await next(new Request(request.url, { method: 'POST', headers: request.headers, body: text }))
      if (code && response.status === 200) seen.set(code, await response.clone().text())
      return response
    }
  })(),
  // Consent that grants one more tool than the user ticked.
  'connector.consent-scoping': async (request, next) => {
    if (new URL(request.url).pathname !== '/oauth/authorize' || request.method !== 'POST') return next(request)
    const form = new URLSearchParams(await request.text())
    form.append('tool', 'listAccountShops')
    return next(new Request(request.url, { method: 'POST', headers: request.headers, body: form.toString() }))
  },
  // A revocation endpoint that answers 200 and revokes nothing.
  'connector.revocation-effective': async (request, next) => (new URL(request.url).pathname === '/oauth/revoke' ? new Response(null, { status: 200 }) : next(request)),
  // An activity log that records API-key actions only.
  'connector.activity-both-doors': async (request, next) => {
    const response = await next(request)
    return new URL(request.url).pathname === '/account/activity' ? withJson(response, (b) => ({ ...b, data: b.data.filter((e: { actor: { kind: string } }) => e.actor.kind !== 'connector') })) : response
  },
  // invalid_client answered with 400 instead of 401.
  'connector.token-errors': async (request, next) => {
    const response = await next(request)
    return new URL(request.url).pathname === '/oauth/token' && response.status === 401 ? withJson(response, (b) => b, 400) : response
  },
}

describe('connector conformance rules (shoptwin conformance --mcp-url)', () => {
  it('every rule passes against shoptwin\'s connector', async () => {
    const outcomes = await runConnectorRules({ mcpUrl: MCP, ...target() })
    expect(outcomes.map((o) => [o.id, o.status, o.failures.map((f) => f.message), o.reason])).toEqual(connectorRules.map((r) => [r.id, 'pass', [], undefined]))
  })
  it('without a user the rules past sign-in are skipped, not failed', async () => {
    const outcomes = await runConnectorRules({ mcpUrl: MCP, fetchFn: target().fetchFn })
    expect(outcomes.filter((o) => o.status === 'skip').map((o) => o.id)).toEqual(['connector.code-single-use', 'connector.consent-scoping', 'connector.revocation-effective', 'connector.activity-both-doors'])
    expect(outcomes.every((o) => o.status === 'pass' || o.status === 'skip')).toBe(true)
  })
  it('every rule has a killing mutation', () => {
    expect(Object.keys(MUTATIONS).sort()).toEqual(connectorRules.map((r) => r.id).sort())
  })
  it.each(Object.keys(MUTATIONS))('%s is killed by its mutation', async (id) => {
    const rule = connectorRules.find((r) => r.id === id)!
    const [outcome] = await runConnectorRules({ mcpUrl: MCP, ...target(MUTATIONS[id]), rules: [rule] })
    expect(outcome!.status).toBe('fail')
  })
})
