import type { ConnectorRule } from './types.ts'

export const unauthorizedChallenge: ConnectorRule = {
  id: 'connector.unauthorized-challenge',
  title: 'The MCP endpoint answers a request without a token with 401 and a Bearer challenge naming the resource metadata',
  spec: 'Authentication 6; MCP authorization (RFC 9728 5.1)',
  level: 'SHOULD',
  quote: ['The client registers itself and sends the user through sign-in (OAuth 2.0 authorization code with PKCE)', { source: 'RFC 9728 5.1', text: 'a protected resource MAY use the WWW-Authenticate HTTP response header field ... to return a URL to its protected resource metadata' }, { source: 'MCP authorization (2025-06-18)', text: 'MCP servers MUST use the HTTP header WWW-Authenticate when returning a 401 Unauthorized to indicate the location of the resource server metadata URL' }],
  inferred: 'the spec names OAuth 2.0 but not how the MCP endpoint challenges: the 401 and resource_metadata come from the MCP authorization specification and RFC 9728, which the spec does not cite',
  operations: ['callConnectorMcp'],
  async run(t) {
    const response = await t.fetch(t.mcpUrl, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{"jsonrpc":"2.0","id":1,"method":"tools/list"}' })
    await response.arrayBuffer()
    t.check(response.status === 401, { message: 'no 401 without a token', expected: '401', received: String(response.status) })
    const challenge = response.headers.get('www-authenticate') ?? ''
    t.check(/^Bearer\b/i.test(challenge) && /resource_metadata="[^"]+"/.test(challenge), { message: 'the 401 has no Bearer challenge with resource_metadata', expected: 'WWW-Authenticate: Bearer resource_metadata="..."', received: challenge || '(none)' })
  },
}
