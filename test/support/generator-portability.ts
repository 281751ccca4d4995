/**
 * Spellings of the contract that are valid OpenAPI 3.1 but that a mainstream client generator turns
 * into code that does not compile or does not load, where an equally correct spelling exists. Each
 * check walks a document and lists where it finds the spelling; test/contract-generators.test.ts
 * expects every list empty. Kept apart from the test so that a one-off run can point them at another
 * document (an older openapi.json, a partner's copy).
 */
type Node = Record<string, unknown>

const isNode = (value: unknown): value is Node => value !== null && typeof value === 'object' && !Array.isArray(value)

/** Every object in the document with its JSON pointer, depth first. */
function* nodes(value: unknown, at = '#'): Generator<[string, Node]> {
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) yield* nodes(item, `${at}/${i}`)
    return
  }
  if (!isNode(value)) return
  yield [at, value]
  for (const [key, child] of Object.entries(value)) yield* nodes(child, `${at}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`)
}

/** A key as generators fold it into a type name: `sort_direction`, `sortDirection` and `SortDirection` are one name. */
const foldedName = (key: string): string => key.replace(/[^A-Za-z0-9]/g, '').toLowerCase()

/**
 * A schema that a generator declares as a type of its own, named from the key that holds it: an
 * inline enum, an inline object, or an array of either (orval: `ListSocialAdsBodySortDirection`,
 * `ListSocialAdsBodyColumnsItem`). A `$ref` is named after its component, so it never collides.
 */
function namedInline(schema: unknown): boolean {
  if (!isNode(schema) || '$ref' in schema) return false
  if (Array.isArray(schema.enum) || 'const' in schema || isNode(schema.properties) || schema.type === 'object') return true
  return schema.type === 'array' && namedInline(schema.items)
}

/**
 * Keys of one object (its `properties`, or one operation's query parameters) that differ only by case
 * and underscores, one of them holding a type of its own: orval names both `<Operation>Body<Key>` and
 * declares the name twice (TS2451 under tsc). Seen: the social bodies' `sort_direction` and its camelCase
 * twin `sortDirection`, each an inline ASC/DESC enum.
 */
export function keysFoldingToOneTypeName(doc: unknown): string[] {
  const found: string[] = []
  const report = (at: string, keyed: Array<[string, unknown]>) => {
    const byName = new Map<string, Array<[string, unknown]>>()
    for (const entry of keyed) byName.set(foldedName(entry[0]), [...(byName.get(foldedName(entry[0])) ?? []), entry])
    for (const group of byName.values()) {
      if (group.length > 1 && group.some(([, schema]) => namedInline(schema))) found.push(`${at}: ${group.map(([key]) => key).join(' / ')}`)
    }
  }
  for (const [at, node] of nodes(doc)) {
    if (isNode(node.properties) && !at.endsWith('/properties')) report(at, Object.entries(node.properties))
    if (Array.isArray(node.parameters)) {
      const query = node.parameters.filter((p): p is Node => isNode(p) && p.in === 'query' && typeof p.name === 'string')
      if (query.length) report(`${at}/parameters`, query.map((p) => [p.name as string, p.schema]))
    }
  }
  return found
}

/**
 * Enums that list `null`: openapi-zod-client emits `z.enum([..., null])`, which does not compile. A
 * nullable enum is spelled `anyOf: [{enum}, {type: 'null'}]`, as every nullable $ref'd enum is.
 */
export function enumsListingNull(doc: unknown): string[] {
  const found: string[] = []
  for (const [at, node] of nodes(doc)) if (Array.isArray(node.enum) && node.enum.includes(null)) found.push(at)
  return found
}

/**
 * Members of a discriminated `oneOf` with `anyOf`, `oneOf` or `allOf` beside their properties:
 * openapi-zod-client reads such a member as that composition alone (`z.unknown()` or a union, not an
 * object), and zod's `discriminatedUnion` over it throws when the generated module loads. A rule on the
 * member's fields is spelled with `if`/`then` and `not`, which it leaves to validators.
 */
export function discriminatedMembersWithComposition(doc: unknown): string[] {
  const schemas = (isNode(doc) && isNode(doc.components) && isNode(doc.components.schemas) ? doc.components.schemas : {}) as Record<string, unknown>
  const resolve = (schema: unknown): [string, unknown] => {
    const name = isNode(schema) && typeof schema.$ref === 'string' ? schema.$ref.split('/').pop()! : undefined
    return name ? [`#/components/schemas/${name}`, schemas[name]] : ['(inline)', schema]
  }
  const found: string[] = []
  for (const [at, node] of nodes(doc)) {
    if (!isNode(node.discriminator) || !Array.isArray(node.oneOf)) continue
    for (const member of node.oneOf) {
      const [where, schema] = resolve(member)
      const composed = ['anyOf', 'oneOf', 'allOf'].filter((keyword) => isNode(schema) && keyword in schema)
      if (composed.length) found.push(`${at} member ${where}: ${composed.join(', ')}`)
    }
  }
  return found
}

/**
 * `const` or `enum` values that are arrays or objects (a list spelled whole: `const: ['a', 'b']`). Valid
 * JSON Schema, but kubb 4.39 types it as the string `"a,b"` and its zod as `z.literal("a,b")` (a client
 * sends a string the server refuses, and a right answer fails its parse), kubb 5's zod plugin writes
 * `z.literal(a,b)` (does not compile) and hey-api 0.99 types it `unknown`. Seen: the connector's
 * `grant_types`, three whole lists, now `items` + `uniqueItems` + `contains` + `maxItems` (the same
 * lists). A tuple (`prefixItems` with `items: false`) is read right by the generators but Spectral's
 * array-items rule refuses `items: false`, and any other `items` hey-api adds to the tuple.
 * Examples are data, not schemas, and are not looked at.
 */
export function nonScalarConstants(doc: unknown): string[] {
  const found: string[] = []
  const nonScalar = (value: unknown) => value !== null && typeof value === 'object'
  for (const [at, node] of nodes(doc)) {
    if (/\/examples?(\/|$)/.test(at)) continue
    if ('const' in node && nonScalar(node.const)) found.push(`${at}: const`)
    if (Array.isArray(node.enum) && node.enum.some(nonScalar)) found.push(`${at}: enum`)
  }
  return found
}

/** JSON Schema 2020-12 keywords that draft-07 does not have (or reads otherwise). */
const DRAFT_2020_ONLY = ['prefixItems', 'dependentRequired', 'dependentSchemas', 'unevaluatedProperties', 'unevaluatedItems', 'minContains', 'maxContains', '$defs', '$anchor', '$dynamicRef', '$dynamicAnchor']

/**
 * Schemas using a 2020-12 keyword that openapi-backend 5.21 does not know: it compiles every schema with
 * Ajv's draft-07 class, which ignores `dependentRequired` and `unevaluatedProperties` (a request the
 * contract refuses passes) and reads `prefixItems` + `items: false` as "no items" (the right tuple is
 * refused). A key under `properties` is a property's name, and an example is data: neither is looked at.
 */
export function draft07UnknownKeywords(doc: unknown): string[] {
  const found: string[] = []
  for (const [at, node] of nodes(doc)) {
    if (at.endsWith('/properties') || /\/examples?(\/|$)/.test(at)) continue
    for (const keyword of DRAFT_2020_ONLY) if (keyword in node) found.push(`${at}: ${keyword}`)
  }
  return found
}
