import type { ConnectorRule } from './types.ts'

export const pkceRequired: ConnectorRule = {
  id: 'connector.pkce-required',
  title: 'The authorization endpoint refuses a request without a code challenge, or with the plain method, as invalid_request on the redirect URI with the state',
  spec: 'Authentication 6 (authorization code with PKCE); RFC 7636 4.4.1; RFC 6749 4.1.2.1',
  level: 'MUST',
  operations: ['registerConnectorClient', 'startConnectorAuthorization'],
  async run(t) {
    const { server } = await t.discovery()
    const client = await t.register()
    for (const [label, extra] of [
      ['no code_challenge', {}],
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
