/**
 * The contract as the validators partners run on traffic read it. openapi-backend 5.21 compiles the
 * contract's schemas with Ajv's default class, draft-07, whatever the document's jsonSchemaDialect:
 * a JSON Schema 2020-12 keyword it does not know is ignored (`dependentRequired`,
 * `unevaluatedProperties`: a request the contract refuses passes) or read otherwise (`prefixItems` with
 * `items: false`: every non-empty array refused, the right one too). So the shipped contract keeps to
 * the keywords draft-07 and 2020-12 read alike; each one it would need has an equally correct spelling
 * (a tuple: items, min/maxItems, uniqueItems, contains; `$defs`: components/schemas).
 * Found by validating every operation's example request and its answer, and the twin's error answers
 * (812 exchanges), with openapi-backend 5.21 and express-openapi-validator 5.6 (Ajv 2020 for 3.1), and
 * `@readme/openapi-parser` 9's validate (valid, no warning).
 * spec: What the service does ("A machine-readable OpenAPI 3.1 description exists").
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { draft07UnknownKeywords } from './support/generator-portability.ts'

const shipped: unknown = JSON.parse(readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8'))

describe('contract: validators partners run on traffic (openapi-backend, express-openapi-validator)', () => {
  it('no schema uses a JSON Schema 2020-12 keyword that draft-07 Ajv (openapi-backend 5) does not know', () => {
    expect(draft07UnknownKeywords(shipped)).toEqual([])
  })

  it('the check finds each such keyword in a schema, nested ones too, and not in an example or as a property\'s name', () => {
    const planted = {
      paths: { '/r': { post: { requestBody: { content: { 'application/json': { schema: { type: 'object', properties: { prefixItems: { type: 'string' }, nested: { type: 'object', unevaluatedProperties: false } }, dependentRequired: { a: ['b'] } }, examples: { x: { value: { unevaluatedProperties: false } } } } } } } } },
      components: { schemas: { Tuple: { type: 'array', prefixItems: [{ const: 'a' }], items: false }, Defs: { $defs: { x: { type: 'string' } } } } },
    }
    expect(draft07UnknownKeywords(planted)).toEqual([
      '#/paths/~1r/post/requestBody/content/application~1json/schema: dependentRequired',
      '#/paths/~1r/post/requestBody/content/application~1json/schema/properties/nested: unevaluatedProperties',
      '#/components/schemas/Tuple: prefixItems',
      '#/components/schemas/Defs: $defs',
    ])
  })
})
