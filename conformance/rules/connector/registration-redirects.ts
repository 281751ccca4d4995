import type { ConnectorRule } from './types.ts'

export const registrationRedirects: ConnectorRule = {
  id: 'connector.registration-redirects',
  title: 'Dynamic registration gives a public client an id, and refuses a plain-http redirect URI off loopback',
  spec: 'Authentication 6 (the client registers itself); RFC 7591 3.2; RFC 6749 3.1.2.1',
  level: 'SHOULD',
  quote: ['The client registers itself', { source: 'RFC 6749 3.1.2.1', text: 'The redirection endpoint SHOULD require the use of TLS' }, { source: 'RFC 7591 3.2', text: 'client_secret OPTIONAL' }],
  inferred: 'that a client registers itself is stated (every rule that registers depends on it); refusing a plain-http redirect off loopback and no secret for a public client are RFC recommendations, not the spec\'s words',
  operations: ['registerConnectorClient'],
  async run(t) {
    const { server } = await t.discovery()
    const register = (redirect: string) =>
      t.fetch(server.registration_endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'shoptwin conformance', redirect_uris: [redirect], token_endpoint_auth_method: 'none' }) })
    const good = await register('https://conformance.example.com/callback')
    const body = (await good.json().catch(() => ({}))) as Record<string, unknown>
    t.check(good.status === 201 && typeof body.client_id === 'string', { message: 'a valid public registration was not accepted', expected: '201 with client_id', received: `${good.status} ${JSON.stringify(body).slice(0, 200)}` })
    t.check(!('client_secret' in body), { message: 'a public client (token_endpoint_auth_method none) got a secret', expected: 'no client_secret', received: 'client_secret present' })
    const bad = await register('http://conformance.example.com/callback')
    const error = (await bad.json().catch(() => ({}))) as Record<string, unknown>
    t.check(bad.status === 400 && error.error === 'invalid_redirect_uri', { message: 'a plain-http redirect URI off loopback was accepted', expected: '400 invalid_redirect_uri', received: `${bad.status} ${String(error.error)}` })
  },
}
