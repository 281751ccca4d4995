/**
 * Enterprise market intelligence: brands, products and creators across shops, one region at a time
 * (spec: What the service does; Endpoints whose shapes are incomplete or absent: Enterprise brands,
 * products, creators). Paths, bodies and responses are not shown: everything beyond `region` is inferred.
 */
import type { Area } from '../document.ts'
import { arr, body, data, int, nullable, num, obj, operation, ref, str, type OperationSpec, type Schema } from '../dsl.ts'

const TAG = 'Enterprise'
const SECTION = 'Endpoints whose shapes are incomplete or absent: Enterprise brands, products, creators'
const MAX_PAGE_SIZE = 100
const DEFAULT_PAGE_SIZE = 20

/** The common body: a required region, paging and the usual search options (all but region inferred). */
const enterpriseBody = (sortValues: string[]): Schema =>
  body(
    {
      region: ref('Region'),
      page: int({ minimum: 1, default: 1, description: '1-based page number.' }),
      page_size: int({ minimum: 1, maximum: MAX_PAGE_SIZE, default: DEFAULT_PAGE_SIZE, description: `Default ${DEFAULT_PAGE_SIZE}, max ${MAX_PAGE_SIZE} (more: 400).` }),
      search: str({ description: 'Case-insensitive substring of the name (or handle).' }),
      category: str({ description: 'Only rows of this category.' }),
      sort_by: str({ description: `One of ${sortValues.map((v) => `\`${v}\``).join(', ')}; default \`${sortValues[0]}\`, descending; any other value falls back to \`${sortValues[0]}\` (inferred).` }),
    },
    { required: ['region'], description: '`region` is required and must be exactly one of the 18 lowercase market codes; the other fields are inferred.' },
  )

const page = (rowsKey: string, row: string): Schema =>
  data(
    obj(
      {
        region: ref('Region'),
        [rowsKey]: arr(ref(row)),
        total_count: int({ minimum: 0 }),
        page: int({ minimum: 1 }),
        page_size: int({ minimum: 1 }),
      },
      { required: [rowsKey], inferred: true },
    ),
  )

const enterpriseOp = (path: string, operationId: string, what: string, rowsKey: string, row: string, sortValues: string[]): OperationSpec =>
  operation({
    method: 'post',
    path,
    operationId,
    tag: TAG,
    specSection: SECTION,
    summary: `Cross-shop market intelligence on ${what} in one region (Enterprise)`,
    description: [
      `Enterprise tier: a standard key gets 403. The spec says only that the endpoint exists and takes \`region\`;`,
      `the path, the other body fields and the response are inferred. Paging: \`page\`/\`page_size\`, default ${DEFAULT_PAGE_SIZE},`,
      `max ${MAX_PAGE_SIZE} (a larger page_size is refused with 400); results stop at 10,000 rows (page x page_size).`,
    ].join(' '),
    requestBody: enterpriseBody(sortValues),
    enterprise: true,
    inferred: true,
    paging: { sizeParam: 'page_size', pageParam: 'page', defaultSize: DEFAULT_PAGE_SIZE, max: MAX_PAGE_SIZE, mode: 'reject', depthCap: 10000 },
    success: { status: 200, schema: page(rowsKey, row) },
  })

export const enterprise: Area = {
  name: TAG,
  description:
    'Enterprise tier (separate plan): cross-shop market intelligence on brands, products and creators, one region at a time. Everything beyond the `region` field is inferred.',
  schemas: {
    EnterpriseBrand: obj(
      {
        brand_id: str(),
        name: str(),
        region: ref('Region'),
        category: nullable(str()),
        gmv: num(),
        units_sold: num(),
        growth_pct: nullable(num({ description: 'GMV growth against the previous period, percent.' })),
        product_count: num(),
        creator_count: num(),
      },
      { required: ['brand_id'], inferred: true, description: 'A brand in the Enterprise market data; fields not shown, inferred.' },
    ),
    EnterpriseProduct: obj(
      {
        product_id: str(),
        name: str(),
        brand: nullable(str()),
        brand_id: nullable(str()),
        region: ref('Region'),
        category: nullable(str()),
        price: num(),
        gmv: num(),
        units_sold: num(),
        growth_pct: nullable(num()),
        creator_count: num(),
      },
      { required: ['product_id'], inferred: true, description: 'A product in the Enterprise market data; fields not shown, inferred.' },
    ),
    EnterpriseCreator: obj(
      {
        creator_id: str(),
        handle: str(),
        nickname: nullable(str()),
        region: ref('Region'),
        category: nullable(str()),
        follower_cnt: num(),
        gmv: num(),
        units_sold: num(),
        video_count: num(),
        brand_collaborations: num(),
        growth_pct: nullable(num()),
      },
      { required: ['creator_id', 'handle'], inferred: true, description: 'A creator in the Enterprise market data; fields not shown, inferred.' },
    ),
  },
  operations: [
    enterpriseOp('/enterprise/brands', 'listEnterpriseBrands', 'brands', 'brands', 'EnterpriseBrand', ['gmv', 'units_sold', 'growth_pct', 'name']),
    enterpriseOp('/enterprise/products', 'listEnterpriseProducts', 'products', 'products', 'EnterpriseProduct', ['gmv', 'units_sold', 'price', 'growth_pct', 'name']),
    enterpriseOp('/enterprise/creators', 'listEnterpriseCreators', 'creators', 'creators', 'EnterpriseCreator', ['gmv', 'follower_cnt', 'units_sold', 'growth_pct', 'handle']),
  ],
}
