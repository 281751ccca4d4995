/**
 * Parses the query of a GET form into the shape of the POST body it mirrors: deepObject
 * `date_range[from]=...` into objects, repeated keys and comma lists into arrays, numbers,
 * booleans and null coerced per the parameter's schema (spec: Conventions 4).
 */
import type { JsonSchema, OpenApiDocument, ParameterInfo } from '../../openapi/index.ts'

type Resolve = (schema: JsonSchema) => JsonSchema

export function schemaResolver(doc: OpenApiDocument): Resolve {
  return function resolve(schema) {
    let s = schema
    for (let i = 0; i < 10 && typeof s?.$ref === 'string'; i++) s = doc.components.schemas[(s.$ref as string).split('/').pop()!] ?? {}
    return s ?? {}
  }
}

const typesOf = (schema: JsonSchema): string[] => (Array.isArray(schema.type) ? (schema.type as string[]) : typeof schema.type === 'string' ? [schema.type as string] : [])

function coerceScalar(value: string, schema: JsonSchema, resolve: Resolve): unknown {
  const s = resolve(schema)
  const branches = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined
  if (branches) {
    for (const b of branches) {
      const r = resolve(b)
      if (typesOf(r).includes('array')) continue
      const v = coerceScalar(value, r, resolve)
      if (v !== value || typesOf(r).includes('string')) return v
    }
    return value
  }
  const types = typesOf(s)
  // A nullable field's literal `null` in a query means null (a real 'null' string is not plausible in this API).
  if (types.includes('null') && value === 'null') return null
  if ((types.includes('integer') || types.includes('number')) && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value)
  if (types.includes('boolean') && (value === 'true' || value === 'false')) return value === 'true'
  return value
}

/** Values of one query key coerced per schema: arrays from repeats or commas, else a scalar. */
export function coerceQueryValues(values: string[], schema: JsonSchema, resolve: Resolve): unknown {
  const s = resolve(schema)
  const branches = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined
  const arrayBranch = typesOf(s).includes('array') ? s : branches?.map(resolve).find((b) => typesOf(b).includes('array'))
  const onlyArray = typesOf(s).includes('array') && !typesOf(s).some((t) => t !== 'array' && t !== 'null')
  // A comma string the contract describes as such (a string branch with its pattern: `storefront, marketplace`)
  // stays the string it was sent as: split, its items would keep the spaces the pattern allows.
  const commaString = values.length === 1 && branches?.map(resolve).some((b) => typesOf(b).includes('string') && typeof b.pattern === 'string' && new RegExp(b.pattern as string).test(values[0]!))
  if (arrayBranch && !commaString && (onlyArray || values.length > 1 || values.some((v) => v.includes(',')))) {
    const items = (arrayBranch.items as JsonSchema | undefined) ?? {}
    return values.flatMap((v) => (v === '' ? [] : v.split(','))).map((v) => coerceScalar(v, items, resolve))
  }
  return coerceScalar(values[values.length - 1], s, resolve)
}

/** A `content: application/json` parameter's text, parsed; text that is not JSON stays text, for validation to refuse. */
function jsonValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/**
 * The first JSON parameter (`content: application/json`) whose text is not JSON, and why: a request
 * the contract refuses for its syntax, said as a malformed JSON body is (not as a wrong type).
 */
export function malformedJsonParameter(search: URLSearchParams, params: ParameterInfo[]): { name: string; message: string } | undefined {
  for (const p of params) {
    if (!p.json) continue
    const values = search.getAll(p.name)
    if (values.length === 0) continue
    try {
      JSON.parse(values[values.length - 1]!)
    } catch (error) {
      return { name: p.name, message: (error as Error).message }
    }
  }
  return undefined
}

/** `obj[key] = value` as an own property, whatever the key (`__proto__` included). */
function setOwn(obj: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true })
}

/** The branch of `schema` (itself, or one of its anyOf/oneOf) that has the type. */
function branchOfType(schema: JsonSchema, type: 'object' | 'array', resolve: Resolve): JsonSchema | undefined {
  const s = resolve(schema)
  if (typesOf(s).includes(type) || (type === 'object' && s.properties)) return s
  return ((s.anyOf ?? s.oneOf) as JsonSchema[] | undefined)?.map(resolve).find((b) => typesOf(b).includes(type) || (type === 'object' && b.properties))
}

/** One query value under a bracketed key: the segments after the parameter's name (`a[b][]` → ['b', '']). */
interface Bracketed {
  path: string[]
  value: string
}

/**
 * Bracketed keys into the value they describe, typed by the schema at each place: `p[a][from]=x` an
 * object in an object, `p[a][]=x`, `p[a][0]=x` or a repeated `p[a]=x` an array, a leaf coerced as a
 * query value. This is deepObject carried on to nested objects and arrays, the form the common query
 * string libraries (qs, Rails, PHP) write; OpenAPI defines deepObject for one level only.
 */
function fromBrackets(entries: readonly Bracketed[], schema: JsonSchema, resolve: Resolve): unknown {
  const direct = entries.filter((e) => e.path.length === 0).map((e) => e.value)
  const children = new Map<string, Bracketed[]>()
  for (const e of entries) if (e.path.length > 0) children.set(e.path[0]!, [...(children.get(e.path[0]!) ?? []), { path: e.path.slice(1), value: e.value }])
  if (children.size === 0) return coerceQueryValues(direct, schema, resolve)
  const arraySchema = branchOfType(schema, 'array', resolve)
  const objectSchema = branchOfType(schema, 'object', resolve)
  const indexed = [...children.keys()].every((k) => k === '' || /^\d+$/.test(k))
  if (indexed && (arraySchema || !objectSchema)) {
    const items = ((arraySchema?.items as JsonSchema | undefined) ?? {})
    const out: unknown[] = direct.map((v) => coerceQueryValues([v], items, resolve))
    for (const [key, group] of [...children].sort(([a], [b]) => (a === '' ? Infinity : Number(a)) - (b === '' ? Infinity : Number(b)))) {
      if (key === '') out.push(...group.map((e) => fromBrackets([e], items, resolve)))
      else out.push(fromBrackets(group, items, resolve))
    }
    return out
  }
  const props = ((objectSchema?.properties ?? {}) as Record<string, JsonSchema>)
  const obj: Record<string, unknown> = {}
  for (const [key, group] of children) {
    const sub = Object.hasOwn(props, key) ? props[key]! : undefined
    setOwn(obj, key, sub ? fromBrackets(group, sub, resolve) : group.every((e) => e.path.length === 0) ? group[group.length - 1]!.value : fromBrackets(group, {}, resolve))
  }
  return obj
}

/** The query as an input object, using the operation's declared parameters for shapes and types. */
export function parseQuery(search: URLSearchParams, params: ParameterInfo[], resolve: Resolve): Record<string, unknown> {
  const grouped = new Map<string, string[]>()
  const nested = new Map<string, Bracketed[]>()
  for (const [rawKey, value] of search) {
    const deep = /^([^[\]]+)((?:\[[^[\]]*\])+)$/.exec(rawKey)
    if (deep) nested.set(deep[1]!, [...(nested.get(deep[1]!) ?? []), { path: [...deep[2]!.matchAll(/\[([^[\]]*)\]/g)].map((m) => m[1]!), value }])
    else grouped.set(rawKey, [...(grouped.get(rawKey) ?? []), value])
  }
  const declared = new Map(params.map((p) => [p.name, p]))
  const out: Record<string, unknown> = {}
  for (const [name, values] of grouped) {
    const p = declared.get(name)
    if (p?.json) setOwn(out, name, jsonValue(values[values.length - 1]!))
    else setOwn(out, name, p ? coerceQueryValues(values, p.schema, resolve) : values.length === 1 ? values[0] : values)
  }
  for (const [name, entries] of nested) {
    const p = declared.get(name)
    // An undeclared name's one-level keys stay text, as before; a declared one is read by its schema.
    setOwn(out, name, fromBrackets(entries, p?.schema ?? { type: 'object' }, resolve))
  }
  return out
}
