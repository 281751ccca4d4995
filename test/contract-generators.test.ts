/**
 * The contract as partners' client generators read it: the shipped openapi.json has none of the
 * spellings that are valid OpenAPI 3.1 but make a mainstream generator's output fail to compile or to
 * load, where an equally correct spelling exists (test/support/generator-portability.ts says which
 * generator does what with each). Found by generating SDKs from the packed contract with orval 8.38,
 * openapi-zod-client 1.18, @hey-api/openapi-ts 0.99 (fetch client, zod and valibot plugins), kubb 4.39
 * (plugin-ts, plugin-client, plugin-zod), kubb 5.2 (adapter-oas, plugin-zod 5.1) and
 * openapi-typescript-codegen 0.31, checking them with `tsc --strict` (TypeScript 5.9 and 7) and running
 * them against `shoptwin serve`.
 * spec: What the service does ("A machine-readable OpenAPI 3.1 description exists").
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { discriminatedMembersWithComposition, enumsListingNull, keysFoldingToOneTypeName, nonScalarConstants } from './support/generator-portability.ts'

const shipped: unknown = JSON.parse(readFileSync(new URL('../openapi/openapi.json', import.meta.url), 'utf8'))

describe('contract: generated clients compile and load (partners\' SDK generators)', () => {
  it('no two keys of one object differ only by case and underscores while one holds an inline enum or object (orval declares one type name twice)', () => {
    expect(keysFoldingToOneTypeName(shipped)).toEqual([])
  })

  it('no enum lists null; a nullable enum is anyOf [enum, null] (openapi-zod-client: z.enum([..., null]) does not compile)', () => {
    expect(enumsListingNull(shipped)).toEqual([])
  })

  it('no member of a discriminated oneOf has anyOf, oneOf or allOf beside its properties (openapi-zod-client\'s zod module throws on load)', () => {
    expect(discriminatedMembersWithComposition(shipped)).toEqual([])
  })

  it('no const or enum holds an array or object (kubb 5\'s zod: z.literal(a,b) does not compile; kubb 4 types it as the string "a,b"; hey-api as unknown)', () => {
    expect(nonScalarConstants(shipped)).toEqual([])
  })

  it('each check finds what it looks for (so an empty list means the spelling is absent, not that the walk missed it)', () => {
    const schemaOf = (properties: Record<string, unknown>) => ({ type: 'object', properties })
    const planted = {
      paths: {
        '/x': {
          post: {
            requestBody: { content: { 'application/json': { schema: schemaOf({ sort_direction: { type: 'string', enum: ['ASC', 'DESC'] }, sortDirection: { type: 'string', enum: ['ASC', 'DESC'] }, page_size: { type: 'integer' }, pageSize: { type: 'integer' } }) } } },
          },
          get: { parameters: [{ name: 'date_range', in: 'query', schema: schemaOf({}) }, { name: 'dateRange', in: 'query', schema: schemaOf({}) }] },
        },
      },
      components: {
        schemas: {
          Mode: { type: ['string', 'null'], enum: ['manual', 'auto', null] },
          Widget: { oneOf: [{ $ref: '#/components/schemas/A' }, { $ref: '#/components/schemas/B' }], discriminator: { propertyName: 'type' } },
          A: { ...schemaOf({ type: { const: 'a' }, key: { type: 'string' } }), anyOf: [{ required: ['key'] }] },
          B: { ...schemaOf({ type: { const: 'b' }, key: { type: 'string' } }), if: { not: { required: ['key'] } }, then: { required: ['config'] } },
          Grants: { type: 'array', anyOf: [{ const: ['code'] }, { contains: { const: 'code' } }], examples: [{ const: ['not a schema'] }] },
          Corner: { enum: [{ x: 1 }, 'plain'] },
        },
      },
    }
    expect(keysFoldingToOneTypeName(planted)).toEqual([
      '#/paths/~1x/post/requestBody/content/application~1json/schema: sort_direction / sortDirection',
      '#/paths/~1x/get/parameters: date_range / dateRange',
    ])
    expect(enumsListingNull(planted)).toEqual(['#/components/schemas/Mode'])
    expect(discriminatedMembersWithComposition(planted)).toEqual(['#/components/schemas/Widget member #/components/schemas/A: anyOf'])
    expect(nonScalarConstants(planted)).toEqual(['#/components/schemas/Grants/anyOf/0: const', '#/components/schemas/Corner: enum'])
  })
})
