/**
 * A small vocabulary for writing the OpenAPI 3.1 contract in TypeScript.
 *
 * The contract is authored per area (openapi/src/areas/*.ts) with these helpers and bundled by
 * openapi/build.ts into one file, openapi/openapi.yaml, which is the artefact users hand to other
 * tools. The helpers only build plain JSON Schema 2020-12 / OpenAPI 3.1 objects: nothing here is
 * specific to our mock.
 */

export type Schema = Record<string, unknown>
export type HttpMethod = 'get' | 'post' | 'delete'

/** Error statuses the spec names (401 for a missing or unknown key and 413 for an oversized body are inferred). */
export type ErrorStatus = 400 | 401 | 403 | 404 | 409 | 412 | 413 | 429

/** `#/components/schemas/<name>` */
export const ref = (name: string): Schema => ({ $ref: `#/components/schemas/${name}` })

export const str = (extra: Schema = {}): Schema => ({ type: 'string', ...extra })
export const num = (extra: Schema = {}): Schema => ({ type: 'number', ...extra })
export const int = (extra: Schema = {}): Schema => ({ type: 'integer', ...extra })
export const bool = (extra: Schema = {}): Schema => ({ type: 'boolean', ...extra })
export const arr = (items: Schema, extra: Schema = {}): Schema => ({ type: 'array', items, ...extra })
export const enumOf = (values: readonly string[], extra: Schema = {}): Schema => ({ type: 'string', enum: [...values], ...extra })
export const date = (extra: Schema = {}): Schema => str({ format: 'date', ...extra })
export const dateTime = (extra: Schema = {}): Schema => str({ format: 'date-time', ...extra })
/** MM/DD/YYYY, the spec's format for post_time, start_time, shared_time... */
export const usDate = (extra: Schema = {}): Schema => str({ pattern: '^\\d{2}/\\d{2}/\\d{4}$', ...extra })
/** A string or an array of strings ("string or array" in the spec). */
export const strOrArr = (extra: Schema = {}): Schema => ({ anyOf: [str(), arr(str())], ...extra })

/**
 * Nullable in the 3.1 way: `type: [t, 'null']` where the schema has one type, else `anyOf` with null.
 * An enum is `anyOf: [enum, null]` too, as every nullable $ref'd enum already is: `null` inside `enum`
 * is as correct, but openapi-zod-client turns it into `z.enum([..., null])`, which does not compile.
 */
export function nullable(schema: Schema): Schema {
  const { type } = schema
  if (typeof type === 'string' && !('$ref' in schema) && !Array.isArray(schema.enum)) return { ...schema, type: [type, 'null'] }
  if (Array.isArray(schema.enum) && typeof schema.description === 'string') {
    const { description, ...values } = schema
    return { anyOf: [values, { type: 'null' }], description }
  }
  return { anyOf: [schema, { type: 'null' }] }
}

export interface ObjectOptions {
  /** Property names that must be present. Default: every property (documented shapes are complete). */
  required?: string[]
  /** false: properties beyond the listed ones are refused (request bodies with a closed shape). */
  additionalProperties?: boolean | Schema
  description?: string
  /** The shape, or part of it, is our inference where the spec says "not shown". */
  inferred?: boolean
}

/** An object schema. Documented response shapes list every field as required. */
export function obj(properties: Record<string, Schema>, options: ObjectOptions = {}): Schema {
  const { required = Object.keys(properties), additionalProperties, description, inferred } = options
  const out: Schema = { type: 'object', properties }
  if (required.length) out.required = required
  if (additionalProperties !== undefined) out.additionalProperties = additionalProperties
  // A shape the spec does not show is open: said explicitly, so typed clients get an open record
  // rather than `Record<string, never>`.
  else if (Object.keys(properties).length === 0) out.additionalProperties = true
  if (description) out.description = description
  if (inferred) out['x-inferred'] = true
  return out
}

/** A request body object: every field optional unless named in `required`. */
export const body = (properties: Record<string, Schema>, options: ObjectOptions = {}): Schema =>
  obj(properties, { ...options, required: options.required ?? [] })

/** `{ data: <schema> }`, the spec's usual success wrapper (Conventions 2). */
export const data = (schema: Schema, extra: Record<string, Schema> = {}): Schema => obj({ data: schema, ...extra })

export interface QueryParam {
  name: string
  schema: Schema
  required?: boolean
  description?: string
  /** `deepObject` for object-valued parameters (`date_range[from]=...`); default `form`. */
  style?: 'form' | 'deepObject'
  /**
   * The value is JSON text (`content: application/json`): for objects that nest objects or arrays,
   * which `deepObject` leaves undefined (OpenAPI 3.1, 4.8.12.4: deepObject is for one level).
   */
  json?: boolean
  /**
   * With `json`: the same value is also accepted as nested brackets (`p[a][from]=x&p[b][]=y`), deepObject
   * carried on to nested objects and arrays; said in the contract as `x-nested-brackets: true`.
   */
  nestedBrackets?: boolean
}

export interface OperationSpec {
  method: HttpMethod
  path: string
  operationId: string
  /** Area tag: Account, Shop stats, Timeseries, CRM, Spark, Ads, Social, Halo, Samples, Dashboards, Outreach... */
  tag: string
  summary: string
  description?: string
  /** Spec section this operation is documented in, for reports and test titles. */
  specSection: string
  /** Request body schema (POST/DELETE). */
  requestBody?: Schema
  /** Query parameters (GET forms). */
  query?: QueryParam[]
  /** Path parameters, e.g. the idempotency key. */
  pathParams?: QueryParam[]
  /** Success status and body. */
  success: {
    status: 200 | 201
    schema: Schema
    description?: string
    /** CSV export (spec: Conventions 5): the component schema of an exported row; its fields are the `columns`. */
    csv?: string
  }
  /** Error statuses besides the cross-cutting ones added by the builder (see build.ts). */
  errors?: ErrorStatus[]
  /** Security: 'none' for GET /health, 'key' for GET /account/shops, default 'key+shop'. */
  auth?: 'none' | 'key' | 'key+shop'
  /** Accepts the Idempotency-Key header (exactly the write endpoints the spec lists). */
  idempotent?: boolean
  /** Enterprise tier: a standard key gets 403. */
  enterprise?: boolean
  /** Plan gate: `active-paid` for the ads endpoints, `scale` for workflows toggle, briefs, community. */
  planGate?: 'active-paid' | 'scale'
  /** Shape or path inferred where the spec says "not shown". */
  inferred?: boolean
  /** For aliases (`/v1/ads/...`, GET forms): the operationId of the canonical operation. */
  aliasOf?: string
  /** Paging: how page_size is bounded on this operation (documents the clamp-or-reject choice). */
  paging?: { sizeParam: string; pageParam?: string; defaultSize?: number; max: number; mode: 'clamp' | 'reject'; depthCap?: number }
}

/** Builds one operation's spec; areas export arrays of these. */
export const operation = (spec: OperationSpec): OperationSpec => spec

/** The GET form of a POST operation: the body's top-level fields become query parameters. */
export function getForm(post: OperationSpec, operationId: string, extra: Partial<OperationSpec> = {}): OperationSpec {
  const props = ((post.requestBody?.properties ?? {}) as Record<string, Schema>)
  const query: QueryParam[] = Object.entries(props).map(([name, schema]) => queryParam(name, schema))
  return {
    ...post,
    ...extra,
    method: 'get',
    operationId,
    requestBody: undefined,
    query: [...query, ...(extra.query ?? [])],
    aliasOf: post.operationId,
    summary: `${post.summary} (GET form with query parameters)`,
  }
}

/** `/v1/...` alias of an ads operation. */
export function v1Alias(op: OperationSpec, operationId: string): OperationSpec {
  return { ...op, path: `/v1${op.path}`, operationId, aliasOf: op.operationId, summary: `${op.summary} (alias under /v1)` }
}

/**
 * A body field as a query parameter: objects use `deepObject` (`date_range[from]=2026-01-01`),
 * arrays repeated keys (`video_ids=a&video_ids=b`), scalars plain text that the validator coerces.
 */
export function queryParam(name: string, schema: Schema, extra: Partial<QueryParam> = {}): QueryParam {
  const t = schema.type
  const isObject = t === 'object' || (Array.isArray(t) && t.includes('object'))
  return { name, schema, ...(isObject ? { style: 'deepObject' as const } : {}), ...extra }
}
