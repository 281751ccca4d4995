import type { ConnectorRule } from './types.ts'

export const redirectExact: ConnectorRule = {
  id: 'connector.redirect-exact',
  title: 'The authorization endpoint never redirects to a redirect URI that is not exactly one the client registered (checked with https URIs: a loopback http URI may differ in its port alone, RFC 8252 7.3)',
  spec: 'Authentication 6; RFC 6749 3.1.2.3, 4.1.2.1; OAuth 2.1 (exact string matching)',
  level: 'MUST',
  quote: ['The assistant-connector server uses OAuth 2.0 authorization code with PKCE', { source: 'RFC 6749 3.1.2.3', text: 'If the client registration included the full redirection URI, the authorization server MUST compare the two URIs using simple string comparison' }, { source: 'RFC 6749 4.1.2.1', text: 'the authorization server SHOULD inform the resource owner of the error and MUST NOT automatically redirect the user-agent to the invalid redirection URI' }],
  operations: ['registerConnectorClient', 'startConnectorAuthorization'],
  async run(t) {
    const { server } = await t.discovery()
    const client = await t.register()
    for (const other of [`${client.redirect_uri}/extra`, client.redirect_uri.replace('https://', 'https://attacker.')]) {
      const url = new URL(server.authorization_endpoint)
      for (const [k, v] of Object.entries({ response_type: 'code', client_id: client.client_id, redirect_uri: other, state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })) url.searchParams.set(k, v)
      const response = await t.fetch(url.href)
      await response.arrayBuffer()
      const location = response.headers.get('location') ?? ''
      t.check(!location.startsWith(other), { message: 'redirected to an unregistered redirect URI', expected: 'an error shown to the user, no redirect', received: `${response.status} Location: ${location}` })
    }
  },
}
