import { expectAuthorizationRefused } from './pkce-required.ts'
import type { ConnectorRule } from './types.ts'

export const pkceS256Only: ConnectorRule = {
  id: 'connector.pkce-s256-only',
  title: 'The authorization endpoint refuses the plain PKCE method as invalid_request on the redirect URI with the state',
  spec: 'Authentication 6 (authorization code with PKCE); RFC 7636 4.2, 7.2; OAuth 2.1 4.1.1',
  level: 'SHOULD',
  quote: ['OAuth 2.0 authorization code with PKCE', { source: 'RFC 7636 7.2', text: 'Clients SHOULD use the "S256" transformation' }, { source: 'OAuth 2.1 (draft) 4.1.1', text: 'Clients MUST use code_challenge_method=S256' }],
  inferred: 'PKCE allows the plain method (RFC 7636 4.2); refusing it is OAuth 2.1 guidance the spec does not cite',
  operations: ['registerConnectorClient', 'startConnectorAuthorization'],
  run: (t) => expectAuthorizationRefused(t, 'code_challenge_method plain', { code_challenge: 'plain-challenge-plain-challenge-plain-challenge-1', code_challenge_method: 'plain' }),
}
