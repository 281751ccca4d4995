import type { ConnectorRule, ConnectorRuleContext } from './types.ts'

export const pkceRequired: ConnectorRule = {
  id: 'connector.pkce-required',
  title: 'The authorization endpoint refuses a request without a code challenge as invalid_request on the redirect URI with the state',
  spec: 'Authentication 6 (authorization code with PKCE); RFC 7636 4.4.1; RFC 6749 4.1.2.1',
  level: 'MUST',
  quote: ['sends the user through sign-in (OAuth 2.0 authorization code with PKCE)', 'The assistant-connector server uses OAuth 2.0 authorization code with PKCE and per-shop, per-tool consent.', { source: 'RFC 7636 4.4.1', text: 'If the server requires Proof Key for Code Exchange (PKCE) by OAuth public clients and the client does not send the "code_challenge" in the request, the authorization endpoint MUST return the authorization error response with the "error" value set to "invalid_request"' }],
  operations: ['registerConnectorClient', 'startConnectorAuthorization'],
  run: (t) => expectAuthorizationRefused(t, 'no code_challenge', {}),
}

/** Asks for authorization with `extra` parameters and checks the refusal: invalid_request on the redirect URI, with the state (RFC 6749 4.1.2.1). */
export async function expectAuthorizationRefused(t: ConnectorRuleContext, label: string, extra: Record<string, string>): Promise<void> {
  const { server } = await t.discovery()
  const client = await t.register()
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
