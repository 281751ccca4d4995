import { describe, isSuccess, recentRange, equivalentJson } from '../../support.ts'
import type { Rule } from '../../types.ts'

const range = recentRange(60)

/** The same request in snake_case and in the camelCase keys the spec lists. */
const pairs: Array<{ permission: string; snake: Record<string, unknown>; camel: Record<string, unknown> }> = [
  {
    permission: 'POST /ads/campaigns',
    snake: { date_range: range, page_size: 3, sort_by: 'orders', sort_direction: 'ASC' },
    camel: { dateRange: range, pageSize: 3, sortBy: 'orders', sortDir: 'ASC' },
  },
  {
    permission: 'POST /ads/creatives',
    snake: { page_size: 4, sort_by: 'impressions', sort_direction: 'ASC' },
    camel: { pageSize: 4, sortBy: 'impressions', sortDir: 'ASC' },
  },
  {
    permission: 'POST /social/campaigns',
    snake: { date_range: range, page_size: 3, sort_by: 'clicks', sort_direction: 'ASC' },
    camel: { dateRange: range, pageSize: 3, sortBy: 'clicks', sortDirection: 'ASC' },
  },
]

export const camelCaseKeys: Rule = {
  id: 'aliases.camel-case-keys',
  title: 'camelCase request keys answer exactly as their snake_case forms',
  spec: 'Conventions 4; Sales-max ads; Social-network partnership ads',
  level: 'MUST',
  quote: ['Also accepts camelCase (`pageSize`, `sortBy`, `dateRange`, `sortDir`).', 'camelCase keys accepted (`campaignId`, `pageSize`, `productIds`, `videoIds`/`video_id`, `sortBy`, `sortDir`).', 'All accept snake_case and camelCase keys'],
  writes: false,
  operations: pairs.map((p) => p.permission),
  async run(t) {
    for (const pair of pairs) {
      const snake = await t.request(pair.permission, { body: pair.snake })
      const camel = await t.request(pair.permission, { body: pair.camel })
      t.check(isSuccess(snake) && camel.status === snake.status && equivalentJson(camel.json, snake.json), {
        operation: pair.permission,
        message: `camelCase keys (${Object.keys(pair.camel).join(', ')}) answer as snake_case`,
        expected: describe(snake),
        received: describe(camel),
        exchange: camel.exchange,
      })
    }
  },
}
