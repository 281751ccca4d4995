import { expectRefusal, expectSuccess, recentRange } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const slideshowsRangeRequired: Rule = {
  id: 'dates.slideshows-range-required',
  title: 'The slideshow timeseries requires date_range: without it refused (400 inferred), with it served',
  spec: 'Timeseries searches (slideshows: date_range required)',
  level: 'MUST',
  quote: ['`date_range` required'],
  writes: false,
  operations: ['POST /timeseries/slideshows'],
  async run(t) {
    const without = await t.request('POST /timeseries/slideshows', { body: { page_size: 10, page_number: 1, search_params: { sort_by: 'gmv', sort_direction: 'DESC' } } })
    expectRefusal(t, without, 400, 'without date_range it is refused', 'the spec says date_range is required, not how its absence is answered')
    const withRange = await t.request('POST /timeseries/slideshows', { body: { page_size: 10, page_number: 1, search_params: { date_range: recentRange(30), sort_by: 'gmv', sort_direction: 'DESC' } } })
    expectSuccess(t, withRange, 'with a date_range it is served')
  },
}
