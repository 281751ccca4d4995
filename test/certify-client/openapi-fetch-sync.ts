/**
 * A client nobody here wrote: openapi-fetch (a typed fetch wrapper generated from our contract's
 * types), used as its README shows, for the same sync job as the reference client. It sends what
 * it is given and returns `{ data, error }`: no pacing, no retry, no Idempotency-Key unless passed.
 */
import createClient from 'openapi-fetch'
import type { paths } from '../../openapi/index.ts'

export async function runOpenapiFetchSync({ baseUrl, apiKey, shopId, now }: { baseUrl: string; apiKey: string; shopId: string; now(): number }): Promise<void> {
  const client = createClient<paths>({ baseUrl, headers: { 'x-api-key': apiKey } })
  // The generated types require the shop header on every shop-scoped call.
  const params = { header: { 'x-shop-id': shopId } }
  await client.GET('/account/shops')
  await client.POST('/shop/products', { params, body: { sort_by: 'units_sold' } })
  for (let page = 1; page <= 10; page++) {
    const { data } = await client.POST('/affiliate/samples/list', { params, body: { page_size: 100, page_number: page } })
    if (!data?.data || !('has_more' in data.data) || !data.data.has_more) break
  }
  for (let n = 1; n <= 4; n++) {
    // openapi-fetch rejects on a dropped connection (fetch's TypeError); the job logs and goes on.
    await client.POST('/automations/create', { params, body: { title: `openapi-fetch-${n}`, message_type: 'dm', outreach_audience: 'new_affiliates', dm_messages: [{ type: 'text', content: 'Hi [affiliate_name]' }] } }).catch(() => undefined)
  }
  const boards = await client.POST('/dashboards/list', { params, body: {} })
  const boardId = (boards.data as { data?: { dashboards?: Array<{ id: string }> } } | undefined)?.data?.dashboards?.[0]?.id
  if (boardId) {
    const board = await client.POST('/dashboards/get', { params, body: { dashboard_id: boardId } })
    const updatedAt = (board.data as { data?: { updated_at?: string } } | undefined)?.data?.updated_at
    await client.POST('/dashboards/update', { params, body: { dashboard_id: boardId, default_grain: 'week', ...(updatedAt && { expected_updated_at: updatedAt }) } })
  }
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10)
  await client.POST('/halo-effect', { params, body: { date_range: { from: day(now() - 29 * 86_400_000), to: day(now()) } } })
  await client.POST('/enterprise/brands', { params, body: { region: 'us' } })
}
