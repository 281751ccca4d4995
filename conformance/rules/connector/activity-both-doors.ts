import type { ConnectorRule } from './types.ts'

export const activityBothDoors: ConnectorRule = {
  id: 'connector.activity-both-doors',
  title: "A tool call and an API-key call are both in the account's activity log, each with its actor, and no secret is",
  spec: "What the service does (\"Actions by API key or connector are recorded in the account's activity log\"); GET /account/activity (inferred)",
  level: 'MUST',
  quote: ['Actions by API key or connector are recorded in the account\'s activity log.'],
  operations: ['registerConnectorClient', 'startConnectorAuthorization', 'signInToConnector', 'answerConnectorConsent', 'requestConnectorToken', 'callConnectorMcp', 'listAccountShops', 'listAccountActivity'],
  async run(t) {
    const api = t.api ?? t.skip('needs the API too (--base-url, --api-key) to read the activity log')
    const { client_id, redirect_uri, code, verifier } = await t.authorize({ tools: ['listAccountShops'] })
    const { body } = await t.token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id, redirect_uri })
    const call = await t.mcp(body.access_token, 'tools/call', { name: 'listAccountShops', arguments: {} })
    t.check(call.body?.result !== undefined && call.body.result.isError !== true, { message: 'the tool call failed', expected: 'a tool result', received: JSON.stringify(call.body).slice(0, 160) })
    const rest = await t.fetch(`${api.baseUrl}/account/shops`, { headers: { 'x-api-key': api.apiKey } })
    await rest.arrayBuffer()
    const read = await t.fetch(`${api.baseUrl}/account/activity?page_size=20`, { headers: { 'x-api-key': api.apiKey } })
    const text = await read.text()
    t.check(read.status === 200, { message: 'GET /account/activity did not answer 200', expected: '200', received: `${read.status} ${text.slice(0, 160)}` })
    const entries = ((JSON.parse(text || '{}') as { data?: Array<Record<string, any>> }).data ?? [])
    const byTool = entries.find((e) => e.operation_id === 'listAccountShops' && e.actor?.kind === 'connector' && e.actor.client_id === client_id)
    const byKey = entries.find((e) => e.operation_id === 'listAccountShops' && e.actor?.kind === 'api_key')
    t.check(byTool !== undefined, { message: 'the tool call is not in the activity log with its connector actor', expected: `an entry with actor {kind: connector, client_id: ${client_id}}`, received: JSON.stringify(entries.slice(0, 3)).slice(0, 200) })
    t.check(byKey !== undefined, { message: 'the API-key call is not in the activity log with its key actor', expected: 'an entry with actor {kind: api_key}', received: JSON.stringify(entries.slice(0, 3)).slice(0, 200) })
    t.check(!text.includes(api.apiKey) && !text.includes(body.access_token), { message: 'a secret appears in the activity log', expected: 'no API key, no token', received: 'the API key or the access token' })
  },
}
