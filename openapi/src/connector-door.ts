/**
 * The assistant connector's own endpoints (spec: What the service does; Authentication 6) as OpenAPI
 * operations, so that Prism and typed clients see them. They live on another server ({mcp_url}), take
 * no API key, and speak OAuth (form bodies, redirects, HTML pages) and MCP (JSON-RPC), not the API's
 * conventions: each operation carries `x-shoptwin-door: connector`, and the operation index of the API
 * (openapi/index.ts) leaves them out, so the REST mock, its MCP tools and the REST coverage count are
 * the API's operations only.
 *
 * The spec names none of these paths: every one is marked `x-inferred`, with the standard it follows
 * in `x-standard` (the well-known paths are fixed by their RFCs; the others are announced by the
 * metadata documents, so a client discovers them rather than assuming ours).
 */
import { arr, bool, enumOf, int, obj, str, type Schema } from './dsl.ts'

/** The vendor extension naming the door an operation belongs to. */
export const DOOR = 'x-shoptwin-door'
export const CONNECTOR_DOOR = 'connector'

/** Where the connector is: the documentation's {mcp_url}; shoptwin serves it on the API's listener. */
export const CONNECTOR_SERVER = {
  url: 'https://mcp.example.com',
  description: 'The assistant-connector server ({mcp_url} in the documentation). shoptwin serves it on the same listener as the API (`shoptwin serve`), or at the origin given to `createConnectorHandlers`.',
}

const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` })

/**
 * A redirect URI the connector registers: https anywhere, http only on a loopback host, no fragment
 * (RFC 6749 3.1.2; RFC 8252 7.3), as a pattern so that a generator keeps to it. Hosts are kept to what
 * every URL parser reads alike: DNS labels of letters, digits and single hyphens (so no `xn--` label
 * a parser must decode) with a last label that is not a number, or a dotted IPv4 address; a port 0-65535.
 */
const OCTET = '(?:25[0-5]|2[0-4][0-9]|1[0-9]{2}|[1-9]?[0-9])'
const PORT = '(?::(?:6553[0-5]|655[0-2][0-9]|65[0-4][0-9]{2}|6[0-4][0-9]{3}|[1-5][0-9]{4}|[0-9]{1,4}))?'
const LABEL = '[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*'
const LAST_LABEL = '[A-Za-z][A-Za-z0-9]*(?:-[A-Za-z0-9]+)*'
export const REDIRECT_URI_PATTERN = `^(?:https://(?:(?:${LABEL}\\.)*${LAST_LABEL}|(?:${OCTET}\\.){3}${OCTET})|http://(?:127(?:\\.${OCTET}){3}|\\[::1\\]|localhost))${PORT}(?:[/?][^#\\s]*)?$`

/** Parameters sent without a value are treated as omitted (RFC 6749 3.1): a required OAuth field is not empty. */
const oauthValue = (extra: Schema = {}): Schema => str({ minLength: 1, ...extra })
/** RFC 6749 5.2 (and RFC 6750 3): an error_description is %x20-21 / %x23-5B / %x5D-7E, so it fits a URI, JSON and a quoted-string. */
const errorDescription = (extra: Schema = {}): Schema =>
  str({ pattern: '^[\\x20-\\x21\\x23-\\x5B\\x5D-\\x7E]*$', description: 'What is refused, by name (the parameter, the media type, the header). Printable ASCII without `"` or `\\` (RFC 6749 5.2): a value of the request quoted in it has its other characters as `?`, a `"` as `\'`, and is cut at 60 characters.', ...extra })
/**
 * How the OAuth endpoints read a request (RFC 6749 3.1, 3.2): said once, in each operation's description.
 */
const READING =
  'Parameters are read as RFC 6749 3.1 says: one sent without a value is omitted, one the endpoint does not read is ignored, one it reads given more than once is refused (`invalid_request`, `<name> is given more than once`); RFC 8707 `resource` may repeat, each value the MCP endpoint.'
const WWW_AUTHENTICATE_CLIENT = { 'WWW-Authenticate': { description: 'When the client sent an Authorization header: a challenge of the scheme it used, `<scheme> realm="<issuer>"` (RFC 6749 5.2).', schema: str() } }
const FORM = 'application/x-www-form-urlencoded'
const NO_STORE_HEADERS = { 'Cache-Control': { description: '`no-store` (RFC 6749 5.1).', schema: str() } }
const LOCATION = (description: string): Record<string, Schema> => ({ Location: { description, required: true, schema: str({ format: 'uri' }) } })

const json = (schema: Schema, description: string, headers?: Record<string, Schema>): Schema => ({ description, ...(headers ? { headers } : {}), content: { 'application/json': { schema } } })
const htmlPage = (description: string): Schema => ({
  description: `${description} An HTML page: no script, no outside resource, a strict Content-Security-Policy, never framed.`,
  content: { 'text/html': { schema: str() } },
})
const form = (schema: Schema, required = true): Schema => ({ required, content: { [FORM]: { schema } } })
const serverError = { '5XX': json(ref('OAuthServerError'), 'An unexpected error in the connector (`server_error`).') }
/** A body over the server's limit (`shoptwin serve` reads 10 MiB at most; inferred), in OAuth's words. */
const bodyTooLarge = { '413': json(ref('BodyTooLargeError'), 'The body is larger than 10 MiB (`shoptwin serve`\'s limit): `invalid_request`, `Request body larger than 10485760 bytes` (inferred: RFC 6749 5.2 has no code for it).') }

/** JSON-RPC error object of the MCP endpoint's transport-level refusals. */
const jsonRpcRefusal = (description: string, headers?: Record<string, Schema>): Schema => json(ref('JsonRpcErrorResponse'), description, headers)

/** RFC 8414 2, RFC 9728 2 (RECOMMENDED). */
const SCOPES_SUPPORTED = 'Empty: the connector has no scopes, consent picks shops and tools (the spec names none; inferred). A client that finds no list may guess one (mcp-remote asks for `openid email profile`); an empty one tells it to send none. A scope asked for anyway is ignored.'

/** The connector's schemas, registered under components/schemas with the API's. */
export const connectorDoorSchemas: Record<string, Schema> = {
  AuthorizationServerMetadata: obj(
    {
      issuer: str({ format: 'uri' }),
      authorization_endpoint: str({ format: 'uri' }),
      token_endpoint: str({ format: 'uri' }),
      registration_endpoint: str({ format: 'uri' }),
      revocation_endpoint: str({ format: 'uri' }),
      response_types_supported: arr(str()),
      response_modes_supported: arr(str()),
      grant_types_supported: arr(str()),
      token_endpoint_auth_methods_supported: arr(str()),
      revocation_endpoint_auth_methods_supported: arr(str()),
      code_challenge_methods_supported: arr(enumOf(['S256']), { description: 'S256 only: `plain` is refused (OAuth 2.1; MCP authorization).' }),
      authorization_response_iss_parameter_supported: bool({ description: 'RFC 9207: the redirect carries `iss`.' }),
      scopes_supported: arr(str(), { description: SCOPES_SUPPORTED }),
      service_documentation: str({ format: 'uri' }),
    },
    {
      required: ['issuer', 'authorization_endpoint', 'token_endpoint', 'registration_endpoint', 'response_types_supported', 'code_challenge_methods_supported'],
      description: 'OAuth 2.0 Authorization Server Metadata (RFC 8414 2). Open: a server may add members.',
      inferred: true,
    },
  ),
  ProtectedResourceMetadata: obj(
    {
      resource: str({ format: 'uri', description: 'The MCP endpoint ({mcp_url}/mcp).' }),
      authorization_servers: arr(str({ format: 'uri' }), { minItems: 1 }),
      bearer_methods_supported: arr(enumOf(['header'])),
      scopes_supported: arr(str(), { description: SCOPES_SUPPORTED }),
      resource_name: str(),
    },
    { required: ['resource', 'authorization_servers'], description: 'OAuth 2.0 Protected Resource Metadata of the MCP endpoint (RFC 9728 2). Open: a server may add members.', inferred: true },
  ),
  ClientRegistrationRequest: obj(
    {
      redirect_uris: arr(str({ format: 'uri', pattern: REDIRECT_URI_PATTERN }), {
        minItems: 1,
        description:
          'https, or http on a loopback host written in full: 127.0.0.1 or another address of 127.0.0.0/8 (all loopback, RFC 1122 3.2.1.3), [::1], localhost; no fragment (RFC 6749 3.1.2; OAuth 2.1; RFC 8252 7.3). Not `127.1`, `2130706433` or `[::ffff:127.0.0.1]` (a name to RFC 3986, or an IPv4-mapped address). The pattern says it for generators: `https://` with a host name (letters, digits, single hyphens; a last label not all digits) or an IPv4 address, or `http://` with a loopback host; an optional port; then a path or query without `#`.',
      }),
      client_name: str({ maxLength: 100 }),
      token_endpoint_auth_method: enumOf(['none'], { description: 'Public clients only (PKCE, no secret).' }),
      grant_types: {
        ...arr(enumOf(['authorization_code', 'refresh_token'])),
        // The three lists the connector takes, as items, uniqueItems and contains: not as anyOf of
        // array-valued consts, which kubb reads as the string "authorization_code,refresh_token" (kubb 5's
        // zod does not compile) and hey-api as unknown; nor as prefixItems tuples, which need `items: false`
        // for hey-api and Spectral's array-items rule refuses (test/support/generator-portability.ts).
        minItems: 1,
        maxItems: 2,
        uniqueItems: true,
        contains: { const: 'authorization_code' },
        description: 'authorization_code, and refresh_token if the client refreshes, each once (RFC 7591 2.1: the code flow, the one the connector has; inferred: a value listed twice is refused). Omitted: both.',
      },
      response_types: arr(enumOf(['code']), { minItems: 1, maxItems: 1, description: '`["code"]` (omitted: the same).' }),
      client_uri: str({ format: 'uri' }),
      software_id: str(),
      software_version: str(),
    },
    { required: ['redirect_uris'], description: 'Client metadata (RFC 7591 2). Members the connector does not read are ignored (RFC 7591 2).', inferred: true },
  ),
  ClientInformation: obj(
    {
      client_id: str(),
      client_id_issued_at: int({ description: 'Seconds since the epoch, on the server\'s clock (the mock clock for shoptwin).' }),
      client_name: str(),
      redirect_uris: arr(str({ format: 'uri' })),
      grant_types: arr(enumOf(['authorization_code', 'refresh_token'])),
      response_types: arr(enumOf(['code'])),
      token_endpoint_auth_method: enumOf(['none']),
      client_uri: str({ format: 'uri' }),
      software_id: str(),
      software_version: str(),
    },
    { required: ['client_id', 'redirect_uris', 'token_endpoint_auth_method'], description: 'The registered client (RFC 7591 3.2.1): no client_secret, the client is public.', inferred: true },
  ),
  ClientRegistrationError: obj(
    { error: enumOf(['invalid_redirect_uri', 'invalid_client_metadata', 'invalid_software_statement', 'unapproved_software_statement']), error_description: errorDescription() },
    { required: ['error'], description: 'A refused registration (RFC 7591 3.2.2).', inferred: true },
  ),
  AuthorizationDecision: obj(
    {
      request_id: str({ description: 'The pending request, from the consent page\'s hidden field.' }),
      decision: enumOf(['allow', 'deny']),
      shop: arr(str(), { description: 'The shops allowed (repeated field `shop=...&shop=...`); at least one to allow.' }),
      tool: arr(str(), { description: 'The tools allowed, by name (the operationId); at least one to allow.' }),
    },
    { required: ['request_id', 'decision'], description: 'The consent form\'s answer (inferred: the spec says the user picks the shops and tools allowed).', inferred: true },
  ),
  SignInForm: obj(
    {
      email: oauthValue(),
      password: oauthValue({ format: 'password' }),
      request_id: str({ description: 'The pending authorization request to go back to.' }),
      next: enumOf(['connections'], { description: 'Go to the connections page instead.' }),
    },
    { required: ['email', 'password'], description: 'The sign-in form (inferred). A field sent empty is missing, as in the OAuth requests.', inferred: true },
  ),
  TokenRequest: {
    oneOf: [
      obj(
        { grant_type: enumOf(['authorization_code']), code: oauthValue(), code_verifier: str({ pattern: '^[A-Za-z0-9\\-._~]{43,128}$' }), redirect_uri: str({ format: 'uri' }), client_id: oauthValue(), resource: str({ format: 'uri', description: 'The MCP endpoint (RFC 8707; may repeat, each value the MCP endpoint).' }) },
        { required: ['grant_type', 'code', 'code_verifier', 'redirect_uri', 'client_id'], description: 'Code + PKCE verifier (RFC 6749 4.1.3; RFC 7636 4.5; RFC 8707 resource).' },
      ),
      obj(
        { grant_type: enumOf(['refresh_token']), refresh_token: oauthValue(), client_id: oauthValue(), resource: str({ format: 'uri', description: 'The MCP endpoint (RFC 8707; another is invalid_target).' }) },
        { required: ['grant_type', 'refresh_token', 'client_id'], description: 'Refresh (RFC 6749 6): the refresh token is rotated; a spent one revokes its grant.' },
      ),
    ],
    description: 'A token request (form fields). The clients are public: no `client_secret`, no Authorization header (either is `invalid_client`, 401).',
    'x-inferred': true,
  },
  TokenResponse: obj(
    {
      access_token: str(),
      token_type: enumOf(['Bearer']),
      expires_in: int({ minimum: 1, description: 'Seconds (shoptwin: 3600, on the mock clock; inferred).' }),
      refresh_token: str(),
      scope: str({ description: 'The scope granted, when it differs from the one asked for (RFC 6749 3.3, 5.1): `""` (none) to a client that asked for a scope; absent otherwise (inferred).' }),
    },
    { required: ['access_token', 'token_type', 'expires_in', 'refresh_token'], description: 'Access and refresh tokens (RFC 6749 5.1).', inferred: true },
  ),
  TokenError: obj(
    {
      error: enumOf(['invalid_request', 'invalid_client', 'invalid_grant', 'unauthorized_client', 'unsupported_grant_type', 'invalid_scope', 'invalid_target']),
      error_description: errorDescription(),
    },
    { required: ['error'], description: 'A refused token request (RFC 6749 5.2; `invalid_target` from RFC 8707).', inferred: true },
  ),
  RevocationRequest: obj(
    {
      token: oauthValue(),
      token_type_hint: str({ description: '`access_token` or `refresh_token` (RFC 7009 2.1). The connector finds the token by itself, so a hint, known or not, is ignored (RFC 7009 2.1 lets a server ignore it; given twice it is refused).', examples: ['refresh_token'] }),
      client_id: oauthValue(),
    },
    { required: ['token', 'client_id'], description: 'RFC 7009 2.1: an access token, or a refresh token (which revokes its grant).', inferred: true },
  ),
  RevocationError: obj(
    { error: enumOf(['invalid_request', 'invalid_client', 'unsupported_token_type']), error_description: errorDescription() },
    { required: ['error'], description: 'A refused revocation request (RFC 7009 2.2.1, RFC 6749 5.2).', inferred: true },
  ),
  ConnectionRevocation: obj({ connection_id: str() }, { required: ['connection_id'], description: 'The connections page\'s revoke button (inferred).', inferred: true }),
  BearerChallengeBody: obj(
    { error: enumOf(['unauthorized', 'invalid_token', 'invalid_request']), error_description: errorDescription() },
    {
      required: ['error'],
      description:
        'The body beside the `WWW-Authenticate` challenge (the header is what clients read; inferred): `unauthorized` when the request had no Bearer token (none, another scheme, a token in the URL query: it names which), `invalid_token` for a token refused, `invalid_request` (400) for a malformed Bearer header or a token sent two ways (RFC 6750 3.1).',
      inferred: true,
    },
  ),
  BodyTooLargeError: obj({ error: enumOf(['invalid_request']), error_description: str() }, { required: ['error', 'error_description'], description: 'A body over the server\'s limit, refused in OAuth\'s error format (inferred).', inferred: true }),
  AuthorizationRequestError: obj(
    { error: enumOf(['invalid_request', 'invalid_client']), error_description: errorDescription() },
    { required: ['error'], description: 'An authorization request refused before its redirect URI is known to be the client\'s, to a caller that asked for JSON (RFC 6749 5.2\'s format; shown as a page to a browser, 4.1.2.1).', inferred: true },
  ),
  OAuthServerError: obj({ error: enumOf(['server_error']), error_description: str() }, { required: ['error'], description: 'An unexpected error in the connector.', inferred: true }),
  JsonRpcRequest: obj(
    {
      jsonrpc: enumOf(['2.0']),
      id: { anyOf: [str(), int()] },
      method: str({ description: '`initialize`, `tools/list`, `tools/call`, `ping`, notifications (MCP).' }),
      params: obj({}, { required: [] }),
    },
    { required: ['jsonrpc', 'method'], description: 'A JSON-RPC 2.0 message of the Model Context Protocol (a request, or a notification without id).', inferred: true },
  ),
  JsonRpcResponse: obj(
    { jsonrpc: enumOf(['2.0']), id: { anyOf: [str(), int()] }, result: obj({}, { required: [] }), error: ref('JsonRpcError') },
    { required: ['jsonrpc', 'id'], description: 'A JSON-RPC 2.0 answer: `result` (a tool result carries the REST answer\'s JSON as `structuredContent`; `isError` for a status of 400 or more) or `error` (-32602 for params a method does not take, and for a tool that does not exist: `Unknown tool: <name>`).', inferred: true },
  ),
  JsonRpcError: obj({ code: int(), message: str(), data: {} }, { required: ['code', 'message'] }),
  JsonRpcErrorResponse: obj(
    { jsonrpc: enumOf(['2.0']), id: { anyOf: [str(), int(), { type: 'null' }] }, error: ref('JsonRpcError') },
    { required: ['jsonrpc', 'error'], description: 'A JSON-RPC error refusing the HTTP request itself (transport level).', inferred: true },
  ),
}

const connectorOperation = (standard: string, op: Schema): Schema => ({
  ...op,
  tags: ['Connector'],
  [DOOR]: CONNECTOR_DOOR,
  'x-standard': standard,
  'x-inferred': true,
})

const metadataResponses = (schema: string, description: string): Schema => ({ '200': json(ref(schema), description), ...serverError })

const redirectWith = (description: string): Schema => ({ description, headers: LOCATION(description) })

/** The connector's paths, each with its own `servers` (the {mcp_url} origin). */
export const connectorDoorPaths: Record<string, Record<string, Schema>> = {
  '/.well-known/oauth-authorization-server': {
    get: connectorOperation('RFC 8414 3', {
      operationId: 'getConnectorAuthorizationServerMetadata',
      summary: 'Authorization-server metadata of the connector (endpoints, PKCE with S256 only, public clients)',
      security: [],
      responses: metadataResponses('AuthorizationServerMetadata', 'The metadata document.'),
    }),
  },
  '/.well-known/oauth-protected-resource/mcp': {
    get: connectorOperation('RFC 9728 3', {
      operationId: 'getConnectorResourceMetadata',
      summary: 'Protected-resource metadata of the MCP endpoint (where its authorization server is)',
      description: 'The URL the 401 challenge of `POST /mcp` names in `resource_metadata`.',
      security: [],
      responses: metadataResponses('ProtectedResourceMetadata', 'The metadata document.'),
    }),
  },
  '/.well-known/oauth-protected-resource': {
    get: connectorOperation('RFC 9728 3', {
      operationId: 'getConnectorResourceMetadataAtRoot',
      summary: 'Protected-resource metadata at the origin\'s well-known root (the same document, for clients that look there first)',
      security: [],
      responses: metadataResponses('ProtectedResourceMetadata', 'The metadata document.'),
    }),
  },
  '/oauth/register': {
    post: connectorOperation('RFC 7591 3', {
      operationId: 'registerConnectorClient',
      summary: 'Dynamic registration of a public client',
      security: [],
      requestBody: { required: true, content: { 'application/json': { schema: ref('ClientRegistrationRequest') } } },
      responses: {
        '201': json(ref('ClientInformation'), 'The client is registered.', NO_STORE_HEADERS),
        '400': json(
          ref('ClientRegistrationError'),
          'Refused: a redirect URI neither https nor loopback http, a secret-based auth method, another grant or response type, grant_types without authorization_code or response_types without code. A body that is not `application/json` (RFC 7591 3) is `invalid_client_metadata` naming its media type (inferred: RFC 7591 3.2.2 has no code for it; the one its clients handle).',
          NO_STORE_HEADERS,
        ),
        ...bodyTooLarge,
        ...serverError,
      },
    }),
  },
  '/oauth/authorize': {
    get: connectorOperation('RFC 6749 4.1.1; RFC 7636 4.3; RFC 8707 2', {
      operationId: 'startConnectorAuthorization',
      summary: 'Starts an authorization: the sign-in page, then the consent page (shops and tools)',
      description:
        `A browser is sent here by the client. Errors before the redirect URI is known to be the client's (no or unknown client, unregistered redirect URI, client_id, redirect_uri or request_id given twice) are shown as a page, never redirected; later ones go back to the redirect URI (RFC 6749 4.1.2.1) with \`state\` (not when state itself was given twice: inferred) and \`iss\`. PKCE is required with S256. ${READING}`,
      security: [{}, { ConnectorSession: [] }],
      parameters: [
        { name: 'response_type', in: 'query', schema: enumOf(['code']) },
        { name: 'client_id', in: 'query', schema: str() },
        { name: 'redirect_uri', in: 'query', description: 'One of the registered URIs, exactly (simple string comparison, RFC 6749 3.1.2.3); an http loopback URI (127.x.x.x, [::1], localhost) may differ from a registered one in its port alone, the rest compared as written (RFC 8252 7.3: a native client listens on the port the system gives it; localhost held to the same rule, inferred). Optional when only one is registered.', schema: str({ format: 'uri' }) },
        { name: 'code_challenge', in: 'query', description: 'The base64url SHA-256 of the verifier (43 characters).', schema: str({ pattern: '^[A-Za-z0-9\\-_]{43}$' }) },
        { name: 'code_challenge_method', in: 'query', schema: enumOf(['S256']) },
        { name: 'state', in: 'query', description: 'Echoed on the redirect.', schema: str() },
        { name: 'resource', in: 'query', description: 'RFC 8707: the MCP endpoint\'s URL (may repeat, each value the MCP endpoint; another is invalid_target).', schema: str({ format: 'uri' }) },
        { name: 'scope', in: 'query', description: 'Accepted and kept, not used: what is allowed is chosen at consent (shops and tools).', schema: str() },
        { name: 'request_id', in: 'query', description: 'Shows a pending request again (after sign-in).', schema: str() },
      ],
      responses: {
        '200': htmlPage('The sign-in page (no session), or the consent page: the account\'s shops and the tools by area, read or write, each a checkbox; allow or deny.'),
        '302': redirectWith(
          'An error sent back to the client\'s redirect URI (`error`, `error_description`, `state`, `iss`): `invalid_request` (a parameter missing, malformed or given twice; `response_type` missing), `unsupported_response_type` (a response_type other than code), `invalid_target` (a resource other than the MCP endpoint).',
        ),
        '400': {
          description:
            'An error page: no or unknown client, a redirect URI not registered, client_id, redirect_uri or request_id given twice, an unknown or expired request. An HTML page: no script, no outside resource, a strict Content-Security-Policy, never framed. To a caller whose Accept names application/json and neither text/html nor a wildcard (no browser: mcp-remote checks a cached registration so), the same error as OAuth\'s JSON (RFC 6749 5.2): `invalid_client` for an unknown client, `invalid_request` for the others (inferred).',
          content: { 'text/html': { schema: str() }, 'application/json': { schema: ref('AuthorizationRequestError') } },
        },
        ...serverError,
      },
    }),
    post: connectorOperation('RFC 6749 4.1.2', {
      operationId: 'answerConnectorConsent',
      summary: 'The consent form\'s answer: allow (with the shops and tools chosen) or deny',
      security: [{ ConnectorSession: [] }],
      requestBody: form(ref('AuthorizationDecision')),
      responses: {
        '302': redirectWith('Back to the client\'s redirect URI: `code`, `state`, `iss` (allowed) or `error=access_denied` (denied). The code is single use and expires after 10 minutes.'),
        '400': htmlPage(
          'The request is unknown or expired; a body that is not a form, a field other than shop and tool given twice, no request_id (an authorization request POSTed here): an error page naming it. A decision neither allow nor deny, or no shop or no tool chosen: the consent page again, with the message, the request still open.',
        ),
        '403': htmlPage('Not signed in as the user of this request.'),
        ...bodyTooLarge,
        ...serverError,
      },
    }),
  },
  '/oauth/sign-in': {
    post: connectorOperation('(none: the connector\'s own page)', {
      operationId: 'signInToConnector',
      summary: 'Signs the account\'s user in (a session cookie), then back to the request or the connections page',
      security: [],
      requestBody: form(ref('SignInForm')),
      responses: {
        '303': {
          description: 'Signed in: the session cookie, and where to go next.',
          headers: { ...LOCATION('The consent page of the pending request, or the connections page.'), 'Set-Cookie': { description: '`shoptwin_session`, HttpOnly, SameSite=Lax.', schema: str() } },
        },
        '400': htmlPage('The authorization request is unknown or expired; a body that is not a form, a field given twice, `next` other than connections (an error page naming it); email or password missing (the sign-in page again, naming it).'),
        '401': htmlPage('The sign-in page again: email or password is not right.'),
        ...bodyTooLarge,
        ...serverError,
      },
    }),
  },
  '/oauth/token': {
    post: connectorOperation('RFC 6749 4.1.3, 5, 6; RFC 7636 4.5', {
      operationId: 'requestConnectorToken',
      summary: 'Exchanges a code and its verifier, or a refresh token, for tokens',
      description: `The body is \`application/x-www-form-urlencoded\` (RFC 6749 4.1.3, 6): another media type, or a parameter in the URL query, is \`invalid_request\` naming it. ${READING}`,
      security: [],
      requestBody: form(ref('TokenRequest')),
      responses: {
        '200': json(ref('TokenResponse'), 'Tokens. The refresh token replaces the one sent.', NO_STORE_HEADERS),
        '400': json(
          ref('TokenError'),
          '`invalid_request` (a field missing, malformed or given twice; a body not a form; a field in the URL query), `invalid_grant` (a code unknown, spent, expired, or for another client, redirect URI or verifier; a spent refresh token, which also revokes its grant), `unsupported_grant_type`, `invalid_target` (a resource other than the MCP endpoint).',
          NO_STORE_HEADERS,
        ),
        '401': json(ref('TokenError'), '`invalid_client`: the client_id is unknown, or the client authenticated (a client_secret, an Authorization header) though it is public.', { ...NO_STORE_HEADERS, ...WWW_AUTHENTICATE_CLIENT }),
        ...bodyTooLarge,
        ...serverError,
      },
    }),
  },
  '/oauth/revoke': {
    post: connectorOperation('RFC 7009 2', {
      operationId: 'revokeConnectorToken',
      summary: 'Revokes an access token, or a refresh token with its grant',
      description: `The body is \`application/x-www-form-urlencoded\` (RFC 7009 2.1): another media type, or a parameter in the URL query, is \`invalid_request\` naming it. ${READING}`,
      security: [],
      requestBody: form(ref('RevocationRequest')),
      responses: {
        '200': { description: 'Revoked, or the token was not known (RFC 7009 2.2: the same answer). No body.' },
        '400': json(ref('RevocationError'), '`invalid_request`: the token or the client_id missing, a field given twice, a body not a form, a field in the URL query, a token issued to another client (RFC 7009 2.1: refused).', NO_STORE_HEADERS),
        '401': json(ref('RevocationError'), '`invalid_client`: the client_id is unknown, or the client authenticated (a client_secret, an Authorization header) though it is public.', { ...NO_STORE_HEADERS, ...WWW_AUTHENTICATE_CLIENT }),
        ...bodyTooLarge,
        ...serverError,
      },
    }),
  },
  '/oauth/connections': {
    get: connectorOperation('(none: the dashboard\'s page)', {
      operationId: 'listConnectorConnections',
      summary: 'The signed-in user\'s connections (client, shops, tools, when), each with a revoke button',
      security: [{}, { ConnectorSession: [] }],
      responses: {
        '200': htmlPage('The connections page, or the sign-in page without a session.'),
        ...serverError,
      },
    }),
  },
  '/oauth/connections/revoke': {
    post: connectorOperation('(none: the dashboard\'s action)', {
      operationId: 'revokeConnectorConnection',
      summary: 'The user revokes a connection: its tokens get 401 on their next call',
      security: [{ ConnectorSession: [] }],
      requestBody: form(ref('ConnectionRevocation')),
      responses: {
        '303': redirectWith('Back to the connections page.'),
        '400': htmlPage('A body that is not a form, connection_id missing or given twice.'),
        '403': htmlPage('Not signed in.'),
        '404': htmlPage('No such connection on the user\'s account.'),
        ...bodyTooLarge,
        ...serverError,
      },
    }),
  },
  '/mcp': {
    post: connectorOperation('MCP Streamable HTTP (2025-06-18); MCP authorization', {
      operationId: 'callConnectorMcp',
      summary: 'The MCP endpoint: JSON-RPC messages (tools/list, tools/call...), one tool per API operation within the consent',
      description:
        'Stateless: every message is a POST with the access token; answers are JSON (no server-to-client stream). Tools are named by the API\'s operationIds; a tool call runs the same pipeline as the REST request.',
      security: [{ ConnectorOAuth: [] }],
      parameters: [
        { name: 'MCP-Protocol-Version', in: 'header', description: 'The protocol version agreed at initialize (2025-06-18 on: the client MUST send it after initialize). Without it the endpoint assumes 2025-03-26 (Streamable HTTP, 2025-06-18); one the SDK does not support is refused (400).', schema: str() },
        { name: 'Accept', in: 'header', required: true, description: 'Both `application/json` and `text/event-stream`.', schema: str() },
      ],
      requestBody: {
        required: true,
        content: {
          'application/json': {
            schema: {
              anyOf: [
                ref('JsonRpcRequest'),
                arr(ref('JsonRpcRequest'), { minItems: 1, maxItems: 100, description: 'A JSON-RPC batch: MCP 2025-03-26 only (MCP-Protocol-Version 2025-03-26, or none), never with initialize; 2025-06-18 removed batching (400 -32600 under any other version).' }),
              ],
            },
          },
        },
      },
      responses: {
        '200': json({ anyOf: [ref('JsonRpcResponse'), arr(ref('JsonRpcResponse'), { minItems: 1, description: 'The answers to a 2025-03-26 batch, one a request of it.' })] }, 'The JSON-RPC answer (an array of answers to a batch).'),
        '202': { description: 'A notification or a response was accepted (no body).' },
        '400': {
          description: 'Not a JSON-RPC message: a JSON-RPC error, `id` null. -32700 for a body that is not JSON or not a JSON-RPC message; -32600 Invalid Request for a batch (a JSON array) under a protocol version without batching (every one but 2025-03-26: `JSON-RPC batches are not part of MCP <version> ...`), an empty batch, initialize in a batch, a batch over 100 messages; -32000 for an MCP-Protocol-Version the endpoint does not support (`Bad Request: Unsupported protocol version: <version> ...`, Streamable HTTP 2025-06-18: MUST respond 400). A malformed Bearer header, or a token sent both in the header and the URL query (RFC 6750 3.1 `invalid_request`): the challenge body, with WWW-Authenticate.',
          headers: { 'WWW-Authenticate': { description: '`Bearer error="invalid_request", error_description="...", resource_metadata="..."` for the Bearer refusals.', schema: str() } },
          content: { 'application/json': { schema: { anyOf: [ref('JsonRpcErrorResponse'), ref('BearerChallengeBody')] } } },
        },
        '401': json(ref('BearerChallengeBody'), 'No Bearer token (none, another scheme, a token in the URL query only), or a token unknown, expired, revoked or for another resource.', {
          'WWW-Authenticate': { description: '`Bearer resource_metadata="<the protected-resource metadata URL>"` (RFC 9728 5.1), with `error="invalid_token"` when a token was sent.', required: true, schema: str() },
        }),
        '403': jsonRpcRefusal('On a loopback address: a Host or Origin that is not loopback (DNS rebinding).'),
        '406': jsonRpcRefusal('The Accept header does not take both application/json and text/event-stream.'),
        '413': jsonRpcRefusal('The body is larger than 4 MiB (the SDK\'s limit), or than 10 MiB (`shoptwin serve`\'s, before the SDK reads it): -32000 `Payload Too Large: Request body must not exceed <limit> bytes`.'),
        '415': jsonRpcRefusal('The body is not application/json.'),
        ...serverError,
      },
    }),
    get: connectorOperation('MCP Streamable HTTP (2025-06-18)', {
      operationId: 'openConnectorMcpStream',
      summary: 'Not offered: the endpoint is stateless and opens no server-to-client stream',
      security: [],
      responses: { '405': jsonRpcRefusal('Method not allowed; POST JSON-RPC messages.', { Allow: { description: '`POST`', schema: str() } }), ...serverError },
    }),
    delete: connectorOperation('MCP Streamable HTTP (2025-06-18)', {
      operationId: 'endConnectorMcpSession',
      summary: 'Not offered: the endpoint is stateless and has no session to end',
      security: [],
      responses: { '405': jsonRpcRefusal('Method not allowed; POST JSON-RPC messages.', { Allow: { description: '`POST`', schema: str() } }), ...serverError },
    }),
  },
}

/** The connector's security schemes: the MCP endpoint's OAuth 2.1 flow, and the sign-in session of its pages. */
export const connectorSecuritySchemes: Record<string, Schema> = {
  ConnectorOAuth: {
    type: 'oauth2',
    description: 'OAuth 2.1 authorization code with PKCE (S256), a public client registered by RFC 7591. What is allowed is chosen at consent (shops and tools), not by scopes: no scope is defined.',
    flows: {
      authorizationCode: {
        authorizationUrl: `${CONNECTOR_SERVER.url}/oauth/authorize`,
        tokenUrl: `${CONNECTOR_SERVER.url}/oauth/token`,
        refreshUrl: `${CONNECTOR_SERVER.url}/oauth/token`,
        scopes: {},
      },
    },
  },
  ConnectorSession: { type: 'apiKey', in: 'cookie', name: 'shoptwin_session', description: 'The session cookie set by sign-in (the connector\'s pages only).' },
}
