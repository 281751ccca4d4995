import { expectError, expectSuccess, recentRange } from '../../support.ts'
import type { Rule } from '../../types.ts'

export const slideshowsRangeRequired: Rule = {
  id: 'dates.slideshows-range-required',
  title: 'The slideshow timeseries requires date_range: without it 400, with it served',
  spec: 'Timeseries searches (slideshows: date_range required)',
  level: 'MUST',
  writes: false,
  operations: ['POST /timeseries/slideshows'],
  async run(t) {
    const without = await t.request('POST /timeseries/slideshows', { body: { page_size: 10, page_number: 1, search_params: { sort_by: 'gmv', sort_direction: 'DESC' } } })
    expectError(t, without, 400)
    const withRange = await t.request('POST /timeseries/slideshows', { body: { page_size: 10, page_number: 1, search_params: { date_range: recentRange(30), sort_by: 'gmv', sort_direction: 'DESC' } } })
    expectSuccess(t, withRange, 'with a date_range it is served')
  },
}
