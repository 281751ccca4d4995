/**
 * Schemas shared by several areas. Area files import the enums and small shapes from here and
 * put area-specific resources in their own `schemas` export.
 */
import { arr, body, date, enumOf, int, num, obj, str, type Schema } from './dsl.ts'

// spec: What the service does: every Enterprise endpoint takes exactly one region.
export const REGIONS = ['us', 'uk', 'mx', 'es', 'de', 'ie', 'it', 'fr', 'nl', 'pt', 'gr', 'be', 'at', 'pl', 'hu', 'cz', 'br', 'jp'] as const

// spec: States and transitions: NOT_DELIVERYING (misspelled) and NOT_DELIVERING are distinct values.
export const DELIVERY_STATUSES = [
  'NOT_ACTIVE', 'UNAVAILABLE', 'NOT_DELIVERYING', 'AUTHORIZATION_NEEDED', 'IN_QUEUE', 'DELIVERING',
  'LEARNING', 'EXCLUDED', 'REJECTED', 'NOT_DELIVERING', 'REVIEWING',
] as const

export const SAMPLE_STATUSES = [
  'To Review', 'Ready to Ship', 'Shipped', 'Content Pending', 'Overdue', 'Rejected',
  'Delivered', 'Content Posted', 'Pending', 'Approved',
] as const
/** Open (still moving) sample statuses. */
export const OPEN_SAMPLE_STATUSES = ['To Review', 'Ready to Ship', 'Shipped', 'Content Pending', 'Overdue'] as const
export const REFUNDABLE_SAMPLE_STATUSES = ['Requested', 'Shipped', 'Delivered', 'Content Posted', 'Refunded', 'Expired'] as const

export const WIDGET_TYPES_EDITABLE = ['stat', 'stat-chart'] as const
export const WIDGET_SIZES = ['xs', 'sm', 'md', 'lg'] as const
export const DATE_RANGE_PRESETS = ['7d', '14d', '30d', '90d', 'mtd', 'qtd'] as const
export const GRAINS = ['day', 'week', 'month'] as const
export const PROGRAM_STATUSES = ['active', 'paused', 'archived'] as const
export const MEMBERSHIP_STATUSES = ['pending', 'approved', 'rejected', 'removed'] as const
export const COMMISSION_RULE_TYPES = ['gmv_pct', 'flat_per_order', 'flat_per_submission', 'flat_per_creator', 'meta_ad_performance'] as const
export const HALO_STATUSES = ['ok', 'refreshing', 'not_linked', 'error'] as const
export const SORT_DIRECTION_UPPER = ['ASC', 'DESC'] as const
export const SORT_DIRECTION_LOWER = ['asc', 'desc'] as const

/** Every response schema shared across areas, registered under components/schemas. */
export const commonSchemas: Record<string, Schema> = {
  Error: obj({ error: str({ description: 'What went wrong; the spec\'s exact words where it gives them.' }) }, {
    description: 'Error bodies are JSON {error: <message string>} (spec: Errors).',
  }),
  DateRange: obj(
    { from: date(), to: date() },
    { description: 'Dates in requests are YYYY-MM-DD; ranges are objects {from, to} (spec: Conventions 7). A range whose `from` is after its `to` is refused with 400 `<field>.from must not be after <field>.to` (inferred: such a range selects nothing).' },
  ),
  Region: enumOf(REGIONS, { description: 'Lowercase country code of the Enterprise market.' }),
  DeliveryStatus: enumOf(DELIVERY_STATUSES, { description: 'Ad delivery status of a sponsored-video code or sales-max creative.' }),
  SampleStatus: enumOf(SAMPLE_STATUSES, { description: 'Sample request status; the last four are legacy values.' }),
  Grain: enumOf(GRAINS, { description: 'Bucket size: `day`, `week` (starting Monday) or `month` (calendar months).' }),
  DateRangePreset: enumOf(DATE_RANGE_PRESETS, { description: 'A dashboard\'s locked date-range preset.' }),
  StatEntry: obj(
    {
      key: str(),
      title: str(),
      total_count: num(),
      daily_counts: arr(obj({ date: date(), count: { type: ['number', 'null'] } })),
      percent_change: num(),
    },
    { required: ['key', 'title', 'total_count', 'percent_change'], description: 'Stat entry; daily_counts only with charts and only for charted stats.' },
  ),
  CountOnly: obj({ data: obj({ total_count: int({ minimum: 0 }) }) }, { description: 'Listing endpoints with just_count: true return only total_count (spec: Conventions 3).' }),
  CsvExport: obj(
    { data: obj({ url: str({ format: 'uri' }), expires_at: str({ format: 'date-time' }), row_count: int({ minimum: 0 }) }, { inferred: true }) },
    { inferred: true, description: 'format: csv returns a presigned download link instead of inline JSON (spec: Conventions 5). The link\'s fields are not shown; inferred.' },
  ),
}

/** A required `{from, to}` date range in a request. */
export const dateRange = (): Schema => ({ $ref: '#/components/schemas/DateRange' })

/** Optional CSV-export fields of endpoints marked CSV (spec: Conventions 5). */
export const csvFields = (): Record<string, Schema> => ({
  format: enumOf(['json', 'csv'], { description: 'csv returns a presigned download link instead of inline JSON.' }),
  columns: arr(str(), { description: 'Fields to export.' }),
  csv_limit: int({ minimum: 1, description: 'Cap on exported rows.' }),
})

/** `page_size`/`page_number` of page-based search bodies (spec: Conventions 6). */
export const pageFields = (maxSize?: number): Record<string, Schema> => ({
  page_size: int({ minimum: 1, ...(maxSize ? { maximum: maxSize } : {}) }),
  page_number: int({ minimum: 1, description: '1-based.' }),
})


/** `affiliate_performance`: platform-wide creator bounds (spec: CRM, videos, slideshows, LIVEs; Samples). */
export const affiliatePerformance = (): Schema =>
  body(
    { min_gmv: num(), max_gmv: num(), min_followers: num(), max_followers: num() },
    { description: 'Platform-wide creator performance: 30-day GMV across all brands and follower count.' },
  )

/** `shop_performance`: what the creator did for this shop, lifetime (spec: CRM, videos, slideshows, LIVEs; Samples). */
export const shopPerformance = (): Schema =>
  body(
    {
      min_gmv: num({ description: 'Shop lifetime GMV the creator drove.' }),
      max_gmv: num(),
      min_video_gmv: num(),
      max_video_gmv: num(),
      min_live_gmv: num(),
      max_live_gmv: num(),
      min_units_sold: num(),
      max_units_sold: num(),
    },
    { description: 'The creator\'s performance for this shop.' },
  )

/**
 * What a documented path answers to a method it does not document, declared once: OpenAPI describes
 * operations, not their absence. Referenced from the document's `x-undocumented-methods`; inferred
 * from HTTP (RFC 9110 15.5.6), as the service documentation names only its own methods (issue 24).
 */
export const methodNotAllowedResponse: Schema = {
  description:
    'A documented path called with a method it does not document (PUT, PATCH, TRACE, CONNECT, any other token; HEAD where GET is not documented, refused as GET is): 405, its `Allow` header listing the path\'s methods (HEAD wherever GET is, and OPTIONS), and the {error} body naming the method; on the assistant connector\'s MCP endpoint, a JSON-RPC error as its GET and DELETE answer. Inferred from HTTP (RFC 9110 9.3.2, 15.5.6), not from the service documentation.',
  headers: {
    Allow: { description: 'The methods the path takes, e.g. `GET, HEAD, OPTIONS` (RFC 9110 10.2.1).', required: true, schema: str({ minLength: 1 }) },
  },
  content: {
    'application/json': {
      schema: { anyOf: [{ $ref: '#/components/schemas/Error' }, { $ref: '#/components/schemas/JsonRpcErrorResponse' }] },
      examples: { trace: { summary: 'TRACE /shop/sps (the mock\'s answer)', value: { error: 'Method TRACE is not implemented by this server, nor allowed on /shop/sps; allowed: GET, HEAD, OPTIONS' } } },
    },
  },
  'x-inferred': true,
}

/**
 * What the server answers a request that is not HTTP/1.1 as RFC 9112 writes it: refused before any
 * operation reads it, so declared once, on the document (`x-malformed-requests`), as the answer to a
 * method a path does not document is. Inferred from HTTP; the service documentation does not go below JSON.
 */
export const malformedRequestResponse: Schema = {
  description:
    "A request refused before any operation reads it, because it is not HTTP/1.1 as RFC 9112 writes it: 400 (a malformed request line, header line or chunk; conflicting or invalid framing; an HTTP/1.1 request without Host, or any with more than one), 408 (the request stopped coming), 417 (an expectation other than 100-continue), 431 (a head over the server's limit). The {error} body names the problem; the connection closes after it. Inferred from HTTP (RFC 9112 3.2, 6.3, 7.1; RFC 9110 10.1.1, 15.5.9, 15.5.18; RFC 6585 5), not from the service documentation.",
  content: {
    'application/json': {
      schema: { $ref: '#/components/schemas/Error' },
      examples: { host: { summary: "An HTTP/1.1 request without Host (the mock's answer)", value: { error: 'Missing Host header: an HTTP/1.1 request must carry one (RFC 9112 3.2)' } } },
    },
  },
  'x-inferred': true,
}

/** The document's `x-malformed-requests`: the statuses of `MalformedRequest`, whatever the path and method. */
export const malformedRequests: Schema = {
  description: 'Any path, any method: a request that is not HTTP/1.1 as RFC 9112 writes it is answered `MalformedRequest` with one of these statuses, before any operation (or the 404 of an unknown path) reads it. Inferred from HTTP.',
  statuses: [400, 408, 417, 431],
  response: { $ref: '#/components/responses/MalformedRequest' },
  'x-inferred': true,
}

/** The document's `x-undocumented-methods`: how the server answers the methods a path does not document. */
export const undocumentedMethods: Schema = {
  description:
    'Every path answers a method none of its operations documents with `MethodNotAllowed` (405 with Allow); HEAD is answered wherever GET is, as GET would be (its status and header fields, Content-Length included) without a body, and changes nothing; OPTIONS with 204 and Allow. HEAD, OPTIONS and TRACE change nothing; GET neither, but where an operation says what its GET starts (an authorization request, a halo report call). A path that is not documented answers 404 whatever the method (OPTIONS: 204, the CORS preflight). Inferred from HTTP (RFC 9110 8.6, 9.1, 9.2.1, 9.3.2, 9.3.7, 15.5.6).',
  response: { $ref: '#/components/responses/MethodNotAllowed' },
  'x-inferred': true,
}
