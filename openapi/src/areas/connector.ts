/**
 * The assistant connector's side of the contract (spec: What the service does; Authentication 6):
 * the activity log read (inferred: the spec says actions are recorded, not how they are read) and,
 * in the tag's description, the connector's OAuth and MCP endpoints, which live on {mcp_url}.
 */
import type { Area } from '../document.ts'
import { arr, bool, date, dateTime, enumOf, int, nullable, obj, operation, queryParam, ref, str } from '../dsl.ts'

const CONNECTOR_ENDPOINTS = `
The assistant connector is a separate server at {mcp_url} (shoptwin: the same listener as the API,
or the origin given to \`createConnectorHandlers\`). It is free on every plan. Its endpoints:

| Endpoint | Standard | What it does |
|---|---|---|
| \`GET /.well-known/oauth-authorization-server\` | RFC 8414 | Authorization-server metadata (S256 only, public clients) |
| \`GET /.well-known/oauth-protected-resource/mcp\` | RFC 9728 | Protected-resource metadata of the MCP endpoint |
| \`POST /oauth/register\` | RFC 7591 | Dynamic registration of a public client (\`token_endpoint_auth_method: none\`; redirect URIs https or loopback http) |
| \`GET /oauth/authorize\` | RFC 6749 4.1, RFC 7636, RFC 8707 | Sign-in, then consent: the shops and tools allowed (HTML) |
| \`POST /oauth/token\` | RFC 6749 4.1.3, 6 | Code + verifier, or a refresh token (rotated; reuse revokes the grant); errors per 5.2 |
| \`POST /oauth/revoke\` | RFC 7009 | Revokes an access token, or a refresh token with its grant |
| \`GET /oauth/connections\` | | The account's connections, each with a revoke button (HTML) |
| \`POST /mcp\` | MCP Streamable HTTP | One tool per operation of this API (name: the operationId), within the consent; 401 with \`WWW-Authenticate: Bearer resource_metadata=...\` without a token |
`

export const connector: Area = {
  name: 'Connector',
  description: `The account's activity log, and the assistant connector.\n${CONNECTOR_ENDPOINTS}`,
  schemas: {
    ActivityActor: {
      oneOf: [
        obj({ kind: enumOf(['api_key']), key_id: str({ description: 'A stable id derived from the key; the key itself is never shown.' }), label: str() }, { required: ['kind', 'key_id', 'label'] }),
        obj({ kind: enumOf(['connector']), client_id: str(), client_name: str({ description: 'The name the client registered with (not verified).' }), connection_id: str() }, { required: ['kind', 'client_id', 'client_name', 'connection_id'] }),
      ],
      description: 'Who acted: an API key, or an assistant through a connection (inferred).',
    },
    ActivityEntry: obj(
      {
        id: int(),
        time: dateTime(),
        actor: ref('ActivityActor'),
        shop_id: nullable(str()),
        operation_id: str(),
        tool: nullable(str({ description: 'The MCP tool called (connector actions), else null.' })),
        status: int({ description: 'The HTTP status of the answer (for tools: of the same REST request).' }),
        idempotent_replay: bool({ description: 'True when an Idempotency-Key replay answered.' }),
      },
      { inferred: true, description: 'One action in the account\'s activity log (spec: What the service does; the shape is not shown).' },
    ),
  },
  operations: [
    operation({
      method: 'get',
      path: '/account/activity',
      operationId: 'listAccountActivity',
      tag: 'Connector',
      specSection: 'What the service does: the activity log',
      summary: 'The account\'s activity log: actions by API key or by connector, newest first',
      description:
        'Inferred: the spec says actions by API key or connector are recorded in the account\'s activity log, not how it is read. Paged with page_size (1-100, default 50) and page_number; filtered by actor kind, shop and date range (inclusive, UTC). A key limited to some shops sees only those shops\' entries and the account-level ones. Keys and tokens never appear.',
      auth: 'key',
      inferred: true,
      query: [
        queryParam('actor_kind', enumOf(['api_key', 'connector'])),
        queryParam('shop_id', str()),
        queryParam('from', date()),
        queryParam('to', date()),
        queryParam('page_size', int({ minimum: 1, maximum: 100, default: 50 })),
        queryParam('page_number', int({ minimum: 1, default: 1 })),
      ],
      success: {
        status: 200,
        schema: obj({ data: arr(ref('ActivityEntry')), has_more: bool(), total_count: int(), page_size: int(), page_number: int() }, { required: ['data', 'has_more', 'total_count', 'page_size', 'page_number'] }),
      },
    }),
  ],
}
