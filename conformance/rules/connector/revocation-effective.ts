import type { ConnectorRule } from './types.ts'

export const revocationEffective: ConnectorRule = {
  id: 'connector.revocation-effective',
  title: 'Revoking the refresh token (RFC 7009) stops its access token on the next call and the refresh token itself',
  spec: 'What the service does (the user "may revoke the connection later"); RFC 7009 2.1',
  level: 'SHOULD',
  quote: ['may revoke the connection later', { source: 'RFC 7009 2.1', text: 'the authorization server invalidates the token ... If the particular token is a refresh token and the authorization server supports the revocation of access tokens, then the authorization server SHOULD also invalidate all access tokens based on the same authorization grant' }],
  inferred: 'the spec says the user may revoke the connection (the connections page does), not that a client can revoke through RFC 7009, which it does not cite',
  operations: ['registerConnectorClient', 'startConnectorAuthorization', 'signInToConnector', 'answerConnectorConsent', 'requestConnectorToken', 'callConnectorMcp', 'revokeConnectorToken'],
  async run(t) {
    const { server } = await t.discovery()
    if (typeof server.revocation_endpoint !== 'string') return t.skip('the authorization-server metadata names no revocation_endpoint')
    const { client_id, redirect_uri, code, verifier } = await t.authorize({ tools: ['listAccountShops'] })
    const { body } = await t.token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id, redirect_uri })
    t.check((await t.mcp(body.access_token, 'tools/list')).status === 200, { message: 'a fresh access token did not work', expected: '200', received: 'not 200' })
    const revoked = await t.fetch(server.revocation_endpoint, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: body.refresh_token, token_type_hint: 'refresh_token', client_id }).toString() })
    await revoked.arrayBuffer()
    t.check(revoked.status === 200, { message: 'revocation was not answered 200', expected: '200', received: String(revoked.status) })
    const after = await t.mcp(body.access_token, 'tools/list')
    t.check(after.status === 401, { message: 'the access token still works after its grant was revoked', expected: '401', received: String(after.status) })
    const refresh = await t.token({ grant_type: 'refresh_token', refresh_token: body.refresh_token, client_id })
    t.check(refresh.body.error === 'invalid_grant', { message: 'the revoked refresh token still refreshes', expected: 'invalid_grant', received: `${refresh.status} ${String(refresh.body.error)}` })
  },
}
