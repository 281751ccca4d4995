/**
 * The connector looks its records up by values a request names (client_id, connection_id). Keys every
 * plain object answers to (`toString`, `__proto__`, `constructor`) are unknown ids like any other:
 * RFC 6749 4.1.2.1 (an unknown client is an error page), 5.2 (`invalid_client`), RFC 7009 2.2.1;
 * never a 5xx (found by the contract fuzz: `client_id=toString` on /oauth/authorize gave 500).
 */
import { describe, expect, it } from 'vitest'
import { createConnector } from '../mock/connector/index.ts'
import { createMockState } from '../mock/index.ts'

const MCP = 'https://mcp.example.com'
const state = createMockState({ seed: 5, now: '2026-04-01T08:00:00.000Z', rateLimit: false })
const connector = createConnector(state, { baseUrl: MCP })
const form = (path: string, fields: Record<string, string>) =>
  connector.handle(new Request(`${MCP}${path}`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(fields).toString() }))

describe.each(['toString', '__proto__', 'constructor', 'hasOwnProperty', 'valueOf'])('a request naming %s', (key) => {
  it('authorize: an unknown client (an error page, 400)', async () => {
    const url = new URL(`${MCP}/oauth/authorize`)
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: key, redirect_uri: 'https://a.example/cb', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256', request_id: key })) url.searchParams.set(k, v)
    const answer = await connector.handle(new Request(url))
    expect(answer.status).toBe(400)
  })
  it('token and revoke: invalid_client', async () => {
    for (const answer of [
      await form('/oauth/token', { grant_type: 'refresh_token', refresh_token: 'r', client_id: key }),
      await form('/oauth/token', { grant_type: 'authorization_code', code: 'c', code_verifier: 'v'.repeat(43), redirect_uri: 'https://a.example/cb', client_id: key }),
      await form('/oauth/revoke', { token: 't', client_id: key }),
    ]) {
      expect(answer.status).toBe(401)
      expect(((await answer.json()) as { error: string }).error).toBe('invalid_client')
    }
  })
  it('consent and revoking a connection: refused, not a 5xx', async () => {
    for (const answer of [await form('/oauth/authorize', { request_id: key, decision: 'allow' }), await form('/oauth/connections/revoke', { connection_id: key })]) expect(answer.status).toBeLessThan(500)
  })
})
