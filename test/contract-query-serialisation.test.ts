/**
 * The GET forms can be called by a tool that reads only the contract (issue 24, item 4): a request
 * built from each query parameter's OpenAPI 3.1 serialisation rules (`style`/`explode`, or `content`
 * for JSON text), with openapi-fetch's own parameter serialisers, filters as the POST body does.
 * spec: Conventions 4 ("Several endpoints may also be called with GET and query parameters");
 * Sponsored-video codes ("search filters may also be sent inline at top level; each date-range filter
 * also accepts flat keys such as `shared_time_from`, `shared_time_to`").
 */
import { serializeArrayParam, serializeObjectParam, serializePrimitiveParam } from 'openapi-fetch'
import { describe, expect, it } from 'vitest'
import type { ShopData } from '../fixtures/index.ts'
import type { JsonSchema } from '../openapi/index.ts'
import { mockHarness } from './support/harness.ts'

const NOW = '2026-03-10T12:00:00.000Z'
const { state, mainShop, call } = mockHarness({ now: NOW })
const { doc } = state.contract
const data: ShopData = state.world.shopData[mainShop.shop_id]!

type RawParameter = { name: string; in: string; style?: string; explode?: boolean; schema?: JsonSchema; content?: Record<string, { schema: JsonSchema }> }

const resolve = (schema: JsonSchema | undefined): JsonSchema => {
  let s = schema ?? {}
  while (typeof s.$ref === 'string') s = doc.components.schemas[(s.$ref as string).split('/').pop()!] ?? {}
  return s
}

function queryParameters(path: string): RawParameter[] {
  const op = doc.paths[path]!.get! as { parameters?: RawParameter[] }
  return (op.parameters ?? []).filter((p) => p.in === 'query')
}

/**
 * The query string a generic OpenAPI 3.1 client builds: `content: application/json` → JSON text;
 * otherwise `style` (default `form`) and `explode` (default true for form) through openapi-fetch's
 * serialisers. Throws for a value the parameter's rules cannot carry.
 */
function contractQuery(path: string, values: Record<string, unknown>): string {
  const params = new Map(queryParameters(path).map((p) => [p.name, p]))
  const parts: string[] = []
  for (const [name, value] of Object.entries(values)) {
    const p = params.get(name)
    if (!p) throw new Error(`${name} is not a query parameter of GET ${path}`)
    if (p.content?.['application/json']) {
      parts.push(`${name}=${encodeURIComponent(JSON.stringify(value))}`)
      continue
    }
    const style = p.style ?? 'form'
    const explode = p.explode ?? style === 'form'
    if (Array.isArray(value)) parts.push(serializeArrayParam(name, value, { style: style as 'form', explode }))
    else if (value !== null && typeof value === 'object') {
      if (Object.values(value).some((v) => v !== null && typeof v === 'object')) throw new Error(`${name}: ${style} cannot carry nested values`)
      parts.push(serializeObjectParam(name, value as Record<string, unknown>, { style: style as 'deepObject', explode }))
    } else parts.push(serializePrimitiveParam(name, String(value), {}))
  }
  return parts.filter(Boolean).join('&')
}

const isNested = (schema: JsonSchema): boolean => {
  const s = resolve(schema)
  const branches = ((s.anyOf ?? s.oneOf) as JsonSchema[] | undefined) ?? [s]
  return branches.map(resolve).some((b) => {
    const types = Array.isArray(b.type) ? b.type : [b.type]
    return types.includes('object') || types.includes('array')
  })
}

describe('GET forms: every query parameter has a defined serialisation (OpenAPI 3.1 4.8.12.4)', () => {
  it('a deepObject parameter holds only scalars; an object that nests objects or arrays travels as JSON (content)', () => {
    const problems: string[] = []
    let deep = 0
    for (const [path, item] of Object.entries(doc.paths)) {
      if (!item.get) continue
      for (const p of queryParameters(path)) {
        if (p.content) continue
        const s = resolve(p.schema)
        const types = Array.isArray(s.type) ? s.type : [s.type]
        if (p.style === 'deepObject') {
          deep++
          const nested = Object.entries((s.properties ?? {}) as Record<string, JsonSchema>).filter(([, v]) => isNested(v)).map(([k]) => k)
          if (nested.length) problems.push(`GET ${path} ${p.name}[${nested.join(', ')}]: deepObject is undefined for nested values`)
        } else if (types.includes('object')) problems.push(`GET ${path} ${p.name}: an object with style ${p.style ?? 'form'}`)
      }
    }
    expect(problems).toEqual([])
    expect(deep).toBeGreaterThan(0)
  })
})

describe('spark list: a GET built from the contract filters as the POST body does (spec: Sponsored-video codes)', () => {
  const sorted = { sort_by: 'shared_time', sort_direction: 'ASC' }
  const iso = (us: string) => `${us.slice(6)}-${us.slice(0, 2)}-${us.slice(3, 5)}`
  // Filters around one running code, so that each narrows the list and the code stays in it.
  const code = data.sparkCodes.find((c) => c.status !== null)!
  const day = Date.parse(iso(code.shared_time))
  const range = { from: new Date(day - 90 * 86_400_000).toISOString().slice(0, 10), to: new Date(day + 90 * 86_400_000).toISOString().slice(0, 10) }
  const handle = code.handle.slice(0, 3)
  const statuses = [...new Set([code.status!, ...data.sparkCodes.map((c) => c.status).filter((s): s is NonNullable<typeof s> => s !== null)])].slice(0, 2)

  it.each([
    ['search_params with nested ranges and arrays (JSON text)', { page_size: 100, search_params: { ...sorted, handle, shared_time: range, status: statuses } }],
    ['inline filters with a deepObject range and repeated statuses', { page_size: 100, ...sorted, handle, shared_time: range, status: statuses }],
    ['inline flat range keys', { page_size: 100, ...sorted, shared_time_from: range.from, shared_time_to: range.to, expired: code.expired }],
    ['video_ids as repeated keys inside search_params', { page_size: 100, search_params: { video_ids: data.sparkCodes.map((c) => c.video_id).filter(Boolean).slice(0, 3) } }],
  ])('spark: GET with %s answers as POST', async (_label, body) => {
    const query = contractQuery('/spark/list', body)
    const viaGet = await call('GET', '/spark/list', query)
    const viaPost = await call('POST', '/spark/list', body)
    expect(viaPost.status).toBe(200)
    expect(viaGet.status, `GET /spark/list?${query}: ${viaGet.text.slice(0, 200)}`).toBe(200)
    expect(viaGet.json).toEqual(viaPost.json)
    // The filters filtered: fewer rows than the shop has, and at least one.
    const rows = viaGet.json.data.results as Array<{ spark_code: string }>
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.length).toBeLessThan(data.sparkCodes.length)
  })

  it('spark: a nested range inside a deepObject has no OpenAPI serialisation, so the contract does not ask for one', () => {
    expect(() => contractQuery('/spark/list', { shared_time: { from: { day: 1 } } })).toThrow(/nested/)
    expect(queryParameters('/spark/list').find((p) => p.name === 'search_params')?.content?.['application/json']).toBeDefined()
  })
})

describe('halo: a GET built from the contract answers as the POST body does (spec: Off-platform sales correlation)', () => {
  it('halo: date_range as a deepObject and exclude_platform_gmv as repeated keys', async () => {
    const body = { date_range: { from: '2026-01-01', to: '2026-02-28' }, exclude_platform_gmv: ['storefront'], granularity: 'week' }
    const viaGet = await call('GET', '/halo-effect', contractQuery('/halo-effect', body))
    const viaPost = await call('POST', '/halo-effect', body)
    expect(viaGet.status).toBe(200)
    expect(viaGet.json).toEqual(viaPost.json)
  })
})
