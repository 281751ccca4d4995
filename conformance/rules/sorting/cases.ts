/**
 * The sorted listings the sorting rules read: how to ask for a sort on each and where the sorted
 * field sits in a row. Shared by sorting.order and sorting.nulls-last.
 */
import { recentRange } from '../../support.ts'

export interface SortCase {
  permission: string
  field: string
  /** The direction values the endpoint takes. */
  directions: [asc: string, desc: string]
  body: (direction: string) => Record<string, unknown>
  /** The value of the sorted field in a row. */
  value: (row: Record<string, any>) => unknown
}

const range = () => recentRange(90)

export const numericSorts: SortCase[] = [
  { permission: 'POST /shop/products', field: 'price', directions: ['asc', 'desc'], body: (d) => ({ sort_by: 'price', sort_direction: d }), value: (r) => r.price },
  { permission: 'POST /shop/skus', field: 'stock', directions: ['asc', 'desc'], body: (d) => ({ sort_by: 'stock', sort_direction: d }), value: (r) => r.stock },
  {
    permission: 'POST /timeseries/products', field: 'total_gmv', directions: ['ASC', 'DESC'],
    body: (d) => ({ page_size: 100, page_number: 1, search_params: { date_range: range(), sort_by: 'total_gmv', sort_direction: d } }), value: (r) => r.total_gmv,
  },
  {
    permission: 'POST /timeseries/affiliates', field: 'gmv', directions: ['ASC', 'DESC'],
    body: (d) => ({ page_size: 100, page_number: 1, search_params: { date_range: range(), sort_by: 'gmv', sort_direction: d } }), value: (r) => r.gmv,
  },
  { permission: 'POST /affiliate/crm/list', field: 'gmv', directions: ['asc', 'desc'], body: (d) => ({ page_size: 100, page_number: 1, sort_by: 'gmv', sort_direction: d }), value: (r) => r.gmv },
  { permission: 'POST /ads/campaigns', field: 'ad_spend', directions: ['ASC', 'DESC'], body: (d) => ({ date_range: range(), page_size: 100, sort_by: 'ad_spend', sort_direction: d }), value: (r) => r.ad_spend },
  { permission: 'POST /ads/creatives', field: 'orders', directions: ['ASC', 'DESC'], body: (d) => ({ page_size: 100, sort_by: 'orders', sort_direction: d }), value: (r) => r.orders },
  { permission: 'POST /social/campaigns', field: 'spend', directions: ['ASC', 'DESC'], body: (d) => ({ date_range: range(), page_size: 100, sort_by: 'spend', sort_direction: d }), value: (r) => r.metrics?.spend ?? r.spend },
]

/** Sorts on fields that may be null, where the spec says nulls last. */
export const nullableSorts: SortCase[] = [
  { permission: 'POST /spark/list', field: 'ad_spend', directions: ['ASC', 'DESC'], body: (d) => ({ page_size: 100, search_params: { sort_by: 'ad_spend', sort_direction: d } }), value: (r) => r.ad_spend },
  { permission: 'POST /spark/list', field: 'status', directions: ['ASC', 'DESC'], body: (d) => ({ page_size: 100, search_params: { sort_by: 'status', sort_direction: d } }), value: (r) => r.status },
  { permission: 'POST /ads/campaigns', field: 'campaign_name', directions: ['ASC', 'DESC'], body: (d) => ({ date_range: range(), page_size: 100, sort_by: 'campaign_name', sort_direction: d }), value: (r) => r.campaign_name },
  { permission: 'POST /ads/campaigns', field: 'operation_status', directions: ['ASC', 'DESC'], body: (d) => ({ date_range: range(), page_size: 100, sort_by: 'operation_status', sort_direction: d }), value: (r) => r.operation_status },
  { permission: 'POST /ads/creatives', field: 'date_posted', directions: ['ASC', 'DESC'], body: (d) => ({ page_size: 200, sort_by: 'date_posted', sort_direction: d }), value: (r) => r.date_posted },
]
