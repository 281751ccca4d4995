import { describe, expectSuccess, recentRange } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const dailyCounts: Rule = {
  id: 'stats.daily-counts',
  title: 'daily_counts appear only with include_charts, and never on chart-No stats',
  spec: 'POST /shop/stats (daily_counts only with include_charts; chart No stats)',
  level: 'MUST',
  quote: ['`daily_counts` appears only with `include_charts`. Stats with chart No return only `total_count` and `percent_change` even with charts.'],
  writes: false,
  operations: ['POST /shop/stats'],
  async run(t) {
    const stats = ['total_gmv', 'videos_posted', 'avg_videos_per_creator', 'reply_ratio']
    const body = { date_range: recentRange(14), stats }
    const without = await t.request('POST /shop/stats', { body: { ...body, include_charts: false } })
    if (expectSuccess(t, without, 'stats without charts are served')) {
      const charted = (without.json.data?.stats ?? []).filter((s: Record<string, unknown>) => 'daily_counts' in s)
      t.check(charted.length === 0, { operation: without.op.permission, message: 'no daily_counts without include_charts', expected: 'no stat with daily_counts', received: describe(without, 400), exchange: without.exchange })
    }
    const withCharts = await t.request('POST /shop/stats', { body: { ...body, include_charts: true } })
    if (expectSuccess(t, withCharts, 'stats with charts are served')) {
      const byKey = new Map<string, Record<string, unknown>>((withCharts.json.data?.stats ?? []).map((s: Record<string, unknown>) => [s.key as string, s]))
      for (const key of ['total_gmv', 'videos_posted']) {
        t.check(Array.isArray(byKey.get(key)?.daily_counts), { operation: withCharts.op.permission, message: `${key} (chart Y) has daily_counts with include_charts`, expected: 'daily_counts: [...]', received: describe(withCharts, 400), exchange: withCharts.exchange })
      }
      for (const key of ['avg_videos_per_creator', 'reply_ratio']) {
        const entry = byKey.get(key)
        t.check(entry !== undefined && !('daily_counts' in entry), { operation: withCharts.op.permission, message: `${key} (chart No) has only total_count and percent_change even with charts`, expected: `${key} without daily_counts`, received: JSON.stringify(entry ?? null).slice(0, 300), exchange: withCharts.exchange })
      }
    }
  },
}
