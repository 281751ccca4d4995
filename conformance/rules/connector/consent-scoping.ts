import type { ConnectorRule } from './types.ts'

export const consentScoping: ConnectorRule = {
  id: 'connector.consent-scoping',
  title: 'Only the consented tools are listed; an unconsented tool and a shop outside the consent are refused',
  spec: 'What the service does ("the user picks the shops and tools allowed"); Authentication 6',
  level: 'MUST',
  quote: ['at consent the user picks the shops and tools allowed', 'per-shop, per-tool consent'],
  operations: ['registerConnectorClient', 'startConnectorAuthorization', 'signInToConnector', 'answerConnectorConsent', 'requestConnectorToken', 'callConnectorMcp'],
  async run(t) {
    const { client_id, redirect_uri, code, verifier, shops } = await t.authorize({ shops: 'first', tools: ['getShopSps'] })
    const { body } = await t.token({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id, redirect_uri })
    const access = String(body.access_token)
    const list = await t.mcp(access, 'tools/list')
    const names = ((list.body?.result?.tools ?? []) as Array<{ name: string }>).map((tool) => tool.name)
    t.check(names.length === 1 && names[0] === 'getShopSps', { message: 'tools/list is not exactly the consented tools', expected: '["getShopSps"]', received: JSON.stringify(names) })
    const unconsented = await t.mcp(access, 'tools/call', { name: 'listAccountShops', arguments: {} })
    t.check(unconsented.body?.result?.isError === true || unconsented.body?.error !== undefined, { message: 'an unconsented tool was run', expected: 'a tool error or a JSON-RPC error', received: JSON.stringify(unconsented.body).slice(0, 160) })
    const outside = shops[1]
    if (outside) {
      const other = await t.mcp(access, 'tools/call', { name: 'getShopSps', arguments: { shop_id: outside } })
      t.check(other.body?.result?.isError === true || other.body?.error !== undefined, { message: 'a shop outside the consent was used', expected: 'a tool error or a JSON-RPC error', received: JSON.stringify(other.body).slice(0, 160) })
    }
  },
}
