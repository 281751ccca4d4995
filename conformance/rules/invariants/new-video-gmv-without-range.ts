import { expectSuccess, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const newVideoGmvWithoutRange: Rule = {
  id: 'invariants.new-video-gmv-without-range',
  title: 'Without a date range, new_video_gmv equals video_gmv on every affiliate timeseries row',
  spec: 'Resources: Affiliate timeseries row (new_video_gmv equals video_gmv when no range is given)',
  level: 'MUST',
  quote: ['equals video_gmv when no range is given'],
  writes: false,
  operations: ['POST /timeseries/affiliates'],
  async run(t) {
    const reply = await t.request('POST /timeseries/affiliates', { body: { page_size: 100, page_number: 1, search_params: { sort_by: 'video_gmv', sort_direction: 'DESC' } } })
    if (!expectSuccess(t, reply, 'the affiliate timeseries is served without a date range')) return
    const rows = rowsOf(reply.json)
    const bad = rows.findIndex((r) => r.new_video_gmv !== r.video_gmv)
    t.check(bad < 0, {
      operation: reply.op.permission,
      message: 'new_video_gmv equals video_gmv',
      expected: 'new_video_gmv = video_gmv on every row',
      received: bad < 0 ? '' : `row ${bad} (${rows[bad].handle}): new_video_gmv ${rows[bad].new_video_gmv}, video_gmv ${rows[bad].video_gmv}`,
      exchange: reply.exchange,
    })
  },
}
