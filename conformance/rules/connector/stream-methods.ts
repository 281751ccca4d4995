import type { ConnectorRule } from './types.ts'

/**
 * MCP Streamable HTTP: a GET on the endpoint opens a server-to-client stream or is refused with 405;
 * a server without client-ended sessions may refuse DELETE with 405. Every 405 names what is allowed
 * (RFC 9110 15.5.6: the origin server MUST send Allow). A target that asks for a token first (401)
 * cannot be judged here: the rule is skipped.
 */
export const streamMethods: ConnectorRule = {
  id: 'connector.stream-methods',
  title: 'GET on the MCP endpoint opens an event stream or answers 405; DELETE answers without a 5xx; every 405 carries Allow',
  spec: 'MCP Streamable HTTP (2025-06-18): listening for messages from the server, session management; RFC 9110 15.5.6',
  level: 'SHOULD',
  quote: ['A separate assistant-connector server at {mcp_url} gives AI assistants the same access', { source: 'MCP Streamable HTTP (2025-06-18)', text: 'The server MUST either return Content-Type: text/event-stream in response to this HTTP GET, or else return HTTP 405 Method Not Allowed' }, { source: 'RFC 9110 15.5.6', text: 'The origin server MUST generate an Allow header field in a 405 response' }],
  inferred: 'the spec says nothing of the MCP transport: GET, DELETE and 405 come from the MCP transport specification and RFC 9110',
  operations: ['openConnectorMcpStream', 'endConnectorMcpSession'],
  async run(t) {
    const get = await t.fetch(t.mcpUrl, { method: 'GET', headers: { accept: 'text/event-stream' } })
    // An event stream may stay open: look at the head only.
    await get.body?.cancel()
    if (get.status === 401) return t.skip('GET on the MCP endpoint asks for a token first (401)')
    const type = get.headers.get('content-type') ?? ''
    t.check(get.status === 405 || (get.status === 200 && type.startsWith('text/event-stream')), {
      message: 'GET neither opened an event stream nor was refused with 405',
      expected: '200 text/event-stream, or 405',
      received: `${get.status} ${type || '(no content type)'}`,
    })
    const del = await t.fetch(t.mcpUrl, { method: 'DELETE' })
    await del.arrayBuffer()
    t.check(del.status < 500, { message: 'DELETE on the MCP endpoint failed with a 5xx', expected: 'a 2xx or 4xx (405 when sessions cannot be ended)', received: String(del.status) })
    for (const [method, response] of [['GET', get], ['DELETE', del]] as const) {
      if (response.status !== 405) continue
      t.check(!!response.headers.get('allow'), { message: `the 405 to ${method} names no allowed method`, expected: 'an Allow header (RFC 9110 15.5.6)', received: '(none)' })
    }
  },
}
