import type { ConnectorRule } from './types.ts'

export const discoveryDocuments: ConnectorRule = {
  id: 'connector.discovery-documents',
  title: 'Protected-resource (RFC 9728) and authorization-server (RFC 8414) metadata are served, consistent, and offer PKCE with S256 only',
  spec: 'Authentication 6; RFC 9728 3; RFC 8414 2-3; RFC 7636 4.2',
  level: 'SHOULD',
  quote: ['The client registers itself and sends the user through sign-in (OAuth 2.0 authorization code with PKCE)', { source: 'RFC 8414 2', text: 'code_challenge_methods_supported ... JSON array containing a list of Proof Key for Code Exchange (PKCE) code challenge methods supported by this authorization server' }, { source: 'RFC 9728 3', text: 'protected resource metadata ... authorization_servers' }],
  inferred: 'the spec does not cite the discovery documents (RFC 9728, RFC 8414), and offering S256 only (not plain) is OAuth 2.1 guidance',
  operations: ['callConnectorMcp', 'getConnectorResourceMetadata', 'getConnectorAuthorizationServerMetadata'],
  async run(t) {
    const { resource, server } = await t.discovery()
    t.check(resource.resource === t.mcpUrl, { message: 'the resource metadata names another resource', expected: t.mcpUrl, received: String(resource.resource) })
    t.check(Array.isArray(resource.authorization_servers) && resource.authorization_servers.length > 0, { message: 'no authorization_servers in the resource metadata', expected: 'a non-empty array', received: JSON.stringify(resource.authorization_servers) })
    t.check(server.issuer === resource.authorization_servers?.[0], { message: 'the issuer differs from the authorization server named by the resource', expected: String(resource.authorization_servers?.[0]), received: String(server.issuer) })
    for (const field of ['authorization_endpoint', 'token_endpoint', 'registration_endpoint']) t.check(typeof server[field] === 'string', { message: `${field} missing from the authorization-server metadata`, expected: 'a URL', received: String(server[field]) })
    t.check(Array.isArray(server.response_types_supported) && server.response_types_supported.includes('code'), { message: 'response type code not offered', expected: '["code"]', received: JSON.stringify(server.response_types_supported) })
    const methods = server.code_challenge_methods_supported
    t.check(Array.isArray(methods) && methods.includes('S256') && !methods.includes('plain'), { message: 'PKCE must be offered with S256 and not plain', expected: '["S256"]', received: JSON.stringify(methods) })
  },
}
