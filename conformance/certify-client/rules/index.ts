/** Every client rule, in report order. */
import type { ClientRule } from '../types.ts'
import { enterpriseAfter403 } from './auth/enterprise-after-403.ts'
import { inferredRequestBodies } from './contract/inferred-request-bodies.ts'
import { requestBodies } from './contract/request-bodies.ts'
import { preconditionAfter412 } from './dashboards/precondition-after-412.ts'
import { rereadAfter412 } from './dashboards/reread-after-412.ts'
import { pollBackoff } from './halo/poll-backoff.ts'
import { everyCall } from './headers/every-call.ts'
import { conflictRetryLater } from './idempotency/conflict-retry-later.ts'
import { conflictRetrySameKey } from './idempotency/conflict-retry-same-key.ts'
import { keyFormat } from './idempotency/key-format.ts'
import { retrySameKey } from './idempotency/retry-same-key.ts'
import { scopedReads } from './limits/scoped-reads.ts'
import { noLegacyKeys } from './outreach/no-legacy-keys.ts'
import { depthCap } from './paging/depth-cap.ts'
import { pageSizeMax } from './paging/page-size-max.ts'
import { pace } from './ratelimit/pace.ts'
import { retry429 } from './ratelimit/retry-429.ts'
import { retryAfter } from './ratelimit/retry-after.ts'

export const clientRules: readonly ClientRule[] = [
  everyCall,
  requestBodies,
  inferredRequestBodies,
  keyFormat,
  retrySameKey,
  conflictRetrySameKey,
  conflictRetryLater,
  retry429,
  retryAfter,
  pace,
  depthCap,
  pageSizeMax,
  rereadAfter412,
  preconditionAfter412,
  noLegacyKeys,
  pollBackoff,
  scopedReads,
  enterpriseAfter403,
]
