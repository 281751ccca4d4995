/**
 * Enterprise market intelligence (spec: What the service does; Endpoints whose shapes are incomplete
 * or absent: Enterprise brands, products, creators). Rows come from `world.market[region]` (30-day
 * figures). The tier check, the `region` enum (one of 18) and the page window are the pipeline's;
 * this area filters, sorts and pages.
 *
 * Inferred choices (the spec shows only `region`):
 * - `search`: case-insensitive substring of the name (creators: handle or nickname);
 * - `category`: case-insensitive equality;
 * - `sort_by`: numeric fields descending with nulls last, text fields (`name`, `handle`) ascending;
 *   ties by id. An unknown `sort_by` falls back to the default `gmv` (no 400: the field is a plain string).
 */
import type { MarketBrand, MarketCreator, MarketProduct, RegionMarket } from '../../fixtures/index.ts'
import { defineHandler, type AreaModule, type HandlerContext } from '../context.ts'
import { paginate } from '../pipeline/paging.ts'
import { compareText } from '../lib/sort.ts'

type MarketRow = MarketBrand | MarketProduct | MarketCreator

interface Listing<T extends MarketRow> {
  /** Key of the rows array in the response. */
  rowsKey: 'brands' | 'products' | 'creators'
  rows: (market: RegionMarket) => T[]
  id: (row: T) => string
  /** The texts `search` looks in. */
  searchTexts: (row: T) => string[]
  /** Sortable fields; the first is the default. */
  sortFields: ReadonlyArray<keyof T & string>
  textFields: ReadonlyArray<keyof T & string>
}

/** The sort the request asks for, or the default when `sort_by` is absent or not one of the listed values. */
export function sortField<T extends MarketRow>(listing: Listing<T>, sortBy: unknown): keyof T & string {
  return listing.sortFields.find((f) => f === sortBy) ?? listing.sortFields[0]!
}

function compareRows<T extends MarketRow>(listing: Listing<T>, field: keyof T & string) {
  const text = listing.textFields.includes(field)
  return (a: T, b: T): number => {
    const va = a[field] as unknown
    const vb = b[field] as unknown
    let order = 0
    if (va === null || vb === null) order = va === vb ? 0 : va === null ? 1 : -1 // nulls last
    else if (text) order = compareText(String(va), String(vb))
    else order = (vb as number) - (va as number)
    return order || compareText(listing.id(a), listing.id(b))
  }
}

/** The body of the three listings: `defineHandler('listEnterpriseBrands', listEnterprise(brandListing))`. */
function listEnterprise<T extends MarketRow>(listing: Listing<T>) {
  return (ctx: HandlerContext<'listEnterpriseBrands' | 'listEnterpriseProducts' | 'listEnterpriseCreators'>) => {
    const region = ctx.input.region
    const search = typeof ctx.input.search === 'string' ? ctx.input.search.trim().toLowerCase() : ''
    const category = typeof ctx.input.category === 'string' ? ctx.input.category.trim().toLowerCase() : ''
    const matching = listing
      .rows(ctx.world.market[region])
      .filter((row) => !search || listing.searchTexts(row).some((t) => t.toLowerCase().includes(search)))
      .filter((row) => !category || (row.category ?? '').toLowerCase() === category)
      .sort(compareRows(listing, sortField(listing, ctx.input.sort_by)))
    const { rows } = paginate(matching, ctx.page)
    return {
      status: 200,
      body: { data: { region, [listing.rowsKey]: rows, total_count: matching.length, page: ctx.page.page, page_size: ctx.page.pageSize } },
    }
  }
}

const brandListing: Listing<MarketBrand> = {
  rowsKey: 'brands',
  rows: (market) => market.brands,
  id: (b) => b.brand_id,
  searchTexts: (b) => [b.name],
  sortFields: ['gmv', 'units_sold', 'growth_pct', 'name'],
  textFields: ['name'],
}

const productListing: Listing<MarketProduct> = {
  rowsKey: 'products',
  rows: (market) => market.products,
  id: (p) => p.product_id,
  searchTexts: (p) => [p.name],
  sortFields: ['gmv', 'units_sold', 'price', 'growth_pct', 'name'],
  textFields: ['name'],
}

const creatorListing: Listing<MarketCreator> = {
  rowsKey: 'creators',
  rows: (market) => market.creators,
  id: (c) => c.creator_id,
  searchTexts: (c) => [c.handle, c.nickname ?? ''],
  sortFields: ['gmv', 'follower_cnt', 'units_sold', 'growth_pct', 'handle'],
  textFields: ['handle'],
}

export const enterprise: AreaModule = {
  handlers: {
    listEnterpriseBrands: defineHandler('listEnterpriseBrands', listEnterprise(brandListing)),
    listEnterpriseProducts: defineHandler('listEnterpriseProducts', listEnterprise(productListing)),
    listEnterpriseCreators: defineHandler('listEnterpriseCreators', listEnterprise(creatorListing)),
  },
}
