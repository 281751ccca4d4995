import type { ConnectorRule } from './types.ts'

export const codeSingleUse: ConnectorRule = {
  id: 'connector.code-single-use',
  title: 'An authorization code redeems once: a second redemption is invalid_grant',
  spec: 'Authentication 6; RFC 6749 4.1.2 (MUST deny a code used more than once), 10.5',
  level: 'MUST',
  quote: ['The assistant-connector server uses OAuth 2.0 authorization code with PKCE', { source: 'RFC 6749 4.1.2', text: 'If an authorization code is used more than once, the authorization server MUST deny the request' }],
  operations: ['registerConnectorClient', 'startConnectorAuthorization', 'signInToConnector', 'answerConnectorConsent', 'requestConnectorToken'],
  async run(t) {
    const { client_id, redirect_uri, code, verifier } = await t.authorize({ tools: ['listAccountShops'] })
    const form = { grant_type: 'authorization_code', code, code_verifier: verifier, client_id, redirect_uri }
    const first = await t.token(form)
    t.check(first.status === 200 && typeof first.body.access_token === 'string', { message: 'the first redemption failed', expected: '200 with access_token', received: `${first.status} ${String(first.body.error)}` })
    const second = await t.token(form)
    t.check(second.status === 400 && second.body.error === 'invalid_grant', { message: 'a code was accepted twice', expected: '400 invalid_grant', received: `${second.status} ${JSON.stringify(second.body).slice(0, 120)}` })
  },
}
