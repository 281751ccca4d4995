/**
 * The error messages of the mock's cross-cutting rules, in one place: the pipeline's steps and the
 * areas throw them, and `Prefer: code=NNN` (pipeline/prefer.ts) answers with them, so a simulated
 * error reads like the real one.
 *
 * `spec:` entries are the spec's exact words (spec: Errors table unless said otherwise): do not
 * reword them. `inferred:` entries are the mock's own words where the spec shows only the
 * condition; they name the field and the rule. The conformance rules keep their own copies on
 * purpose (a suite that imported these would agree with a typo).
 */
/** An integer with a comma every three digits (1,000,000), as en-US writes it, whatever the runtime's ICU and locale data. */
export const groupedDigits = (n: number): string => String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ',')

export const messages = {
  // spec: Errors: 400, idempotency key not matching ^[A-Za-z0-9-]{1,128}$.
  invalidIdempotencyKey: 'Invalid idempotency key format',
  // spec: Errors: 400, missing required date range on campaign, creative-ads and social-ads endpoints.
  missingDateRange: 'Missing date_range (from/to)',
  // spec: Errors: 400, missing shop header.
  missingShopHeader: 'Missing X-Shop-Id header',
  // spec: Errors: 400, malformed shop id.
  invalidShopId: 'Invalid shop_id',
  // spec: Errors: 403 (ads endpoints).
  shopNotOwned: 'Shop not found or not owned by user',
  // spec: Errors: 403 (ads endpoints); Authentication 5: plan gates.
  notOnPaidPlan: 'This shop is not on an active paid plan',
  // spec: Errors: 404, idempotency lookup after never made or expired.
  noStoredResponse: 'No stored response for that key',

  // inferred: spec: Errors: "Status codes and messages for a missing or invalid API key: not shown".
  missingApiKey: 'Missing API key (x-api-key header)',
  invalidApiKey: 'Invalid API key',
  // inferred: spec: Errors: 403 forbidden (route permission, shop outside the key's shops).
  routeForbidden: (permission: string) => `Forbidden: this API key does not have permission for ${permission}`,
  shopForbidden: 'Forbidden: this API key does not have access to this shop',
  // inferred: spec: Errors: 403 forbidden (workflow toggle below the Scale plan; Enterprise endpoint with a standard key).
  needsScalePlan: 'This feature requires the Scale plan',
  needsEnterprisePlan: 'This endpoint requires an Enterprise plan',
  // inferred: spec: Errors: 409 in flight (Idempotency: up to 60 seconds).
  idempotencyInFlight: 'A request with this Idempotency-Key is still in flight',
  // inferred: spec: Idempotency: a key belongs to one operation.
  idempotencyKeyUsedElsewhere: (permission: string) => `Idempotency-Key already used for ${permission} on this shop; use a new key for another operation`,
  // inferred: spec: POST /shop/stats rule 1 ("An unrecognised value returns 400"); also POST /dashboards/data.
  unknownTimeZone: (value: unknown) => `timezone: unrecognised IANA timezone ${JSON.stringify(value)}`,
  // inferred: spec: Errors: 412 re-read and reapply (Dashboards: expected_updated_at). The mock names the board's updated_at when it has one.
  dashboardChanged: (updatedAt?: string) =>
    updatedAt === undefined
      ? 'The dashboard changed since expected_updated_at; re-read it and reapply the change'
      : `The dashboard changed since expected_updated_at (updated_at is now ${updatedAt}); re-read it and reapply the change`,
  // inferred: spec: Errors: 429 over 10 requests per second or 1,000,000 per day per shop; Limits: per key, measured per shop.
  tooManyRequests: (window: 'second' | 'day', limit: number) => `Too many requests: over ${groupedDigits(limit)} per ${window} for this key and shop`,
  // inferred: every `{from, to}` range of the spec.
  rangeOrder: (fromName: string, toName: string) => `${fromName} must not be after ${toName}`,
} as const
