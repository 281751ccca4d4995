/**
 * Requests made from the contract alone (issue 24, item 3): for one operation, its parameters and
 * body generated from their JSON Schemas with fast-check (test/support/fuzz.ts builds the value
 * arbitraries), serialised as OpenAPI says (query `form`/explode, objects `deepObject`; bodies JSON or
 * form-encoded as the operation's media type says), then
 *
 * - positive: kept only when ajv (2020-12, formats) finds the request valid against the contract;
 * - negative: one violation the schema forbids (a wrong type, a missing required field, a pattern, an
 *   enum, a bound, a format), kept only when ajv finds the request invalid, and named.
 *
 * Why arbitraries of our own rather than json-schema-faker: the contract's schemas are ours and plain
 * (objects, enums, patterns, bounds, formats, `anyOf` of `required` lists); fast-check shrinks them and
 * replays them from a seed, and the value generator already serves the robustness fuzz. json-schema-faker
 * draws from its own random source (a seed of its own, no shrinking), and would be one more dependency.
 */
import fc from 'fast-check'
import type { Contract, JsonSchema } from '../../openapi/index.ts'
import { schemaArbitrary, type IdHints } from '../support/fuzz.ts'

/** One parameter of an operation, as the contract declares it. */
export interface ParamSpec {
  name: string
  in: 'query' | 'path' | 'header'
  required: boolean
  schema: JsonSchema
  style?: string
  /** `content: application/json`: the value is JSON text. */
  json?: boolean
  /** `x-nested-brackets`: a JSON parameter also taken as nested brackets (`p[a][from]=x&p[b][]=y`). */
  nestedBrackets?: boolean
}

/** What the generator needs of an operation, API or connector alike. */
export interface FuzzOperation {
  operationId: string
  method: string
  path: string
  params: ParamSpec[]
  body?: { mediaType: string; schema: JsonSchema; required: boolean }
}

export interface GeneratedRequest {
  kind: 'positive' | 'negative'
  /** For a negative request: what the contract forbids in it. */
  violation?: string
  path: string
  query: string
  headers: Record<string, string>
  body?: string
}

export interface GenerateOptions {
  today: string
  hints?: IdHints
}

const resolver = (contract: Contract) => {
  const resolve = (s: JsonSchema | undefined): JsonSchema => {
    let out = s ?? {}
    for (let i = 0; i < 10 && typeof out.$ref === 'string'; i++) out = contract.doc.components.schemas[(out.$ref as string).split('/').pop()!] ?? {}
    return out
  }
  return resolve
}

const typeOf = (s: JsonSchema): string | undefined => (Array.isArray(s.type) ? (s.type as string[]).find((t) => t !== 'null') : (s.type as string | undefined)) ?? (s.properties ? 'object' : s.items ? 'array' : undefined)

/** The object schema of an operation's parameters of one location (how ajv checks them together). */
export function paramsSchema(params: ParamSpec[]): JsonSchema {
  const required = params.filter((p) => p.required).map((p) => p.name)
  return { type: 'object', properties: Object.fromEntries(params.map((p) => [p.name, p.schema])), ...(required.length ? { required } : {}) }
}

// ---------------------------------------------------------------------------------------------
// Serialisation (OpenAPI 3.1 4.8.12.4: form with explode for query values, deepObject for objects)

const scalarText = (v: unknown): string => (typeof v === 'string' ? v : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v))

/** Nested brackets (`p[a][from]=x`, arrays as `p[a][]=x` or `p[a][0]=x`): each leaf with its key. */
function bracketPairs(prefix: string, value: unknown, indices: boolean): Array<[string, string]> {
  if (Array.isArray(value)) return value.flatMap((v, i) => (v !== null && typeof v === 'object' ? bracketPairs(`${prefix}[${i}]`, v, indices) : bracketPairs(`${prefix}[${indices ? i : ''}]`, v, indices)))
  if (value !== null && typeof value === 'object') return Object.entries(value).flatMap(([k, v]) => bracketPairs(`${prefix}[${k}]`, v, indices))
  return value === undefined ? [] : [[prefix, scalarText(value)]]
}

/**
 * The query text of `values`. A JSON parameter travels as JSON text, or (when the contract says
 * `x-nested-brackets` and `form` asks for it) as nested brackets, arrays with `[]` or with indices.
 */
export function queryString(params: ParamSpec[], values: Record<string, unknown>, form: 'json' | 'brackets' | 'indices' = 'json'): string {
  const search = new URLSearchParams()
  for (const p of params) {
    const value = values[p.name]
    if (value === undefined) continue
    if (p.json && p.nestedBrackets && form !== 'json' && value !== null && typeof value === 'object' && !Array.isArray(value)) for (const [k, v] of bracketPairs(p.name, value, form === 'indices')) search.append(k, v)
    else if (p.json) search.append(p.name, JSON.stringify(value))
    else if (Array.isArray(value)) for (const v of value) search.append(p.name, scalarText(v))
    else if (value !== null && typeof value === 'object') for (const [k, v] of Object.entries(value)) search.append(`${p.name}[${k}]`, scalarText(v))
    else search.append(p.name, scalarText(value))
  }
  return search.toString()
}

/** Query text back to values as a server reading the contract does: numbers, booleans and arrays by their schema. */
export function parseQuery(contract: Contract, params: ParamSpec[], text: string): Record<string, unknown> {
  const resolve = resolver(contract)
  const search = new URLSearchParams(text)
  const coerce = (schema: JsonSchema, raw: string): unknown => {
    const s = resolve(schema)
    const type = typeOf(s)
    if ((type === 'integer' || type === 'number') && raw.trim() !== '' && Number.isFinite(Number(raw))) return Number(raw)
    if (type === 'boolean' && (raw === 'true' || raw === 'false')) return raw === 'true'
    return raw
  }
  const out: Record<string, unknown> = {}
  /** Nested brackets read back as the contract describes them: objects by key, arrays by `[]` or index, leaves typed by their schema. */
  const fromBrackets = (entries: Array<{ path: string[]; raw: string }>, schema: JsonSchema): unknown => {
    const s = resolve(schema)
    // A leaf: an array-only field's values are its items (`p[ids]=a`, repeated or not), as a form-exploded array.
    if (entries.every((e) => e.path.length === 0)) return typeOf(s) === 'array' ? entries.map((e) => coerce((s.items as JsonSchema) ?? {}, e.raw)) : entries.length === 1 ? coerce(s, entries[0]!.raw) : entries.map((e) => coerce(s, e.raw))
    const branches = [s, ...(((s.anyOf ?? s.oneOf) as JsonSchema[] | undefined) ?? []).map(resolve)]
    const groups = new Map<string, Array<{ path: string[]; raw: string }>>()
    for (const e of entries) groups.set(e.path[0] ?? '', [...(groups.get(e.path[0] ?? '') ?? []), { path: e.path.slice(1), raw: e.raw }])
    if ([...groups.keys()].every((k) => k === '' || /^\d+$/.test(k))) {
      const items = (branches.find((b) => typeOf(b) === 'array')?.items as JsonSchema | undefined) ?? {}
      return [...groups].sort(([a], [b]) => Number(a || Infinity) - Number(b || Infinity)).flatMap(([k, g]) => (k === '' ? g.map((e) => fromBrackets([e], items)) : [fromBrackets(g, items)]))
    }
    const props = (branches.find((b) => typeOf(b) === 'object')?.properties ?? {}) as Record<string, JsonSchema>
    return Object.fromEntries([...groups].map(([k, g]) => [k, fromBrackets(g, props[k] ?? {})]))
  }
  for (const p of params) {
    const s = resolve(p.schema)
    if (p.json) {
      const bracketed = [...search].filter(([key]) => key.startsWith(`${p.name}[`)).map(([key, raw]) => ({ path: [...key.slice(p.name.length).matchAll(/\[([^\]]*)\]/g)].map((m) => m[1]!), raw }))
      if (search.has(p.name)) {
        try {
          out[p.name] = JSON.parse(search.get(p.name)!)
        } catch {
          out[p.name] = search.get(p.name)
        }
      } else if (bracketed.length) out[p.name] = fromBrackets(bracketed, s)
    } else if (p.style === 'deepObject') {
      const obj: Record<string, unknown> = {}
      for (const [key, raw] of search) {
        const m = new RegExp(`^${p.name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\[([^\\]]*)\\]$`).exec(key)
        if (m) obj[m[1]!] = coerce(((s.properties ?? {}) as Record<string, JsonSchema>)[m[1]!] ?? {}, raw)
      }
      if (Object.keys(obj).length) out[p.name] = obj
    } else if (typeOf(s) === 'array') {
      const all = search.getAll(p.name)
      if (all.length) out[p.name] = all.map((raw) => coerce((s.items as JsonSchema) ?? {}, raw))
    } else if (search.has(p.name)) out[p.name] = coerce(s, search.get(p.name)!)
  }
  return out
}

export function bodyText(mediaType: string, value: unknown): string {
  if (mediaType !== 'application/x-www-form-urlencoded') return JSON.stringify(value)
  const form = new URLSearchParams()
  for (const [k, v] of Object.entries((value ?? {}) as Record<string, unknown>)) {
    if (Array.isArray(v)) for (const item of v) form.append(k, scalarText(item))
    else if (v !== undefined) form.append(k, scalarText(v))
  }
  return form.toString()
}

/** A form body read back as a server does: every value text (a repeated name becomes a list). */
export function parseForm(text: string): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  for (const [k, v] of new URLSearchParams(text)) out[k] = k in out ? [...(Array.isArray(out[k]) ? (out[k] as unknown[]) : [out[k]]), v] : v
  return out
}

// ---------------------------------------------------------------------------------------------
// Violations: candidate changes the schema forbids, found by walking the schema along the value

type Path = Array<string | number>
export interface Violation {
  path: Path
  /** undefined: the key is removed. */
  value: unknown
  remove?: boolean
  what: string
}

/** Every violation the schema names for this value (ajv decides afterwards which ones really are). */
export function violationsOf(contract: Contract, schema: JsonSchema | undefined, value: unknown, path: Path = [], depth = 0): Violation[] {
  const resolve = resolver(contract)
  if (!schema || depth > 6) return []
  let s = resolve(schema)
  if (Array.isArray(s.allOf)) s = (s.allOf as JsonSchema[]).map(resolve).reduce<JsonSchema>((a, b) => ({ ...a, ...b, properties: { ...((a.properties ?? {}) as object), ...((b.properties ?? {}) as object) }, required: [...((a.required ?? []) as string[]), ...((b.required ?? []) as string[])] }), { ...s, allOf: undefined })
  const at = path.length ? path.join('.') : 'the body'
  const out: Violation[] = []
  const type = typeOf(s)
  if (Array.isArray(s.enum)) out.push({ path, value: '__not_in_enum__', what: `${at}: a value outside its enum` })
  switch (type) {
    case 'object': {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) break
      out.push({ path, value: 'not-an-object', what: `${at}: a string where an object is required` })
      for (const key of (s.required ?? []) as string[]) if (key in (value as object)) out.push({ path: [...path, key], value: undefined, remove: true, what: `${[...path, key].join('.')}: a required field missing` })
      const props = (s.properties ?? {}) as Record<string, JsonSchema>
      for (const [key, v] of Object.entries(value as Record<string, unknown>)) if (props[key]) out.push(...violationsOf(contract, props[key], v, [...path, key], depth + 1))
      if (s.additionalProperties === false) out.push({ path: [...path, 'fuzz_unknown_field'], value: 1, what: `${at}: a field the schema does not allow` })
      break
    }
    case 'array': {
      out.push({ path, value: 'not-an-array', what: `${at}: a string where an array is required` })
      if (typeof s.minItems === 'number' && s.minItems > 0) out.push({ path, value: [], what: `${at}: fewer than minItems ${s.minItems}` })
      if (typeof s.maxItems === 'number' && Array.isArray(value) && value.length) out.push({ path, value: Array.from({ length: (s.maxItems as number) + 1 }, () => value[0]), what: `${at}: more than maxItems ${s.maxItems}` })
      if (Array.isArray(value) && value.length) out.push(...violationsOf(contract, s.items as JsonSchema, value[0], [...path, 0], depth + 1))
      break
    }
    case 'string': {
      out.push({ path, value: 12345, what: `${at}: a number where a string is required` })
      if (typeof s.pattern === 'string') out.push({ path, value: '!! no match !!', what: `${at}: text not matching ${s.pattern}` })
      if (typeof s.minLength === 'number' && s.minLength > 0) out.push({ path, value: '', what: `${at}: shorter than minLength ${s.minLength}` })
      if (typeof s.maxLength === 'number') out.push({ path, value: 'x'.repeat((s.maxLength as number) + 1), what: `${at}: longer than maxLength ${s.maxLength}` })
      if (s.format === 'date') out.push({ path, value: '2026-13-45', what: `${at}: not a date` })
      if (s.format === 'date-time') out.push({ path, value: 'yesterday', what: `${at}: not a date-time` })
      if (s.format === 'uri') out.push({ path, value: '', what: `${at}: not a URI` })
      if (s.format === 'email') out.push({ path, value: 'not-an-email', what: `${at}: not an email` })
      break
    }
    case 'integer':
    case 'number': {
      out.push({ path, value: 'twelve', what: `${at}: text where a number is required` })
      if (type === 'integer') out.push({ path, value: 1.5, what: `${at}: a fraction where an integer is required` })
      if (typeof s.minimum === 'number') out.push({ path, value: (s.minimum as number) - 1, what: `${at}: below minimum ${s.minimum}` })
      if (typeof s.maximum === 'number') out.push({ path, value: (s.maximum as number) + 1, what: `${at}: above maximum ${s.maximum}` })
      break
    }
    case 'boolean':
      out.push({ path, value: 'yes', what: `${at}: text where a boolean is required` })
      break
  }
  return out
}

/** The value with one violation applied (a deep copy). */
export function applyViolation(root: unknown, v: Violation): unknown {
  if (v.path.length === 0) return v.value
  const copy = structuredClone(root) as Record<string | number, unknown>
  let node = copy
  for (const step of v.path.slice(0, -1)) node = node[step] as Record<string | number, unknown>
  const last = v.path[v.path.length - 1]!
  if (v.remove) delete node[last]
  else node[last] = v.value
  return copy
}

// ---------------------------------------------------------------------------------------------
// The arbitraries

interface Parts {
  query: Record<string, unknown>
  path: Record<string, unknown>
  body: unknown
  /** Whether the optional body is sent. */
  sendBody: boolean
  pick: number
  /** How a JSON parameter travels (JSON text, or nested brackets where the contract allows them). */
  queryForm: 'json' | 'brackets' | 'indices'
}

/** The pieces of one request, each valid as far as the value generator goes (ajv decides). */
function partsArbitrary(contract: Contract, op: FuzzOperation, options: GenerateOptions): fc.Arbitrary<Parts> {
  const query = op.params.filter((p) => p.in === 'query')
  const path = op.params.filter((p) => p.in === 'path')
  return fc.record({
    query: schemaArbitrary(contract, paramsSchema(query), options) as fc.Arbitrary<Record<string, unknown>>,
    path: schemaArbitrary(contract, { ...paramsSchema(path), required: path.map((p) => p.name) }, options) as fc.Arbitrary<Record<string, unknown>>,
    body: op.body ? schemaArbitrary(contract, op.body.schema, options) : fc.constant(undefined),
    sendBody: op.body?.required ? fc.constant(true) : fc.boolean(),
    pick: fc.nat(),
    queryForm: fc.constantFrom('json' as const, 'brackets' as const, 'indices' as const),
  })
}

export interface OperationChecker {
  /** Whether the request's parameters and body are valid by the contract (undefined) or what is wrong. */
  problem(request: { query: string; pathValues: Record<string, unknown>; body?: string }): string | undefined
}

/** ajv over the operation's parameters and body, as the contract declares them (query read back from its text). */
export function checkerOf(contract: Contract, op: FuzzOperation): OperationChecker {
  const query = op.params.filter((p) => p.in === 'query')
  const path = op.params.filter((p) => p.in === 'path')
  const validQuery = contract.validators.compile(`fuzz:${op.operationId}:query`, paramsSchema(query))
  const validPath = contract.validators.compile(`fuzz:${op.operationId}:path`, { ...paramsSchema(path), required: path.map((p) => p.name) })
  const validBody = op.body ? contract.validators.compile(`fuzz:${op.operationId}:body:${op.body.mediaType}`, op.body.schema) : undefined
  return {
    problem({ query: text, pathValues, body }) {
      if (!validQuery(parseQuery(contract, query, text))) return `query: ${JSON.stringify(validQuery.errors?.[0])}`
      if (!validPath(pathValues)) return `path: ${JSON.stringify(validPath.errors?.[0])}`
      if (op.body) {
        if (body === undefined) return op.body.required ? 'the required body is missing' : undefined
        let value: unknown
        try {
          value = op.body.mediaType === 'application/x-www-form-urlencoded' ? parseForm(body) : JSON.parse(body)
        } catch {
          return 'the body is not JSON'
        }
        if (!validBody!(value)) return `body: ${JSON.stringify(validBody!.errors?.[0])}`
      }
      return undefined
    },
  }
}

function fillPath(template: string, values: Record<string, unknown>): string {
  return template.replace(/\{([^}]+)\}/g, (_, name: string) => encodeURIComponent(scalarText(values[name] ?? '')))
}

/** A request valid by the contract (the caller discards those ajv refuses: `fc.pre`). */
export function positiveArbitrary(contract: Contract, op: FuzzOperation, options: GenerateOptions): fc.Arbitrary<GeneratedRequest & { pathValues: Record<string, unknown> }> {
  const query = op.params.filter((p) => p.in === 'query')
  return partsArbitrary(contract, op, options).map((parts) => ({
    kind: 'positive' as const,
    path: fillPath(op.path, parts.path),
    pathValues: parts.path,
    query: queryString(query, parts.query, parts.queryForm),
    headers: (op.body && parts.sendBody ? { 'content-type': op.body.mediaType } : {}) as Record<string, string>,
    ...(op.body && parts.sendBody ? { body: bodyText(op.body.mediaType, parts.body) } : {}),
  }))
}

/** A request with exactly one violation the contract's schemas name (the caller discards those ajv still accepts). */
export function negativeArbitrary(contract: Contract, op: FuzzOperation, options: GenerateOptions): fc.Arbitrary<(GeneratedRequest & { pathValues: Record<string, unknown> }) | undefined> {
  const query = op.params.filter((p) => p.in === 'query')
  const path = op.params.filter((p) => p.in === 'path')
  return partsArbitrary(contract, op, options).map((parts) => {
    const candidates: Array<{ where: 'query' | 'path' | 'body'; v: Violation }> = [
      ...violationsOf(contract, paramsSchema(query), parts.query).filter((v) => v.path.length > 0).map((v) => ({ where: 'query' as const, v })),
      ...violationsOf(contract, { ...paramsSchema(path), required: path.map((p) => p.name) }, parts.path).filter((v) => v.path.length > 0 && !v.remove).map((v) => ({ where: 'path' as const, v })),
      ...(op.body ? violationsOf(contract, op.body.schema, parts.body).map((v) => ({ where: 'body' as const, v })) : []),
    ]
    if (op.body?.required) candidates.push({ where: 'body', v: { path: [], value: undefined, remove: true, what: 'the required body missing' } })
    if (!candidates.length) return undefined
    const { where, v } = candidates[parts.pick % candidates.length]!
    const q = where === 'query' ? (applyViolation(parts.query, v) as Record<string, unknown>) : parts.query
    const p = where === 'path' ? (applyViolation(parts.path, v) as Record<string, unknown>) : parts.path
    const noBody = where === 'body' && v.remove && v.path.length === 0
    const body = where === 'body' && !noBody ? applyViolation(parts.body, v) : parts.body
    const sendBody = !noBody && (where === 'body' || parts.sendBody)
    return {
      kind: 'negative' as const,
      violation: `${where} ${v.what}`,
      path: fillPath(op.path, p),
      pathValues: p,
      query: queryString(query, q, parts.queryForm),
      headers: (op.body && sendBody ? { 'content-type': op.body.mediaType } : {}) as Record<string, string>,
      ...(op.body && sendBody ? { body: bodyText(op.body.mediaType, body) } : {}),
    }
  })
}
