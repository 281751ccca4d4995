/**
 * The assistant connector's side of the contract (spec: What the service does; Authentication 6):
 * the activity log read (inferred: the spec says actions are recorded, not how they are read). The
 * connector's OAuth and MCP endpoints, which live on {mcp_url}, are in ../connector-door.ts.
 */
import type { Area } from '../document.ts'
import { arr, bool, date, dateTime, enumOf, int, nullable, obj, operation, queryParam, ref, str } from '../dsl.ts'

const CONNECTOR_ENDPOINTS = `
The assistant connector is a separate server at {mcp_url} (shoptwin: the same listener as the API,
or the origin given to \`createConnectorHandlers\`). It is free on every plan. Its endpoints are the
operations of this tag marked \`x-shoptwin-door: connector\` (each with its own \`servers\` and the
standard it follows in \`x-standard\`): discovery (RFC 8414, RFC 9728), registration (RFC 7591), the
sign-in and consent pages, the token endpoint (RFC 6749, PKCE S256 only), revocation (RFC 7009), the
connections page, and \`POST /mcp\` (MCP Streamable HTTP): one tool per operation of this API, named
by its operationId, within the consent. They take no API key.
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
