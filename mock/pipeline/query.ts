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

/** The query as an input object, using the operation's declared parameters for shapes and types. */
export function parseQuery(search: URLSearchParams, params: ParameterInfo[], resolve: Resolve): Record<string, unknown> {
  const grouped = new Map<string, string[]>()
  const nested = new Map<string, Map<string, string[]>>()
  for (const [rawKey, value] of search) {
    const deep = /^([^[\]]+)\[([^[\]]*)\]$/.exec(rawKey)
    if (deep) {
      const inner = nested.get(deep[1]) ?? new Map<string, string[]>()
      nested.set(deep[1], inner)
      inner.set(deep[2], [...(inner.get(deep[2]) ?? []), value])
    } else {
      grouped.set(rawKey, [...(grouped.get(rawKey) ?? []), value])
    }
  }
  const declared = new Map(params.map((p) => [p.name, p]))
  const out: Record<string, unknown> = {}
  for (const [name, values] of grouped) {
    const p = declared.get(name)
    if (p?.json) out[name] = jsonValue(values[values.length - 1])
    else out[name] = p ? coerceQueryValues(values, p.schema, resolve) : values.length === 1 ? values[0] : values
  }
  for (const [name, inner] of nested) {
    const schema = resolve(declared.get(name)?.schema ?? {})
    const props = (schema.properties ?? {}) as Record<string, JsonSchema>
    const obj: Record<string, unknown> = {}
    for (const [sub, values] of inner) obj[sub] = props[sub] ? coerceQueryValues(values, props[sub], resolve) : values[values.length - 1]
    out[name] = obj
  }
  return out
}
