import type { ConnectorRule } from './types.ts'

export const pkceS256Only: ConnectorRule = {
  id: 'connector.pkce-s256-only',
  title: 'The authorization endpoint refuses the plain PKCE method as invalid_request on the redirect URI with the state',
  spec: 'Authentication 6 (authorization code with PKCE); RFC 7636 4.2, 7.2; OAuth 2.1 4.1.1',
  level: 'SHOULD',
  quote: ['OAuth 2.0 authorization code with PKCE', { source: 'RFC 7636 7.2', text: 'Clients SHOULD use the "S256" transformation' }, { source: 'OAuth 2.1 (draft) 4.1.1', text: 'Clients MUST use code_challenge_method=S256' }],
  inferred: 'PKCE allows the plain method (RFC 7636 4.2); refusing it is OAuth 2.1 guidance the spec does not cite',
  operations: ['registerConnectorClient', 'startConnectorAuthorization'],
  async run(t) {
    const { server } = await t.discovery()
    const client = await t.register()
    for (const [label, extra] of [
      ['code_challenge_method plain', { code_challenge: 'plain-challenge-plain-challenge-plain-challenge-1', code_challenge_method: 'plain' }],
    ] as const) {
      const url = new URL(server.authorization_endpoint)
      for (const [k, v] of Object.entries({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, state: 'conformance-state', ...extra })) url.searchParams.set(k, v)
      const response = await t.fetch(url.href)
      await response.arrayBuffer()
      const location = response.headers.get('location')
      const back = location ? new URL(location, url) : undefined
      t.check(response.status >= 300 && response.status < 400 && back?.searchParams.get('error') === 'invalid_request' && back.searchParams.get('state') === 'conformance-state', {
        message: `${label}: not refused as invalid_request on the redirect URI`,
        expected: `a redirect to ${client.redirect_uri}?error=invalid_request&state=conformance-state`,
        received: `${response.status} ${location ?? '(no redirect)'}`,
      })
    }
  },
}
