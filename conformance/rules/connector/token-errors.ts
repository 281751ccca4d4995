import type { ConnectorRule } from './types.ts'

export const tokenErrors: ConnectorRule = {
  id: 'connector.token-errors',
  title: 'The token endpoint answers RFC 6749 5.2 errors as JSON: invalid_client (401), invalid_grant, unsupported_grant_type, invalid_request',
  spec: 'Authentication 6; RFC 6749 5.2',
  level: 'MUST',
  quote: ['The assistant-connector server uses OAuth 2.0 authorization code with PKCE', { source: 'RFC 6749 5.2', text: 'The authorization server responds with an HTTP 400 (Bad Request) status code (unless specified otherwise) and includes the following parameters with the response: error REQUIRED' }],
  operations: ['registerConnectorClient', 'requestConnectorToken'],
  async run(t) {
    const { server } = await t.discovery()
    const client = await t.register()
    const cases: Array<[string, Record<string, string>, number, string]> = [
      ['unknown client', { grant_type: 'authorization_code', code: 'x', code_verifier: 'v'.repeat(43), client_id: 'no-such-client', redirect_uri: client.redirect_uri }, 401, 'invalid_client'],
      ['unknown code', { grant_type: 'authorization_code', code: 'no-such-code', code_verifier: 'v'.repeat(43), client_id: client.client_id, redirect_uri: client.redirect_uri }, 400, 'invalid_grant'],
      ['grant type password', { grant_type: 'password', client_id: client.client_id, username: 'a', password: 'b' }, 400, 'unsupported_grant_type'],
      ['no grant type', { client_id: client.client_id }, 400, 'invalid_request'],
    ]
    for (const [label, form, status, error] of cases) {
      const response = await t.fetch(server.token_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form).toString() })
      const body = (await response.json().catch(() => null)) as Record<string, unknown> | null
      t.check(response.status === status && body?.error === error, { message: `${label}: not answered as ${error}`, expected: `${status} {"error":"${error}"}`, received: `${response.status} ${JSON.stringify(body)?.slice(0, 200)}` })
    }
  },
}
