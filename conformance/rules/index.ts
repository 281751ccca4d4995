/** Every rule, in the order they run (see catalogue.ts). */
import type { Rule } from '../types.ts'
import { adsPlanGate as auth_adsPlanGate } from './auth/ads-plan-gate.ts'
import { enterpriseAllowed as auth_enterpriseAllowed } from './auth/enterprise-allowed.ts'
import { enterpriseRefused as auth_enterpriseRefused } from './auth/enterprise-refused.ts'
import { invalidShopId as auth_invalidShopId } from './auth/invalid-shop-id.ts'
import { keyOnlyRoutes as auth_keyOnlyRoutes } from './auth/key-only-routes.ts'
import { limitedKeyScope as auth_limitedKeyScope } from './auth/limited-key-scope.ts'
import { missingKey as auth_missingKey } from './auth/missing-key.ts'
import { missingShopHeader as auth_missingShopHeader } from './auth/missing-shop-header.ts'
import { scalePlanGate as auth_scalePlanGate } from './auth/scale-plan-gate.ts'
import { shopNotOwned as auth_shopNotOwned } from './auth/shop-not-owned.ts'
import { unknownKey as auth_unknownKey } from './auth/unknown-key.ts'
import { concurrent409 as idempotency_concurrent409 } from './idempotency/concurrent-409.ts'
import { headerFormat as idempotency_headerFormat } from './idempotency/header-format.ts'
import { keyFormat as idempotency_keyFormat } from './idempotency/key-format.ts'
import { lookupStates as idempotency_lookupStates } from './idempotency/lookup-states.ts'
import { noSecondEffect as idempotency_noSecondEffect } from './idempotency/no-second-effect.ts'
import { replayIdentical as idempotency_replayIdentical } from './idempotency/replay-identical.ts'
import { shopScoped as idempotency_shopScoped } from './idempotency/shop-scoped.ts'
import { unknownKey as idempotency_unknownKey } from './idempotency/unknown-key.ts'
import { nameTaken409 as dashboards_nameTaken409 } from './dashboards/name-taken-409.ts'
import { staleUpdate412 as dashboards_staleUpdate412 } from './dashboards/stale-update-412.ts'
import { widgetValidation as dashboards_widgetValidation } from './dashboards/widget-validation.ts'
import { depthCap as paging_depthCap } from './paging/depth-cap.ts'
import { hasMoreTotalCount as paging_hasMoreTotalCount } from './paging/has-more-total-count.ts'
import { justCount as paging_justCount } from './paging/just-count.ts'
import { pageSizeLimits as paging_pageSizeLimits } from './paging/page-size-limits.ts'
import { invalidFallsBack as sorting_invalidFallsBack } from './sorting/invalid-falls-back.ts'
import { nullsLast as sorting_nullsLast } from './sorting/nulls-last.ts'
import { sortOrder as sorting_sortOrder } from './sorting/order.ts'
import { haloRangeMax as dates_haloRangeMax } from './dates/halo-range-max.ts'
import { missingRange as dates_missingRange } from './dates/missing-range.ts'
import { slideshowsRangeRequired as dates_slideshowsRangeRequired } from './dates/slideshows-range-required.ts'
import { statsGrainTimezone as dates_statsGrainTimezone } from './dates/stats-grain-timezone.ts'
import { camelCaseKeys as aliases_camelCaseKeys } from './aliases/camel-case-keys.ts'
import { getEqualsPost as aliases_getEqualsPost } from './aliases/get-equals-post.ts'
import { sparkFlatDateKeys as aliases_sparkFlatDateKeys } from './aliases/spark-flat-date-keys.ts'
import { v1EqualsCanonical as aliases_v1EqualsCanonical } from './aliases/v1-equals-canonical.ts'
import { dailyCounts as stats_dailyCounts } from './stats/daily-counts.ts'
import { grainBuckets as stats_grainBuckets } from './stats/grain-buckets.ts'
import { campaignsTotalCount as ads_campaignsTotalCount } from './ads/campaigns-total-count.ts'
import { creativesStatusFilter as ads_creativesStatusFilter } from './ads/creatives-status-filter.ts'
import { refreshingThenOk as halo_refreshingThenOk } from './halo/refreshing-then-ok.ts'
import { newVideoGmvWithoutRange as invariants_newVideoGmvWithoutRange } from './invariants/new-video-gmv-without-range.ts'
import { ratioFields as invariants_ratioFields } from './invariants/ratio-fields.ts'
import { videoGmvBounded as invariants_videoGmvBounded } from './invariants/video-gmv-bounded.ts'
import { funnelMonotonic as samples_funnelMonotonic } from './samples/funnel-monotonic.ts'
import { ignoreHides as samples_ignoreHides } from './samples/ignore-hides.ts'
import { handleNormalisation as lists_handleNormalisation } from './lists/handle-normalisation.ts'
import { tagLifecycle as tags_tagLifecycle } from './tags/lifecycle.ts'
import { filtersDropped as outreach_filtersDropped } from './outreach/filters-dropped.ts'
import { readsAnswer as contract_readsAnswer } from './contract/reads-answer.ts'
import { responsesValid as contract_responsesValid } from './contract/responses-valid.ts'
import { writesAnswer as contract_writesAnswer } from './contract/writes-answer.ts'
import { undocumentedMethods as http_undocumentedMethods } from './http/undocumented-methods.ts'
import { burst429 as ratelimit_burst429 } from './ratelimit/burst-429.ts'

export const rules: Rule[] = [
  auth_adsPlanGate,
  auth_enterpriseAllowed,
  auth_enterpriseRefused,
  auth_invalidShopId,
  auth_keyOnlyRoutes,
  auth_limitedKeyScope,
  auth_missingKey,
  auth_missingShopHeader,
  auth_scalePlanGate,
  auth_shopNotOwned,
  auth_unknownKey,
  idempotency_concurrent409,
  idempotency_headerFormat,
  idempotency_keyFormat,
  idempotency_lookupStates,
  idempotency_noSecondEffect,
  idempotency_replayIdentical,
  idempotency_shopScoped,
  idempotency_unknownKey,
  dashboards_nameTaken409,
  dashboards_staleUpdate412,
  dashboards_widgetValidation,
  paging_depthCap,
  paging_hasMoreTotalCount,
  paging_justCount,
  paging_pageSizeLimits,
  sorting_invalidFallsBack,
  sorting_nullsLast,
  sorting_sortOrder,
  dates_haloRangeMax,
  dates_missingRange,
  dates_slideshowsRangeRequired,
  dates_statsGrainTimezone,
  aliases_camelCaseKeys,
  aliases_getEqualsPost,
  aliases_sparkFlatDateKeys,
  aliases_v1EqualsCanonical,
  stats_dailyCounts,
  stats_grainBuckets,
  ads_campaignsTotalCount,
  ads_creativesStatusFilter,
  halo_refreshingThenOk,
  invariants_newVideoGmvWithoutRange,
  invariants_ratioFields,
  invariants_videoGmvBounded,
  samples_funnelMonotonic,
  samples_ignoreHides,
  lists_handleNormalisation,
  tags_tagLifecycle,
  outreach_filtersDropped,
  contract_readsAnswer,
  contract_writesAnswer,
  http_undocumentedMethods,
  ratelimit_burst429,
  contract_responsesValid,
]
