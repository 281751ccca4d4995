import { canonicalOf, typicalRequest } from '../../examples.ts'
import { describe, isSuccess, recentRange, equivalentJson } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const getEqualsPost: Rule = {
  id: 'aliases.get-equals-post',
  title: 'Every GET form answers its query parameters exactly as the POST form answers the same body',
  spec: 'Conventions 4; Sponsored-video codes; Sales-max ads; Dashboards; Off-platform sales correlation',
  level: 'MUST',
  quote: ['Several endpoints may also be called with GET and query parameters, and accept snake_case and camelCase keys; such a note is given per endpoint.'],
  writes: false,
  operations: ['GET /spark/list', 'GET /ads/excluded-creatives', 'GET /ads/boosted-creatives', 'GET /dashboards/list', 'GET /dashboards/get', 'GET /halo-effect'],
  async run(t) {
    const getForms = t.operations().filter((op) => op.method === 'GET' && op.aliasOf && !op.path.startsWith('/v1/'))
    if (!getForms.length) return t.skip('the contract has no GET form')
    let dashboardId: string | undefined
    for (const get of getForms) {
      const post = canonicalOf(t.contract, get)
      const ids: Record<string, unknown> = {}
      if ((post.requestSchema?.required as string[] | undefined)?.includes('dashboard_id')) {
        dashboardId ??= (await t.request('POST /dashboards/list', { body: {} })).json?.data?.dashboards?.[0]?.id
        if (!dashboardId) continue
        ids.dashboard_id = dashboardId
      }
      const body: Record<string, unknown> = { ...typicalRequest(t.contract, post, ids).body }
      const properties = (post.requestSchema?.properties ?? {}) as Record<string, unknown>
      if ('date_range' in properties && !body.date_range) body.date_range = recentRange(30)
      if ('page_size' in properties) body.page_size = 3
      const viaPost = await t.request(post, { body })
      const viaGet = await t.request(get, { query: body })
      t.check(viaGet.status === viaPost.status && isSuccess(viaPost) && equivalentJson(viaGet.json, viaPost.json), {
        operation: get.permission,
        message: `${get.permission} answers as ${post.permission}`,
        expected: describe(viaPost),
        received: describe(viaGet),
        exchange: viaGet.exchange,
      })
    }
  },
}
