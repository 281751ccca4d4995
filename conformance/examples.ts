/**
 * Minimal valid requests built from the contract: every required field of the request schema
 * gets the smallest value the schema allows (the first enum value, the minimum, a recent date
 * range), so a sweep can call every operation without knowing it in advance.
 */
import type { Contract, JsonSchema, OperationInfo } from '../openapi/index.ts'
import { daysAgo, recentRange } from './support.ts'

const WRITE_SEGMENTS = new Set(['create', 'update', 'delete', 'approve', 'reject', 'ignore', 'unignore', 'dm', 'merge', 'toggle', 'authorize', 'create-custom', 'add', 'remove'])

/** Whether an operation changes anything (it then runs only with --allow-writes). */
export function isWrite(op: OperationInfo): boolean {
  return op.method === 'DELETE' || WRITE_SEGMENTS.has(op.path.split('/').pop() ?? '')
}

/** The canonical operation of an alias (GET form or /v1 path), or the operation itself. */
export function canonicalOf(contract: Contract, op: OperationInfo): OperationInfo {
  return op.aliasOf ? contract.byId.get(op.aliasOf) ?? op : op
}

function resolve(contract: Contract, schema: JsonSchema): JsonSchema {
  let s = schema
  for (let i = 0; i < 5 && typeof s.$ref === 'string'; i++) s = contract.doc.components.schemas[(s.$ref as string).split('/').pop()!] ?? {}
  return s
}

/** The smallest value a schema allows; `ids` supplies values for identifier fields by name. */
export function exampleValue(contract: Contract, name: string, raw: JsonSchema, ids: Record<string, unknown> = {}, depth = 0): unknown {
  if (name in ids) return ids[name]
  if (name === 'date_range' || name === 'dateRange') return recentRange(30)
  if (name === 'region') return 'us'
  const schema = resolve(contract, raw)
  if ('const' in schema) return schema.const
  if (Array.isArray(schema.enum)) return schema.enum.find((v) => v !== null)
  const branches = (schema.anyOf ?? schema.oneOf) as JsonSchema[] | undefined
  if (branches) {
    const branch = branches.find((b) => resolve(contract, b).type !== 'null') ?? branches[0]
    return exampleValue(contract, name, branch, ids, depth + 1)
  }
  const type = Array.isArray(schema.type) ? (schema.type as string[]).find((t) => t !== 'null') : (schema.type as string | undefined)
  switch (type) {
    case 'string':
      if (schema.format === 'date') return daysAgo(1)
      if (schema.format === 'date-time') return new Date().toISOString()
      if (schema.format === 'uuid') return '00000000-0000-4000-8000-000000000000'
      return /(_id|Id)$/.test(name) ? 'conformance-missing' : 'conformance'
    case 'integer':
    case 'number':
      return typeof schema.minimum === 'number' ? schema.minimum : typeof schema.exclusiveMinimum === 'number' ? schema.exclusiveMinimum + 1 : 1
    case 'boolean':
      return false
    case 'array': {
      const min = typeof schema.minItems === 'number' ? schema.minItems : 0
      const items = (schema.items ?? {}) as JsonSchema
      return Array.from({ length: min }, () => exampleValue(contract, name.replace(/s$/, ''), items, ids, depth + 1))
    }
    case 'object':
      return depth > 6 ? {} : exampleObject(contract, schema, ids, depth + 1)
    default:
      return 'conformance'
  }
}

/** An object with only its required properties, each at its smallest value. */
export function exampleObject(contract: Contract, raw: JsonSchema | undefined, ids: Record<string, unknown> = {}, depth = 0): Record<string, unknown> {
  if (!raw) return {}
  const schema = resolve(contract, raw)
  const properties = (schema.properties ?? {}) as Record<string, JsonSchema>
  const out: Record<string, unknown> = {}
  for (const name of (schema.required as string[] | undefined) ?? []) {
    out[name] = exampleValue(contract, name, properties[name] ?? {}, ids, depth)
  }
  return out
}

/** The body (or, for a GET form, the query) of a minimal valid request for an operation. */
export function minimalRequest(contract: Contract, op: OperationInfo, ids: Record<string, unknown> = {}): { body?: Record<string, unknown>; query?: Record<string, unknown> } {
  if (op.method === 'GET') {
    const query: Record<string, unknown> = {}
    for (const p of op.query) if (p.required) query[p.name] = exampleValue(contract, p.name, p.schema, ids)
    return { query }
  }
  return { body: exampleObject(contract, op.requestSchema, ids) }
}

/**
 * Fields the spec lists without calling them optional, which the contract leaves optional:
 * a request without them is refused by a server that follows the spec's wording.
 */
const PRACTICALLY_REQUIRED: Record<string, Record<string, unknown>> = {
  // spec: POST /shop/stats: "Request: date_range; include_charts; stats; optional product_id ...".
  'POST /shop/stats': { stats: ['total_gmv'], include_charts: false },
}

/**
 * A minimal request as it would be sent in practice: the minimal body (or query for a GET form)
 * plus a recent date range wherever the operation takes one, required or not (several endpoints
 * refuse a missing range with their own message rather than through the schema).
 */
export function typicalRequest(contract: Contract, op: OperationInfo, ids: Record<string, unknown> = {}): { body?: Record<string, unknown>; query?: Record<string, unknown> } {
  const canonical = canonicalOf(contract, op)
  const minimal = minimalRequest(contract, op.method === 'GET' && op.aliasOf ? canonical : op, ids)
  const params: Record<string, unknown> = { ...minimal.body, ...minimal.query }
  const takes = new Set([...Object.keys((canonical.requestSchema?.properties ?? {}) as object), ...op.query.map((q) => q.name)])
  if (takes.has('date_range') && !params.date_range) params.date_range = recentRange(30)
  Object.assign(params, PRACTICALLY_REQUIRED[canonical.permission] ?? {})
  return op.method === 'GET' ? { query: params } : { body: params }
}
