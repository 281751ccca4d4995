/**
 * What a typed client (openapi-fetch over openapi/types.ts) is told by the contract, checked by
 * `tsc --noEmit` in `npm test` (issue 15: the contract as independent tools read it). Each
 * `@ts-expect-error` fails the type check if the contract stops refusing that call.
 */
import createClient from 'openapi-fetch'
import type { paths } from '../../openapi/types.ts'

export async function typedClientCalls(): Promise<void> {
  const client = createClient<paths>({ baseUrl: 'https://api.example.com' })
  const params = { header: { 'x-shop-id': 'shop' } }

  // A body with required fields is required: a board cannot be created without its name.
  // @ts-expect-error requestBody is required on POST /dashboards/create
  await client.POST('/dashboards/create', { params })
  await client.POST('/dashboards/create', { params, body: { name: 'Weekly' } })

  // Enumerated where the mock refuses other values: the CRM list's sort fields (inferred).
  await client.POST('/affiliate/crm/list', { params, body: { sort_by: 'follower_cnt', sort_direction: 'asc' } })
  // @ts-expect-error sort_by is one of the CRM's sort fields
  await client.POST('/affiliate/crm/list', { params, body: { sort_by: 'not_a_field' } })

  // CSV columns are the exported row's fields.
  await client.POST('/ads/boosted-creatives', { params, body: { format: 'csv', columns: ['session_id', 'spend'] } })
  // @ts-expect-error columns are the boost session's fields
  await client.POST('/ads/boosted-creatives', { params, body: { format: 'csv', columns: ['no_such_column'] } })

  // Open shapes are open records, not Record<string, never>.
  await client.POST('/workflows/create', { params, body: { name: 'Welcome', trigger: { type: 'new_affiliate' }, steps: [{ type: 'dm', delay_days: 1 }] } })
}
