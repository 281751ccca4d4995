import { expectSuccess, isNumber, recentRange, rowsOf } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const videoGmvBounded: Rule = {
  id: 'invariants.video-gmv-bounded',
  title: 'In the affiliate timeseries new_video_gmv <= video_gmv <= gmv on every row',
  spec: 'Resources: Affiliate timeseries row',
  level: 'MUST',
  quote: ['`video_gmv` (GMV from the creator\'s videos regardless of post date, clamped to gmv), `new_video_gmv` (subset of video_gmv from videos posted inside the same date range; equals video_gmv when no range is given; clamped to gmv)'],
  writes: false,
  operations: ['POST /timeseries/affiliates'],
  async run(t) {
    for (const sortBy of ['gmv', 'video_gmv', 'new_video_gmv']) {
      const reply = await t.request('POST /timeseries/affiliates', { body: { page_size: 100, page_number: 1, search_params: { date_range: recentRange(90), sort_by: sortBy, sort_direction: 'DESC' } } })
      if (!expectSuccess(t, reply, 'the affiliate timeseries is served')) continue
      for (const [index, row] of rowsOf(reply.json).entries()) {
        const { gmv, video_gmv: videoGmv, new_video_gmv: newVideoGmv } = row
        if (![gmv, videoGmv, newVideoGmv].every(isNumber)) continue
        const ok = videoGmv <= gmv + 1e-9 && newVideoGmv <= videoGmv + 1e-9
        if (!t.check(ok, {
          operation: reply.op.permission,
          message: 'video_gmv is clamped to gmv and new_video_gmv is a subset of video_gmv',
          expected: 'new_video_gmv <= video_gmv <= gmv',
          received: `row ${index} (${row.handle}): new_video_gmv ${newVideoGmv}, video_gmv ${videoGmv}, gmv ${gmv}`,
          exchange: reply.exchange,
        })) break
      }
    }
  },
}
