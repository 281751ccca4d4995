/**
 * Sales-max ads (spec: Sales-max ads; Versioning): campaigns, per-video creatives, excluded creatives
 * and boost sessions, every metric summed from the daily facts for the requested window. The `/v1`
 * aliases and GET forms reach these handlers through the registry; the plan gate is the pipeline's.
 * One file per list in ads/; the creatives' rows (the one-pass sums and their cache) stand apart
 * from the list's rules in ads/creative-rows.ts.
 */
import { acceptCamelCase } from '../normalize.ts'
import type { AreaModule } from '../context.ts'
import { listAdCampaigns } from './ads/campaigns.ts'
import { listAdCreatives } from './ads/creatives.ts'
import { listExcludedCreatives } from './ads/exclusions.ts'
import { listBoostedCreatives, stopBoost } from './ads/boosts.ts'

export { boostsState } from './ads/boosts.ts'

const sortDir = { sortDir: 'sort_direction' }

export const ads: AreaModule = {
  handlers: { listAdCampaigns, listAdCreatives, listExcludedCreatives, listBoostedCreatives },
  normalizers: {
    // spec: Sales-max ads: camelCase pageSize, sortBy, dateRange, sortDir.
    listAdCampaigns: acceptCamelCase(sortDir),
    // spec: camelCase campaignId, pageSize, productIds, videoIds/video_id, sortBy, sortDir; Versioning: date_range is posted_date.
    listAdCreatives: acceptCamelCase({ ...sortDir, video_id: 'video_ids', date_range: 'posted_date' }),
    // spec: Conventions 4: endpoints callable with GET accept snake_case and camelCase keys.
    listExcludedCreatives: acceptCamelCase(sortDir),
    listBoostedCreatives: acceptCamelCase(sortDir),
  },
  adminActions: { 'ads/boost-stop': stopBoost },
  // Facts and records of the world, the request and ctx.today: nothing else.
  cacheable: ['listAdCampaigns', 'listAdCreatives'],
}
