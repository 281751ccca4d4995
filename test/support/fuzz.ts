/**
 * Property-based request fuzzing for the robustness tests: request values generated from the
 * contract's request schemas (fast-check), then mutated the ways clients get requests wrong.
 */
import fc from 'fast-check'
import type { Contract, JsonSchema } from '../../openapi/index.ts'

/** Known ids by field name (`product_id` → the world's product ids), so requests reach real rows. */
export type IdHints = Record<string, readonly string[]>

export interface SchemaArbitraryOptions {
  /** The world's today (YYYY-MM-DD): generated dates fall around it. */
  today: string
  hints?: IdHints
  /** Texts mixed into free strings: names every plain object answers to (`toString`), which trip code that looks records up by a key a request names. */
  awkward?: readonly string[]
}

const MAX_DEPTH = 6
const DAY_MS = 86_400_000

const typesOf = (s: JsonSchema): string[] => (Array.isArray(s.type) ? (s.type as string[]) : typeof s.type === 'string' ? [s.type as string] : [])

/** The hints for a property name: a list shares its item's pool (`video_ids` → `video_id`, `tags` → `tag`). */
function hintFor(hints: IdHints | undefined, name: string): readonly string[] | undefined {
  if (!hints) return undefined
  const pool = hints[name] ?? hints[name.replace(/_ids$/, '_id').replace(/s$/, '')]
  return pool && pool.length ? pool : undefined
}

/** A value that mostly satisfies `schema` (`if`/`then` and cross-field rules are not modelled). */
export function schemaArbitrary(contract: Contract, schema: JsonSchema | undefined, options: SchemaArbitraryOptions, name = '', depth = 0): fc.Arbitrary<unknown> {
  if (!schema || depth > MAX_DEPTH) return fc.constant(null)
  const resolve = (s: JsonSchema): JsonSchema => {
    let out = s
    for (let i = 0; i < 10 && typeof out?.$ref === 'string'; i++) out = contract.doc.components.schemas[(out.$ref as string).split('/').pop()!] ?? {}
    return out ?? {}
  }
  const s = resolve(schema)
  const recurse = (sub: JsonSchema | undefined, subName = name) => schemaArbitrary(contract, sub, options, subName, depth + 1)

  if ('const' in s) return fc.constant(s.const)
  if (Array.isArray(s.enum)) return fc.constantFrom(...(s.enum as unknown[]))
  if (Array.isArray(s.allOf)) {
    const merged = (s.allOf as JsonSchema[]).map(resolve).reduce<JsonSchema>((acc, part) => mergeObjectSchemas(acc, part), { ...s, allOf: undefined })
    return recurse(merged)
  }
  const branches = (s.anyOf ?? s.oneOf) as JsonSchema[] | undefined
  if (branches) {
    const { anyOf: _a, oneOf: _o, ...rest } = s
    // An object with `anyOf: [{required: [a]}, {required: [b]}]`: one branch's requirements on top of the object.
    if (rest.properties || rest.type === 'object') return fc.oneof(...branches.map((b) => recurse(mergeObjectSchemas(rest, resolve(b)))))
    return fc.oneof(...branches.map((b) => recurse(b)))
  }
  const types = typesOf(s)
  if (types.length > 1) {
    return fc.oneof(...types.map((t) => ({ arbitrary: recurse({ ...s, type: t }), weight: t === 'null' ? 1 : 4 })))
  }
  const type = types[0] ?? (s.properties ? 'object' : s.items ? 'array' : undefined)
  switch (type) {
    case 'null':
      return fc.constant(null)
    case 'boolean':
      return fc.boolean()
    case 'integer': {
      const min = typeof s.minimum === 'number' ? s.minimum : -10
      const max = typeof s.maximum === 'number' ? s.maximum : Math.max(min, 0) + 200
      return fc.integer({ min: Math.ceil(min), max: Math.floor(max) })
    }
    case 'number': {
      const min = typeof s.minimum === 'number' ? s.minimum : -10
      const max = typeof s.maximum === 'number' ? s.maximum : Math.max(min, 0) + 1000
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true })
    }
    case 'string':
      return stringArbitrary(s, name, options)
    case 'array': {
      const items = recurse((s.items as JsonSchema | undefined) ?? {})
      const minLength = typeof s.minItems === 'number' ? s.minItems : 0
      const maxLength = Math.max(minLength, Math.min(typeof s.maxItems === 'number' ? s.maxItems : 4, 4))
      return fc.array(items, { minLength, maxLength })
    }
    case 'object': {
      const props = (s.properties ?? {}) as Record<string, JsonSchema>
      const required = ((s.required ?? []) as string[]).filter((k) => k in props)
      const model: Record<string, fc.Arbitrary<unknown>> = {}
      for (const [key, sub] of Object.entries(props)) model[key] = recurse(sub, key)
      for (const key of (s.required ?? []) as string[]) if (!(key in model)) model[key] = fc.jsonValue({ maxDepth: 1 })
      const record = fc.record(model, { requiredKeys: [...new Set([...required, ...((s.required ?? []) as string[])])] })
      // A range `{from, to}` mostly in order, so more requests get past validation to the handler.
      const isRange = resolve(props.from ?? {}).format === 'date' && resolve(props.to ?? {}).format === 'date'
      return isRange ? record.map((r) => (typeof r.from === 'string' && typeof r.to === 'string' && r.from > r.to ? { ...r, from: r.to, to: r.from } : r)) : record
    }
    default:
      return fc.jsonValue({ maxDepth: 2 })
  }
}

function mergeObjectSchemas(a: JsonSchema, b: JsonSchema): JsonSchema {
  return {
    ...a,
    ...b,
    type: a.type ?? b.type ?? 'object',
    properties: { ...((a.properties ?? {}) as object), ...((b.properties ?? {}) as object) },
    required: [...new Set([...((a.required ?? []) as string[]), ...((b.required ?? []) as string[])])],
  }
}

function stringArbitrary(s: JsonSchema, name: string, { today, hints, awkward }: SchemaArbitraryOptions): fc.Arbitrary<string> {
  const todayMs = Date.parse(`${today}T00:00:00Z`)
  if (s.format === 'date') return fc.integer({ min: -420, max: 10 }).map((d) => new Date(todayMs + d * DAY_MS).toISOString().slice(0, 10))
  if (s.format === 'date-time') return fc.integer({ min: -420 * 24, max: 48 }).map((h) => new Date(todayMs + h * 3_600_000).toISOString())
  if (s.format === 'email') return fc.emailAddress()
  if (typeof s.pattern === 'string') {
    // A hinted id that fits the pattern (a shop_id of the world) as often as made-up text.
    const re = new RegExp(s.pattern as string)
    const fitting = hintFor(hints, name)?.filter((v) => re.test(v))
    return fitting?.length ? fc.oneof({ arbitrary: fc.constantFrom(...fitting), weight: 3 }, { arbitrary: fc.stringMatching(re), weight: 1 }) : fc.stringMatching(re)
  }
  const minLength = typeof s.minLength === 'number' ? s.minLength : 0
  const maxLength = Math.max(minLength, Math.min(typeof s.maxLength === 'number' ? s.maxLength : 24, 24))
  const fitting = (awkward ?? []).filter((t) => t.length >= minLength && t.length <= maxLength)
  const free = fitting.length ? fc.oneof({ arbitrary: fc.string({ minLength, maxLength }), weight: 5 }, { arbitrary: fc.constantFrom(...fitting), weight: 1 }) : fc.string({ minLength, maxLength })
  const pool = hintFor(hints, name)
  return pool ? fc.oneof({ arbitrary: fc.constantFrom(...pool), weight: 3 }, { arbitrary: free, weight: 1 }) : free
}

// ---------------------------------------------------------------------------------------------
// Mutations of a generated value

export type MutationKind =
  | 'wrong-type'
  | 'delete-key'
  | 'extra-field'
  | 'huge-string'
  | 'huge-number'
  | 'negative-page'
  | 'empty-array'
  | 'unicode'
  | 'invalid-date'
  | 'null-node'
  | 'null-everywhere'
  | 'deep-nesting'

export interface Mutation {
  kind: MutationKind
  /** Which node of the value (modulo the number of nodes). */
  at: number
  /** A choice within the kind (modulo its pool). */
  pick: number
  /** Free text some kinds use (unicode, extra field names). */
  text: string
}

const WRONG_TYPES: readonly unknown[] = ['42', 42, -1, 0, 1.5, true, false, [], {}, [1, 'a', null], { a: 1 }, '', 'null', 'true', 'undefined']
const HUGE_STRINGS: readonly (() => string)[] = [
  () => 'x'.repeat(100_000),
  () => '\u{1D518}'.repeat(40_000),
  () => '\u0000'.repeat(5_000),
  () => '9'.repeat(50_000),
  () => '2026-01-01'.repeat(10_000),
]
const HUGE_NUMBERS: readonly number[] = [1e308, -1e308, 2 ** 53 + 2, -(2 ** 53), 2 ** 31, -(2 ** 31) - 1, 1e21, 5e-324, 0.5, -0, 1e16, 99999999999]
const PAGE_KEYS = ['page', 'page_number', 'page_size', 'page_offset', 'csv_limit', 'pageNumber', 'pageSize', 'limit', 'offset']
const PAGE_VALUES: readonly number[] = [-1, 0, -100, -(2 ** 31), 1.5, -0.5]
const NASTY_STRINGS: readonly string[] = ['\u202e', '\u{1D54F}', '\ud800', 'e\u0301', '\u0000', '\uFEFF', '<script>alert(1)</script>', '../../etc/passwd', "' OR 1=1 --", '%00', 'NaN', 'Infinity', '-0', '1e400', '   ', '\n', '😀👍🏽🇫🇷', 'Ω≈ç√∫', 'ＡＢＣ', 'İ']
const INVALID_DATES: readonly string[] = ['2026-02-30', '2026-13-01', '20260101', '2026-1-1', '0000-00-00', '9999-99-99', '', 'not-a-date', '2026-01-01T00:00:00Z', '1970-01-01', '2999-12-31', '0001-01-01', '-002026-01-01', '2026-02-29', 'yesterday', '2026/01/01']
const EXTRA_NAMES: readonly string[] = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'dateRange', 'pageSize', 'unknown_field', 'shop_id', '']

const mutationKinds: readonly MutationKind[] = ['wrong-type', 'delete-key', 'extra-field', 'huge-string', 'huge-number', 'negative-page', 'empty-array', 'unicode', 'invalid-date', 'null-node', 'null-everywhere', 'deep-nesting']

/** One mutation; `fc.array(mutationArbitrary, { maxLength: 3 })` stacks them (none = the valid value). */
export const mutationArbitrary: fc.Arbitrary<Mutation> = fc.record({
  kind: fc.constantFrom(...mutationKinds),
  at: fc.nat(),
  pick: fc.nat(),
  text: fc.string({ unit: 'binary', maxLength: 30 }),
})

type Path = Array<string | number>

/** Every node of the value with its path, in document order (walked once: looking each path up again was quadratic on a deep nesting). */
function nodesOf(value: unknown, path: Path = [], out: Array<{ path: Path; node: unknown }> = []): Array<{ path: Path; node: unknown }> {
  out.push({ path, node: value })
  if (Array.isArray(value)) value.forEach((v, i) => nodesOf(v, [...path, i], out))
  else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) nodesOf(v, [...path, k], out)
  return out
}

/** The paths of the nodes that pass `test`, in document order. */
const pathsWhere = (nodes: ReadonlyArray<{ path: Path; node: unknown }>, test: (node: unknown) => boolean): Path[] => nodes.filter(({ node }) => test(node)).map(({ path }) => path)

function getAt(root: unknown, path: Path): unknown {
  let node = root
  for (const step of path) node = (node as Record<string | number, unknown>)[step]
  return node
}

/** Sets a node; the root is replaced through the returned value. */
function setAt(root: unknown, path: Path, value: unknown): unknown {
  if (path.length === 0) return value
  const parent = getAt(root, path.slice(0, -1)) as Record<string | number, unknown>
  Object.defineProperty(parent, path[path.length - 1], { value, enumerable: true, writable: true, configurable: true })
  return root
}

const nullEverywhere = (value: unknown): unknown =>
  Array.isArray(value) ? value.map(nullEverywhere) : value && typeof value === 'object' ? Object.fromEntries(Object.entries(value).map(([k, v]) => [k, nullEverywhere(v)])) : null

function deepNest(depth: number): unknown {
  let node: unknown = 1
  for (let i = 0; i < depth; i++) node = i % 2 ? [node] : { d: node }
  return node
}

/** The value after the mutation (the input is deep-copied first, never changed). */
export function applyMutations(value: unknown, mutations: readonly Mutation[]): unknown {
  let root: unknown = structuredClone(value)
  for (const m of mutations) root = applyMutation(root, m)
  return root
}

function applyMutation(root: unknown, { kind, at, pick, text }: Mutation): unknown {
  const nodes = nodesOf(root)
  const { path, node } = nodes[at % nodes.length]!
  const objectPaths = pathsWhere(nodes, (n) => n !== null && typeof n === 'object' && !Array.isArray(n))
  switch (kind) {
    case 'wrong-type':
      return setAt(root, path, structuredClone(WRONG_TYPES[pick % WRONG_TYPES.length]))
    case 'delete-key': {
      if (!objectPaths.length) return root
      const target = getAt(root, objectPaths[at % objectPaths.length]) as Record<string, unknown>
      const keys = Object.keys(target)
      if (keys.length) delete target[keys[pick % keys.length]]
      return root
    }
    case 'extra-field': {
      if (!objectPaths.length) return root
      const target = objectPaths[at % objectPaths.length]
      const name = pick % 3 === 0 ? text : EXTRA_NAMES[pick % EXTRA_NAMES.length]
      const extra = pick % 2 ? { page_size: -1, nested: { a: [1, null] } } : text
      return setAt(root, [...target, name], extra)
    }
    case 'huge-string':
      return setAt(root, path, HUGE_STRINGS[pick % HUGE_STRINGS.length]())
    case 'huge-number':
      return setAt(root, path, HUGE_NUMBERS[pick % HUGE_NUMBERS.length])
    case 'negative-page': {
      const target = objectPaths.length ? objectPaths[at % objectPaths.length] : []
      if (!objectPaths.length) return root
      return setAt(root, [...target, PAGE_KEYS[pick % PAGE_KEYS.length]], PAGE_VALUES[(pick >> 4) % PAGE_VALUES.length])
    }
    case 'empty-array': {
      const arrays = pathsWhere(nodes, Array.isArray)
      return setAt(root, arrays.length ? arrays[at % arrays.length] : path, [])
    }
    case 'unicode':
      return setAt(root, path, pick % 2 ? text : NASTY_STRINGS[pick % NASTY_STRINGS.length])
    case 'invalid-date': {
      const dates = pathsWhere(nodes, (n) => typeof n === 'string' && /^\d{4}-\d{2}-\d{2}/.test(n))
      return setAt(root, dates.length ? dates[at % dates.length] : path, INVALID_DATES[pick % INVALID_DATES.length])
    }
    case 'null-node':
      return setAt(root, path, null)
    case 'null-everywhere':
      return path.length === 0 || pick % 2 ? nullEverywhere(root) : setAt(root, path, nullEverywhere(node))
    case 'deep-nesting': {
      // Under an object near the top: stacked on an earlier nesting, the value would go past the
      // depth this test's own recursive helpers (and any JSON parser) can follow.
      const shallow = objectPaths.filter((p) => p.length < 8)
      const target = shallow.length ? shallow[at % shallow.length] : undefined
      return target ? setAt(root, [...target, 'deep'], deepNest(2_000)) : root
    }
  }
}

// ---------------------------------------------------------------------------------------------
// Body text and query string

export type BodyTextMutation = 'none' | 'truncate' | 'garbage-suffix' | 'top-level' | 'number-overflow' | 'duplicate-key' | 'bom' | 'whitespace'
const TOP_LEVEL_BODIES = ['null', '[]', '"x"', '123', 'true', '[{}]', '{}{}', '{"a":}', '{', '}', 'undefined', "{'a': 1}", '{"a":1,}', 'NaN']

/** The serialized body, possibly broken as text (malformed JSON, a top-level non-object, 1e400...). */
export function bodyText(value: unknown, mutation: BodyTextMutation, pick: number): string {
  const text = JSON.stringify(value) ?? ''
  switch (mutation) {
    case 'none':
      return text
    case 'truncate':
      return text.slice(0, pick % Math.max(1, text.length))
    case 'garbage-suffix':
      return text + ['}}', ',', 'garbage', '\u0000', ']'][pick % 5]
    case 'top-level':
      return TOP_LEVEL_BODIES[pick % TOP_LEVEL_BODIES.length]
    case 'number-overflow':
      return text.startsWith('{') && text.length > 2 ? `{"page_size":1e400,"page_number":-1e400,${text.slice(1)}` : '{"page_size":1e400}'
    case 'duplicate-key':
      return text.startsWith('{') && text.length > 2 ? `{"page_size":-5,"date_range":null,${text.slice(1)}` : text
    case 'bom':
      return `\uFEFF${text}`
    case 'whitespace':
      return ' \n\t '
  }
}

export const bodyTextMutationArbitrary: fc.Arbitrary<BodyTextMutation> = fc.oneof(
  { arbitrary: fc.constant<BodyTextMutation>('none'), weight: 12 },
  { arbitrary: fc.constantFrom<BodyTextMutation>('truncate', 'garbage-suffix', 'top-level', 'number-overflow', 'duplicate-key', 'bom', 'whitespace'), weight: 3 },
)

export type QueryTextMutation = 'none' | 'malformed-percent' | 'bracket-abuse' | 'duplicates' | 'empty-names' | 'huge-value'

export const queryTextMutationArbitrary: fc.Arbitrary<QueryTextMutation> = fc.oneof(
  { arbitrary: fc.constant<QueryTextMutation>('none'), weight: 10 },
  { arbitrary: fc.constantFrom<QueryTextMutation>('malformed-percent', 'bracket-abuse', 'duplicates', 'empty-names', 'huge-value'), weight: 3 },
)

const scalarText = (v: unknown): string => (typeof v === 'string' ? v : v !== null && typeof v === 'object' ? JSON.stringify(v) : String(v))

/** A query string for an input object: objects as deepObject `name[key]`, arrays as repeated keys. */
export function queryText(input: unknown, mutation: QueryTextMutation, pick: number): string {
  const search = new URLSearchParams()
  if (input && typeof input === 'object' && !Array.isArray(input)) {
    for (const [name, value] of Object.entries(input)) {
      if (Array.isArray(value)) for (const v of value) search.append(name, scalarText(v))
      else if (value && typeof value === 'object') for (const [k, v] of Object.entries(value)) search.append(`${name}[${k}]`, Array.isArray(v) ? v.map(scalarText).join(',') : scalarText(v))
      else search.append(name, scalarText(value))
    }
  } else if (input !== undefined) search.append('value', scalarText(input))
  let text = search.toString()
  switch (mutation) {
    case 'none':
      break
    case 'malformed-percent':
      text += ['&%E0%A4%A=1', '&page_size=%', '&date_range%5Bfrom=%FF', '&%00=%00'][pick % 4]
      break
    case 'bracket-abuse':
      text += ['&date_range[from][x]=1&date_range=2026-01-01', '&search_params[]=1', '&a[b][c][d]=1', '&date_range[=1', '&video_ids[0]=a&video_ids[1]=b'][pick % 5]
      break
    case 'duplicates':
      text = text ? `${text}&${text}&${text}` : 'page_size=1&page_size=2'
      break
    case 'empty-names':
      text += '&=1&&&=&page_size='
      break
    case 'huge-value':
      text += `&page_size=${'9'.repeat(400)}&handle=${'x'.repeat(20_000)}`
      break
  }
  return text
}
