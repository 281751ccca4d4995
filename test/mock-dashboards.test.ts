/**
 * Dashboards (spec: Dashboards; Resources: Dashboard, Dashboard widget; Errors 400/409/412), in-process
 * through MSW's getResponse with a strict mock (a response off the contract becomes a 500). The
 * stats module is wrapped to record what POST /dashboards/data asks it for, so the filters each
 * widget is computed with are pinned whatever the stats area returns.
 */
import { getResponse } from 'msw'
import { beforeEach, describe, expect, it, vi } from 'vitest'
import { defaultDashboardTemplates } from '../fixtures/dashboards.ts'
import { presetRange } from '../mock/areas/dashboards.ts'
import type { ShopStatsRequest } from '../mock/lib/stats/compute.ts'
import { createHandlers, createMockState, type ShopRecord } from '../mock/index.ts'
import { contractProblem } from '../mock/testing.ts'

const statsCalls = vi.hoisted(() => [] as Array<{ shopId: string; request: ShopStatsRequest }>)
vi.mock('../mock/lib/stats/compute.ts', async (importOriginal) => {
  const actual = await importOriginal<typeof import('../mock/lib/stats/compute.ts')>()
  return {
    ...actual,
    computeShopStats: (...args: Parameters<typeof actual.computeShopStats>) => {
      statsCalls.push({ shopId: args[1].shop_id, request: structuredClone(args[2]) })
      return actual.computeShopStats(...args)
    },
  }
})

const BASE = 'https://dashboards.example.com'
/** 10:00 on 2026-03-10 in Los Angeles (the main shop), 14:00 in New York (the second shop). */
const NOW = '2026-03-10T17:00:00.000Z'
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/

const state = createMockState({ seed: 11, now: NOW, rateLimit: false, strict: true })
const handlers = createHandlers(state, { baseUrl: BASE })
const shops = () => state.world.shops
/** The main shop: the shared board is shared onto it. */
const main = (): ShopRecord => shops()[0]!
/** The second shop: home of the shared board, which locks its first product. */
const second = (): ShopRecord => shops()[1]!
const third = (): ShopRecord => shops()[2]!
const sharedBoardId = () => state.world.shopData[second().shop_id]!.dashboards.boards[0]!.id
const productsOf = (shop: ShopRecord) => state.world.shopData[shop.shop_id]!.products.map((p) => p.product_id)

beforeEach(() => {
  state.clock.set(NOW)
  state.reset()
  statsCalls.length = 0
})

interface Reply {
  status: number
  json: any
}

/** Calls `METHOD /path` on a shop (POST/DELETE: JSON body; GET: the query) and checks the answer against the contract. */
async function call(permission: string, input: Record<string, unknown> = {}, shop: ShopRecord = main()): Promise<Reply> {
  const [method, path] = permission.split(' ') as [string, string]
  const url = new URL(BASE + path)
  if (method === 'GET') for (const [k, v] of Object.entries(input)) url.searchParams.append(k, String(v))
  const request = new Request(url, {
    method,
    headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop.shop_id },
    body: method === 'GET' ? undefined : JSON.stringify(input),
  })
  const response = (await getResponse(handlers, request))!
  const text = await response.text()
  const op = state.contract.operations.find((o) => o.method === method && o.path === path)!
  expect(contractProblem(state.contract, op, response.status, text)).toBeUndefined()
  return { status: response.status, json: JSON.parse(text) }
}

async function ok(permission: string, input: Record<string, unknown> = {}, shop: ShopRecord = main(), status = 200): Promise<any> {
  const reply = await call(permission, input, shop)
  expect(reply.status, JSON.stringify(reply.json)).toBe(status)
  return reply.json.data
}

async function refused(permission: string, input: Record<string, unknown>, status: number, shop: ShopRecord = main()): Promise<string> {
  const reply = await call(permission, input, shop)
  expect(reply.status, JSON.stringify(reply.json)).toBe(status)
  return reply.json.error as string
}

const list = (shop = main(), input: Record<string, unknown> = {}) => ok('POST /dashboards/list', input, shop)
const get = (id: string, shop = main()) => ok('POST /dashboards/get', { dashboard_id: id }, shop)
const create = (input: Record<string, unknown>, shop = main()) => ok('POST /dashboards/create', input, shop, 201)
const update = (id: string, input: Record<string, unknown>, shop = main()) => ok('POST /dashboards/update', { dashboard_id: id, ...input }, shop)
const data = (id: string, input: Record<string, unknown> = {}, shop = main()) => ok('POST /dashboards/data', { dashboard_id: id, ...input }, shop)
const open = (shop = main()) => state.admin.run('dashboards/open', { shop_id: shop.shop_id })
const names = (boards: Array<{ name: string }>) => boards.map((b) => b.name)

describe('dashboards: list and the first open (spec: Dashboards)', () => {
  it('dashboards: until the first dashboard open, list returns defaults_created false and only the boards the shop already shows (spec: Dashboards)', async () => {
    const onMain = await list(main())
    expect(onMain).toMatchObject({ defaults_created: false, total_count: 1 })
    expect(onMain.dashboards.map((b: any) => [b.id, b.is_home_shop])).toEqual([[sharedBoardId(), false]])
    expect((await list(second())).dashboards.map((b: any) => [b.id, b.is_home_shop])).toEqual([[sharedBoardId(), true]])
    expect(await list(third())).toEqual({ dashboards: [], total_count: 0, defaults_created: false })
    // API calls are not the app's dashboard open: they leave the defaults uncreated.
    await create({ name: 'Mine' }, third())
    await ok('GET /dashboards/list', {}, third())
    expect((await list(third())).defaults_created).toBe(false)
  })

  it('dashboards: the first dashboard open creates the default boards once, unrenamed, in the next tabs; then defaults_created is true (spec: Dashboards)', async () => {
    const templates = defaultDashboardTemplates()
    expect(await open()).toEqual({ shop_id: main().shop_id, defaults_created: true, created: templates.length })
    const after = await list()
    expect(after.defaults_created).toBe(true)
    expect(after.total_count).toBe(1 + templates.length)
    expect(after.dashboards[0]).toMatchObject({ id: sharedBoardId(), position: 0 })
    expect(after.dashboards.slice(1).map((b: any) => [b.name, b.stored_name, b.seed_key, b.created_by, b.widget_count, b.position])).toEqual(
      templates.map((t, i) => [t.name, '', t.seed_key, null, t.widgets.length, i + 1]),
    )
    for (const b of after.dashboards.slice(1)) {
      expect(b).toMatchObject({ is_home_shop: true, home_shop_id: main().shop_id, shared_with: [], archived: false, default_product_ids: [] })
      expect(b.created_at).toBe(b.updated_at)
      expect('widgets' in b).toBe(false)
    }
    // A second open creates nothing; other shops are untouched.
    expect(await open()).toMatchObject({ created: 0 })
    expect((await list()).total_count).toBe(1 + templates.length)
    expect((await list(third())).defaults_created).toBe(false)
  })

  it('dashboards: list is in tab order with total_count, new boards taking the last tab, and no widgets (spec: Dashboards)', async () => {
    await create({ name: 'First of mine' })
    await open()
    await create({ name: 'Second of mine', widgets: [{ type: 'stat', stat_key: 'replies' }] })
    const { dashboards, total_count } = await list()
    expect(names(dashboards)).toEqual(['Cross-shop ads review', 'First of mine', ...defaultDashboardTemplates().map((t) => t.name), 'Second of mine'])
    expect(dashboards.map((b: any) => b.position)).toEqual(dashboards.map((_: unknown, i: number) => i))
    expect(total_count).toBe(dashboards.length)
    for (const b of dashboards) expect(b.widget_count).toBe((await get(b.id)).widgets.length)
  })

  it('dashboards: include_archived defaults to true; false leaves archived boards out, in the POST and GET forms alike (spec: Dashboards)', async () => {
    const kept = await create({ name: 'Kept' })
    const archived = await create({ name: 'Archived' })
    state.clock.advance(5_000)
    await state.admin.run('dashboards/archive', { dashboard_id: archived.id })
    const all = await list()
    expect(names(all.dashboards)).toEqual(['Cross-shop ads review', 'Kept', 'Archived'])
    expect(all.dashboards[2]).toMatchObject({ archived: true, archived_at: '2026-03-10T17:00:05.000Z', updated_at: '2026-03-10T17:00:05.000Z' })
    expect(await list(main(), { include_archived: true })).toEqual(all)
    const live = await list(main(), { include_archived: false })
    expect(live.dashboards.map((b: any) => b.id)).toEqual([sharedBoardId(), kept.id])
    expect(live.total_count).toBe(2)
    expect(await ok('GET /dashboards/list', { include_archived: false })).toEqual(live)
    expect(await ok('GET /dashboards/list', { includeArchived: false })).toEqual(live)
    expect(await ok('GET /dashboards/list')).toEqual(all)
  })
})

describe('dashboards: get (spec: Dashboards)', () => {
  it('dashboards: get returns the board with its widgets in board order, in the POST and GET forms alike (spec: Dashboards)', async () => {
    await open()
    const overview = (await list()).dashboards.find((b: any) => b.seed_key === 'overview')
    const board = await get(overview.id)
    const template = defaultDashboardTemplates().find((t) => t.seed_key === 'overview')!
    expect(board.widgets.map(({ id: _id, ...w }: any) => w)).toEqual(template.widgets)
    expect(board.widgets.every((w: any) => UUID.test(w.id))).toBe(true)
    const { widgets: _w, ...withoutWidgets } = board
    expect(withoutWidgets).toEqual(overview)
    expect(await ok('GET /dashboards/get', { dashboard_id: overview.id })).toEqual(board)
    expect(await ok('GET /dashboards/get', { dashboardId: overview.id })).toEqual(board)
  })

  it('dashboards: get answers 404 for an unknown board and for a board the shop does not show (status inferred)', async () => {
    expect(await refused('POST /dashboards/get', { dashboard_id: 'no-such-board' }, 404)).toBe('Dashboard not found: no-such-board')
    await refused('POST /dashboards/get', { dashboard_id: sharedBoardId() }, 404, third())
    await refused('POST /dashboards/data', { dashboard_id: sharedBoardId() }, 404, third())
    await refused('POST /dashboards/update', { dashboard_id: sharedBoardId(), name: 'x' }, 404, third())
    await refused('DELETE /dashboards/delete', { dashboard_id: sharedBoardId() }, 404, third())
  })
})

describe('dashboards: create (spec: Dashboards; Limits)', () => {
  it('dashboards: create answers 201 with the board exactly as get returns it, and it appears in the list (spec: Dashboards)', async () => {
    const p = productsOf(main())
    const board = await create({ name: '  Growth  ', default_date_range: 'qtd', default_grain: 'week', default_product_ids: [p[1], p[0], p[1]] })
    expect(board).toMatchObject({
      name: 'Growth', stored_name: 'Growth', seed_key: null, home_shop_id: main().shop_id, is_home_shop: true, shared_with: [], position: 1,
      widget_count: 0, default_date_range: 'qtd', default_grain: 'week', default_product_ids: [p[1], p[0]], archived: false, archived_at: null,
      last_viewed_at: null, created_at: NOW, updated_at: NOW, widgets: [],
    })
    expect(board.id).toMatch(UUID)
    expect(await get(board.id)).toEqual(board)
    expect((await list()).dashboards.at(-1).id).toBe(board.id)
  })

  it('dashboards: stat widgets default to style chart, size xs, cpm 5; stat-chart widgets to chart line, size md (spec: Dashboards: create)', async () => {
    const board = await create({
      name: 'Defaults',
      widgets: [
        { type: 'stat', stat_key: 'total_gmv' },
        { type: 'stat-chart', stat_keys: ['likes', 'comments'] },
        { type: 'stat', stat_key: 'emv', style: 'numbers', size: 'md', cpm: 0, title: 'EMV' },
        { type: 'stat-chart', stat_keys: ['ad_spend'], chart: 'bar', size: 'lg', title: 'Spend' },
      ],
    })
    expect(board.widgets.map(({ id: _id, ...w }: any) => w)).toEqual([
      { type: 'stat', size: 'xs', title: null, config: { statKey: 'total_gmv', style: 'chart', cpm: 5 }, col: null, api_editable: true },
      { type: 'stat-chart', size: 'md', title: null, config: { statKeys: ['likes', 'comments'], chart: 'line' }, col: null, api_editable: true },
      { type: 'stat', size: 'md', title: 'EMV', config: { statKey: 'emv', style: 'numbers', cpm: 0 }, col: null, api_editable: true },
      { type: 'stat-chart', size: 'lg', title: 'Spend', config: { statKeys: ['ad_spend'], chart: 'bar' }, col: null, api_editable: true },
    ])
  })

  it('dashboards: widget settings may be nested under config as statKey/statKeys (spec: Dashboards: create)', async () => {
    const nested = await create({
      name: 'Nested',
      widgets: [
        { type: 'stat', config: { statKey: 'emv', style: 'numbers', cpm: 12 } },
        { type: 'stat-chart', config: { statKeys: ['likes', 'comments'], chart: 'bar' } },
      ],
    })
    const flat = await create({
      name: 'Flat',
      widgets: [
        { type: 'stat', stat_key: 'emv', style: 'numbers', cpm: 12 },
        { type: 'stat-chart', stat_keys: ['likes', 'comments'], chart: 'bar' },
      ],
    })
    const shape = (b: any) => b.widgets.map(({ id: _id, ...w }: any) => w)
    expect(shape(nested)).toEqual(shape(flat))
    expect(shape(nested)[0].config).toEqual({ statKey: 'emv', style: 'numbers', cpm: 12 })
  })

  it('dashboards: widget ids are UUIDs from the world seed: distinct, and the same in two mocks of the same seed (spec: Resources: Dashboard widget)', async () => {
    const widgets = Array.from({ length: 20 }, () => ({ type: 'stat', stat_key: 'total_gmv' }))
    const first = await create({ name: 'Ids', widgets })
    const ids = [first.id, ...first.widgets.map((w: any) => w.id)]
    expect(ids.every((id) => UUID.test(id))).toBe(true)
    expect(new Set(ids).size).toBe(ids.length)
    state.reset()
    const again = await create({ name: 'Ids', widgets })
    expect([again.id, ...again.widgets.map((w: any) => w.id)]).toEqual(ids)
  })

  it('dashboards: create takes up to 160 widgets (spec: Limits: Dashboards)', async () => {
    const widgets = Array.from({ length: 160 }, (_, i) => ({ type: 'stat', stat_key: i % 2 ? 'likes' : 'total_gmv' }))
    expect((await create({ name: 'Full', widgets })).widget_count).toBe(160)
    await refused('POST /dashboards/create', { name: 'Too full', widgets: [...widgets, widgets[0]] }, 400)
  })

  const invalid: Array<[string, Record<string, unknown>, RegExp]> = [
    ['an unknown stat key', { widgets: [{ type: 'stat', stat_key: 'no_such_stat' }] }, /widgets\[0\]\.stat_key: unknown stat key "no_such_stat"/],
    ['an unknown stat key under config', { widgets: [{ type: 'stat', config: { statKey: 'no_such_stat' } }] }, /unknown stat key "no_such_stat"/],
    ['an unknown key among stat_keys', { widgets: [{ type: 'stat-chart', stat_keys: ['likes', 'nope'] }] }, /widgets\[0\]\.stat_keys\[1\]: unknown stat key "nope"/],
    ['another widget type', { widgets: [{ type: 'stat', stat_key: 'likes' }, { type: 'top-products' }] }, /^widgets\[1\]\.type: only stat and stat-chart widgets can be created through the API, not top-products$/],
    ['a stat widget without its stat key', { widgets: [{ type: 'stat' }] }, /^widgets\[0\]\.stat_key is required$/],
    ['a stat-chart widget without its stat keys', { widgets: [{ type: 'stat-chart', chart: 'bar' }] }, /^widgets\[0\]\.stat_keys is required$/],
    ['more than 6 stat keys', { widgets: [{ type: 'stat-chart', stat_keys: ['likes', 'comments', 'emv', 'gpm', 'replies', 'dms_sent', 'aov'] }] }, /^widgets\[0\]\.stat_keys must NOT have more than 6 items$/],
    ['a repeated stat key in stat_keys', { widgets: [{ type: 'stat-chart', stat_keys: ['likes', 'likes'] }] }, /stat_keys must not repeat/],
    ['a stat-chart field on a stat widget', { widgets: [{ type: 'stat', stat_key: 'likes', chart: 'bar' }] }, /widgets\[0\]\.chart does not apply to a stat widget/],
    ['a stat widget of size lg', { widgets: [{ type: 'stat', stat_key: 'likes', size: 'lg' }] }, /^widgets\[0\]\.size must be one of "xs", "sm", "md"$/],
    ['a stat-chart widget of size xs', { widgets: [{ type: 'stat-chart', stat_keys: ['likes'], size: 'xs' }] }, /^widgets\[0\]\.size must be one of "sm", "md", "lg"$/],
    ['cpm over 1000', { widgets: [{ type: 'stat', stat_key: 'emv', cpm: 1001 }] }, /^widgets\[0\]\.cpm must be <= 1000$/],
    ['a title over 80 characters', { widgets: [{ type: 'stat', stat_key: 'emv', title: 't'.repeat(81) }] }, /^widgets\[0\]\.title must NOT have more than 80 characters$/],
    ['an empty name', { name: '' }, /^name must NOT have fewer than 1 characters$/],
    // The contract says it now (pattern \S, inferred: spec: Dashboards: create: "`name` (1-60 characters ...)").
    ['a blank name', { name: '   ' }, /^name must not be blank$/],
    ['a name over 60 characters', { name: 'n'.repeat(61) }, /^name must NOT have more than 60 characters$/],
    ['an unknown locked product', { default_product_ids: ['no-such-product'] }, /^default_product_ids: no-such-product is not a product of shop /],
    ['more than 50 locked products', { default_product_ids: Array.from({ length: 51 }, (_, i) => String(i)) }, /^default_product_ids must NOT have more than 50 items$/],
    ['an unknown date range preset', { default_date_range: '60d' }, /^default_date_range must be one of /],
  ]
  it.each(invalid)('dashboards: create refuses %s with 400 and creates nothing (spec: Dashboards: create; Errors 400)', async (_what, body, message) => {
    expect(await refused('POST /dashboards/create', { name: 'Invalid', ...body }, 400)).toMatch(message)
    expect((await list()).total_count).toBe(1)
  })

  it('dashboards: create answers 409 when the name is used by a board of the shop, shared-in boards and case included (spec: Dashboards: create; Errors 409)', async () => {
    await create({ name: 'Weekly' })
    expect(await refused('POST /dashboards/create', { name: 'Weekly' }, 409)).toBe(`A dashboard named "Weekly" already exists on shop ${main().shop_id}`)
    await refused('POST /dashboards/create', { name: ' weekly ' }, 409)
    await refused('POST /dashboards/create', { name: 'Cross-shop ads review' }, 409)
    await open()
    await refused('POST /dashboards/create', { name: 'Overview' }, 409)
    // Another shop's names are free.
    await create({ name: 'Weekly' }, third())
    await create({ name: 'Overview' }, third())
    expect(names((await list()).dashboards).filter((n) => n === 'Weekly')).toHaveLength(1)
  })
})

describe('dashboards: update (spec: Dashboards: POST /dashboards/update)', () => {
  const twoWidgets = [{ type: 'stat', stat_key: 'total_gmv' }, { type: 'stat-chart', stat_keys: ['likes'] }]

  it('dashboards: add_widgets are appended after the board\'s widgets, with the create defaults (spec: Dashboards: update)', async () => {
    const board = await create({ name: 'Append', widgets: twoWidgets })
    const updated = await update(board.id, { add_widgets: [{ type: 'stat', config: { statKey: 'replies' } }, { type: 'stat-chart', stat_keys: ['dms_sent'] }] })
    expect(updated.widgets.slice(0, 2)).toEqual(board.widgets)
    expect(updated.widgets.slice(2).map((w: any) => [w.type, w.size, w.config])).toEqual([
      ['stat', 'xs', { statKey: 'replies', style: 'chart', cpm: 5 }],
      ['stat-chart', 'md', { statKeys: ['dms_sent'], chart: 'line' }],
    ])
    expect(updated.widget_count).toBe(4)
    expect(await get(board.id)).toEqual(updated)
    expect(await refused('POST /dashboards/update', { dashboard_id: board.id, add_widgets: [{ type: 'stat', stat_key: 'nope' }] }, 400)).toMatch(/add_widgets\[0\]\.stat_key: unknown stat key/)
    expect(await refused('POST /dashboards/update', { dashboard_id: board.id, add_widgets: [{ type: 'top-products' }] }, 400)).toMatch(/add_widgets\[0\]\.type: only stat and stat-chart/)
  })

  it('dashboards: remove_widget_ids removes widgets of any type and answers 400 when one is not on the board, changing nothing (spec: Dashboards: update; Errors 400)', async () => {
    await open()
    const overview = (await list()).dashboards.find((b: any) => b.seed_key === 'overview')
    const before = await get(overview.id)
    const topProducts = before.widgets.find((w: any) => w.type === 'top-products')
    const firstStat = before.widgets[0]
    const absent = '00000000-0000-4000-8000-000000000000'
    expect(await refused('POST /dashboards/update', { dashboard_id: overview.id, remove_widget_ids: [firstStat.id, absent] }, 400)).toBe(`remove_widget_ids: widget ${absent} is not on the board`)
    expect(await get(overview.id)).toEqual(before)
    const after = await update(overview.id, { remove_widget_ids: [topProducts.id, firstStat.id] })
    expect(after.widgets).toEqual(before.widgets.filter((w: any) => w.id !== topProducts.id && w.id !== firstStat.id))
    expect(after.widget_count).toBe(before.widgets.length - 2)
  })

  it('dashboards: a complete widgets list keeps known ids (with changed stat fields), makes new stat widgets of the rest and removes the omitted (spec: Dashboards: update)', async () => {
    const board = await create({ name: 'Replace', widgets: [...twoWidgets, { type: 'stat', stat_key: 'replies' }] })
    const [gmv, chart, replies] = board.widgets
    const updated = await update(board.id, {
      widgets: [
        { id: chart.id, chart: 'bar', stat_keys: ['likes', 'comments'], size: 'lg' },
        { stat_key: 'dms_sent' },
        { id: 'not-a-widget-of-this-board', stat_key: 'emv', style: 'numbers', cpm: 9 },
        { type: 'stat-chart', config: { statKeys: ['ad_spend'] } },
        { id: gmv.id, style: 'numbers', cpm: 7, title: 'GMV', config: { statKey: 'affiliate_gmv' } },
      ],
    })
    const [keptChart, newDms, newEmv, newChart, keptGmv] = updated.widgets
    expect(keptChart).toEqual({ ...chart, size: 'lg', config: { statKeys: ['likes', 'comments'], chart: 'bar' } })
    expect(keptGmv).toEqual({ ...gmv, title: 'GMV', config: { statKey: 'affiliate_gmv', style: 'numbers', cpm: 7 } })
    expect(newDms).toMatchObject({ type: 'stat', size: 'xs', config: { statKey: 'dms_sent', style: 'chart', cpm: 5 } })
    expect(newEmv).toMatchObject({ type: 'stat', config: { statKey: 'emv', style: 'numbers', cpm: 9 } })
    expect(newChart).toMatchObject({ type: 'stat-chart', size: 'md', config: { statKeys: ['ad_spend'], chart: 'line' } })
    const ids = updated.widgets.map((w: any) => w.id)
    expect(ids).not.toContain(replies.id)
    expect(ids).not.toContain('not-a-widget-of-this-board')
    expect(new Set(ids).size).toBe(5)
    expect((await update(board.id, { widgets: [] })).widgets).toEqual([])
  })

  it('dashboards: a widgets list keeps a widget the API cannot edit by its id alone and refuses to edit it or change a type (spec: Resources: Dashboard widget; Errors 400)', async () => {
    await open()
    const overview = await get((await list()).dashboards.find((b: any) => b.seed_key === 'overview').id)
    const topProducts = overview.widgets.find((w: any) => w.type === 'top-products')
    const stat = overview.widgets[0]
    const kept = await update(overview.id, { widgets: [{ id: topProducts.id }, { id: stat.id }] })
    expect(kept.widgets).toEqual([topProducts, stat])
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ id: topProducts.id, size: 'lg' }, /widgets\[0\]: widget .* is a top-products widget, which the API keeps but cannot edit/],
      [{ id: stat.id, type: 'stat-chart' }, /widgets\[0\]\.type: widget .* is a stat widget; its type cannot change/],
      [{ id: stat.id, stat_keys: ['likes'] }, /widgets\[0\]\.stat_keys does not apply to a stat widget/],
      [{ id: stat.id, stat_key: 'nope' }, /unknown stat key "nope"/],
      [{ stat_key: 'likes', size: 'lg' }, /widgets\[0\]\.size must be one of xs, sm, md for a stat widget/],
      [{ style: 'numbers' }, /widgets\[0\]\.stat_key is required/],
    ]
    for (const [entry, message] of cases) expect(await refused('POST /dashboards/update', { dashboard_id: overview.id, widgets: [entry] }, 400)).toMatch(message)
    expect(await refused('POST /dashboards/update', { dashboard_id: overview.id, widgets: [{ id: stat.id }, { id: stat.id }] }, 400)).toMatch(/appears twice/)
    expect((await get(overview.id)).widgets).toEqual([topProducts, stat])
  })

  it('dashboards: widgets cannot be combined with add_widgets or remove_widget_ids (spec: Dashboards: update; Errors 400)', async () => {
    const board = await create({ name: 'Exclusive', widgets: twoWidgets })
    const message = 'widgets (the complete list) cannot be combined with add_widgets or remove_widget_ids'
    expect(await refused('POST /dashboards/update', { dashboard_id: board.id, widgets: [], add_widgets: [] }, 400)).toBe(message)
    expect(await refused('POST /dashboards/update', { dashboard_id: board.id, widgets: [], remove_widget_ids: [board.widgets[0].id] }, 400)).toBe(message)
    // add and remove together are fine: removed first, then appended.
    const both = await update(board.id, { remove_widget_ids: [board.widgets[0].id], add_widgets: [{ type: 'stat', stat_key: 'likes' }] })
    expect(both.widgets.map((w: any) => w.config.statKey ?? w.config.statKeys)).toEqual([['likes'], 'likes'])
  })

  it('dashboards: default_date_range and default_grain lock and null stops locking; default_product_ids [] clears (spec: Dashboards: update)', async () => {
    const [p0, p1] = productsOf(main())
    const board = await create({ name: 'Locks' })
    expect(await update(board.id, { default_date_range: '90d', default_grain: 'month', default_product_ids: [p0, p1] })).toMatchObject({ default_date_range: '90d', default_grain: 'month', default_product_ids: [p0, p1] })
    expect(await update(board.id, { default_grain: null })).toMatchObject({ default_date_range: '90d', default_grain: null, default_product_ids: [p0, p1] })
    expect(await update(board.id, { default_date_range: null, default_product_ids: [] })).toMatchObject({ default_date_range: null, default_grain: null, default_product_ids: [] })
    expect(await refused('POST /dashboards/update', { dashboard_id: board.id, default_product_ids: ['nope'] }, 400)).toMatch(/default_product_ids: nope is not a product/)
  })

  it('dashboards: default_product_ids answers 400 on a shop the board is only shared to; [] sent back from there leaves the home lock (spec: Dashboards: update; Errors 400)', async () => {
    const [p0] = productsOf(second())
    expect(await refused('POST /dashboards/update', { dashboard_id: sharedBoardId(), default_product_ids: [productsOf(main())[0]] }, 400)).toBe('default_product_ids cannot be locked on a shop the board is only shared to')
    expect((await update(sharedBoardId(), { default_product_ids: [] })).default_product_ids).toEqual([])
    expect((await get(sharedBoardId(), second())).default_product_ids).toEqual([p0])
  })

  it('dashboards: renaming gives a default board a stored_name and answers 409 when the name is taken on any shop the board shows on (spec: Dashboards: update; Errors 409)', async () => {
    await open()
    const overview = (await list()).dashboards.find((b: any) => b.seed_key === 'overview')
    expect(await update(overview.id, { name: 'Home' })).toMatchObject({ name: 'Home', stored_name: 'Home', seed_key: 'overview' })
    // Its own name is not a conflict.
    expect((await update(overview.id, { name: 'home' })).name).toBe('home')
    await create({ name: 'Only on main' })
    await create({ name: 'Only on second' }, second())
    await create({ name: 'Only on third' }, third())
    // The shared board shows on main and second: both shops' names count, from either shop.
    expect(await refused('POST /dashboards/update', { dashboard_id: sharedBoardId(), name: 'Only on main' }, 409, second())).toBe(`A dashboard named "Only on main" already exists on shop ${main().shop_id}`)
    await refused('POST /dashboards/update', { dashboard_id: sharedBoardId(), name: 'only on SECOND' }, 409, main())
    expect((await update(sharedBoardId(), { name: 'Only on third' }, second())).name).toBe('Only on third')
    // A board only on main does not see second's names.
    expect((await update(overview.id, { name: 'Only on second' })).name).toBe('Only on second')
  })

  it('dashboards: updated_at advances on every change, strictly even twice in one millisecond, and not on an update that changes nothing (spec: Dashboards: update)', async () => {
    const board = await create({ name: 'Clock' })
    const a = await update(board.id, { default_grain: 'week' })
    const b = await update(board.id, { add_widgets: [{ type: 'stat', stat_key: 'likes' }] })
    expect(Date.parse(a.updated_at)).toBeGreaterThan(Date.parse(board.updated_at))
    expect(Date.parse(b.updated_at)).toBeGreaterThan(Date.parse(a.updated_at))
    expect(b.created_at).toBe(board.created_at)
    expect((await update(board.id, {})).updated_at).toBe(b.updated_at)
    expect((await update(board.id, { default_grain: 'week' })).updated_at).toBe(b.updated_at)
    state.clock.advance(60_000)
    expect((await update(board.id, { default_grain: 'day' })).updated_at).toBe('2026-03-10T17:01:00.000Z')
  })

  it('dashboards: 412 when expected_updated_at is older than the board\'s updated_at; the current or a later one succeeds (spec: Dashboards: update; Errors 412)', async () => {
    const board = await create({ name: 'Guarded' })
    const first = await update(board.id, { default_grain: 'week', expected_updated_at: board.updated_at })
    const error = await refused('POST /dashboards/update', { dashboard_id: board.id, default_grain: 'month', expected_updated_at: board.updated_at }, 412)
    expect(error).toBe(`The dashboard changed since expected_updated_at (updated_at is now ${first.updated_at}); re-read it and reapply the change`)
    expect((await get(board.id)).default_grain).toBe('week')
    expect((await update(board.id, { default_grain: 'month', expected_updated_at: first.updated_at })).default_grain).toBe('month')
    expect((await update(board.id, { name: 'Guarded 2', expected_updated_at: '2099-01-01T00:00:00Z' })).name).toBe('Guarded 2')
    // A change made from the other shop of a shared board counts too.
    const shared = await get(sharedBoardId(), second())
    await update(sharedBoardId(), { default_grain: 'week' }, main())
    await refused('POST /dashboards/update', { dashboard_id: sharedBoardId(), default_grain: 'month', expected_updated_at: shared.updated_at }, 412, second())
  })

  it('dashboards: two concurrent updates with the same expected_updated_at give one success and one 412 (spec: Dashboards: update; Errors 412)', async () => {
    const board = await create({ name: 'Race' })
    const body = (name: string) => ({ dashboard_id: board.id, name, expected_updated_at: board.updated_at })
    const replies = await Promise.all([call('POST /dashboards/update', body('Race A')), call('POST /dashboards/update', body('Race B'))])
    expect(replies.map((r) => r.status).sort()).toEqual([200, 412])
    const winner = replies.find((r) => r.status === 200)!.json.data
    expect((await get(board.id)).name).toBe(winner.name)
  })

  it('dashboards: a shared board is one board: a change on one shop is seen on the other, with is_home_shop and default_product_ids per shop (spec: Dashboards; Resources: Dashboard)', async () => {
    const [p0] = productsOf(second())
    const updated = await update(sharedBoardId(), { name: 'Renamed from main', add_widgets: [{ type: 'stat', stat_key: 'likes' }] }, main())
    const onSecond = await get(sharedBoardId(), second())
    expect(onSecond).toEqual({ ...updated, is_home_shop: true, default_product_ids: [p0] })
    expect(updated).toMatchObject({ is_home_shop: false, default_product_ids: [], home_shop_id: second().shop_id, shared_with: [main().shop_id], widget_count: 4 })
    await update(sharedBoardId(), { remove_widget_ids: [updated.widgets[0].id] }, second())
    expect((await list(main())).dashboards[0]).toMatchObject({ name: 'Renamed from main', widget_count: 3 })
  })

  it('dashboards: update answers 404 for an unknown board (status inferred)', async () => {
    await refused('POST /dashboards/update', { dashboard_id: 'nope', name: 'x' }, 404)
  })
})

describe('dashboards: delete (spec: Dashboards: DELETE /dashboards/delete)', () => {
  it('dashboards: deleting on the home shop deletes the board for everyone with its share links (spec: Dashboards: delete)', async () => {
    const answer = await ok('DELETE /dashboards/delete', { dashboard_id: sharedBoardId() }, second())
    expect(answer).toEqual({ dashboard_id: sharedBoardId(), name: 'Cross-shop ads review', deleted: true, removed_from_shop_only: false })
    expect((await list(second())).dashboards).toEqual([])
    expect((await list(main())).dashboards).toEqual([])
    await refused('POST /dashboards/get', { dashboard_id: sharedBoardId() }, 404, main())
    // Not restorable: a second delete finds nothing.
    await refused('DELETE /dashboards/delete', { dashboard_id: sharedBoardId() }, 404, second())
  })

  it('dashboards: deleting on a shop the board is only shared to removes it from that shop only (spec: Dashboards: delete)', async () => {
    const mine = await create({ name: 'Mine' })
    const answer = await ok('DELETE /dashboards/delete', { dashboard_id: sharedBoardId() }, main())
    expect(answer).toEqual({ dashboard_id: sharedBoardId(), name: 'Cross-shop ads review', deleted: true, removed_from_shop_only: true })
    expect((await list(main())).dashboards.map((b: any) => [b.id, b.position])).toEqual([[mine.id, 0]])
    const onSecond = await get(sharedBoardId(), second())
    expect(onSecond).toMatchObject({ shared_with: [], is_home_shop: true, widget_count: 3 })
    // Its name is free on main again.
    await create({ name: 'Cross-shop ads review' })
  })
})

describe('dashboards: data (spec: Dashboards: POST /dashboards/data)', () => {
  it.each([
    ['7d', '2026-03-02'],
    ['14d', '2026-02-23'],
    ['30d', '2026-02-07'],
    ['90d', '2025-12-09'],
    ['mtd', '2026-03-01'],
    ['qtd', '2026-01-01'],
  ] as const)('dashboards: a board locked to %s reads the range counted back from today ending two days ago (spec: Dashboards: data)', async (preset, from) => {
    const board = await create({ name: `Locked ${preset}`, default_date_range: preset, widgets: [{ type: 'stat', stat_key: 'total_gmv' }] })
    const { filters } = await data(board.id)
    expect(filters.date_range).toEqual({ from, to: '2026-03-08' })
    expect(filters.date_range_source).toBe(`board default (${preset})`)
    expect(statsCalls.at(-1)!.request.date_range).toEqual({ from, to: '2026-03-08' })
  })

  it('dashboards: presets at month and quarter edges: mtd and qtd start on the first day of the end day\'s month and quarter (spec: Dashboards: data)', () => {
    expect(presetRange('mtd', '2026-04-01')).toEqual({ from: '2026-03-01', to: '2026-03-30' })
    expect(presetRange('qtd', '2026-04-01')).toEqual({ from: '2026-01-01', to: '2026-03-30' })
    expect(presetRange('mtd', '2026-04-03')).toEqual({ from: '2026-04-01', to: '2026-04-01' })
    expect(presetRange('qtd', '2026-04-03')).toEqual({ from: '2026-04-01', to: '2026-04-01' })
    expect(presetRange('qtd', '2026-01-02')).toEqual({ from: '2025-10-01', to: '2025-12-31' })
    expect(presetRange('qtd', '2026-12-31')).toEqual({ from: '2026-10-01', to: '2026-12-29' })
    expect(presetRange('7d', '2026-03-01')).toEqual({ from: '2026-02-21', to: '2026-02-27' })
  })

  it('dashboards: date_range_source is exactly request, board default (<preset>) or default (30d) (spec: Dashboards: data)', async () => {
    const unlocked = await create({ name: 'Unlocked', widgets: [{ type: 'stat', stat_key: 'total_gmv' }] })
    const requested = { from: '2026-01-05', to: '2026-01-18' }
    expect((await data(unlocked.id)).filters).toMatchObject({ date_range: { from: '2026-02-07', to: '2026-03-08' }, date_range_source: 'default (30d)' })
    expect((await data(unlocked.id, { date_range: requested })).filters).toMatchObject({ date_range: requested, date_range_source: 'request' })
    expect((await data(sharedBoardId())).filters).toMatchObject({ date_range: { from: '2026-03-02', to: '2026-03-08' }, date_range_source: 'board default (7d)' })
    expect((await data(sharedBoardId(), { date_range: requested })).filters).toMatchObject({ date_range: requested, date_range_source: 'request' })
    expect(await refused('POST /dashboards/data', { dashboard_id: unlocked.id, date_range: { from: '2026-02-02', to: '2026-02-01' } }, 400)).toBe('date_range.from must not be after date_range.to')
  })

  it('dashboards: today is the shop\'s calendar day (or the request timezone\'s) on the mock clock (spec: Dashboards: data; POST /shop/stats rule 1)', async () => {
    state.clock.set('2026-03-10T03:00:00.000Z') // 20:00 on 03-09 in Los Angeles, 12:00 on 03-10 in Tokyo
    const board = await create({ name: 'Zones', widgets: [{ type: 'stat', stat_key: 'total_gmv' }] })
    expect((await data(board.id)).filters).toMatchObject({ date_range: { from: '2026-02-06', to: '2026-03-07' }, timezone: null })
    expect((await data(board.id, { timezone: 'Asia/Tokyo' })).filters).toMatchObject({ date_range: { from: '2026-02-07', to: '2026-03-08' }, timezone: 'Asia/Tokyo' })
    expect(statsCalls.at(-1)!.request.timezone).toBe('Asia/Tokyo')
    expect(await refused('POST /dashboards/data', { dashboard_id: board.id, timezone: 'Mars/Olympus' }, 400)).toBe('timezone: unrecognised IANA timezone "Mars/Olympus"')
    await refused('POST /dashboards/data', { dashboard_id: board.id, grain: 'year' }, 400)
  })

  it('dashboards: grain defaults to the board\'s, else day; the request\'s overrides it (spec: Dashboards: data)', async () => {
    const weekly = await create({ name: 'Weekly', default_grain: 'week', widgets: [{ type: 'stat', stat_key: 'total_gmv' }] })
    const plain = await create({ name: 'Plain', widgets: [{ type: 'stat', stat_key: 'total_gmv' }] })
    expect((await data(weekly.id)).filters.grain).toBe('week')
    expect(statsCalls.at(-1)!.request.grain).toBe('week')
    expect((await data(weekly.id, { grain: 'month' })).filters.grain).toBe('month')
    expect(statsCalls.at(-1)!.request.grain).toBe('month')
    expect((await data(plain.id)).filters.grain).toBe('day')
    expect(statsCalls.at(-1)!.request.grain).toBe('day')
  })

  it('dashboards: the locked product applies on the home shop only; product_id null ignores it; a requested product overrides it (spec: Dashboards: data)', async () => {
    const [p0, p1] = productsOf(second())
    const productsAsked = () => statsCalls.splice(0).map((c) => c.request.product_id)
    expect((await data(sharedBoardId(), {}, second())).filters.product_id).toBe(p0)
    expect(productsAsked()).toEqual([p0, p0, p0])
    expect((await data(sharedBoardId(), {}, main())).filters.product_id).toBeNull()
    expect(productsAsked()).toEqual([null, null, null])
    const ignored = await data(sharedBoardId(), { product_id: null }, second())
    expect(ignored.filters.product_id).toBeNull()
    expect(ignored.warnings).toEqual([])
    expect(productsAsked()).toEqual([null, null, null])
    expect((await data(sharedBoardId(), { product_id: p1 }, second())).filters.product_id).toBe(p1)
    expect(productsAsked()).toEqual([p1, p1, p1])
  })

  it('dashboards: several locked products give whole-shop numbers and a warnings entry (spec: Dashboards: data)', async () => {
    const [p0, p1, p2] = productsOf(second())
    await update(sharedBoardId(), { default_product_ids: [p0, p1, p2] }, second())
    const answer = await data(sharedBoardId(), {}, second())
    expect(answer.filters.product_id).toBeNull()
    expect(answer.warnings).toEqual(['3 products are locked on this board; the numbers are whole-shop, not per product'])
    expect(statsCalls.every((c) => c.request.product_id === null)).toBe(true)
    // The lock is not seen on the shop the board is shared to.
    expect((await data(sharedBoardId(), {}, main())).warnings).toEqual([])
  })

  it('dashboards: each widget\'s stats are computed for the asking shop with the board\'s filters; charts for chart-style stat and stat-chart widgets only (spec: Dashboards: data)', async () => {
    const board = await create({
      name: 'Mixed',
      default_grain: 'week',
      widgets: [
        { type: 'stat', stat_key: 'total_gmv' },
        { type: 'stat', stat_key: 'emv', style: 'numbers', cpm: 12, title: 'EMV at 12' },
        { type: 'stat-chart', stat_keys: ['likes', 'comments'], chart: 'bar', size: 'lg' },
      ],
    })
    const campaignId = state.world.shopData[main().shop_id]!.affiliateCampaigns[0]!.campaign_id
    const answer = await data(board.id, { campaign_id: campaignId, only_show_campaign_stats: true })
    expect(answer.dashboard).toEqual({ id: board.id, name: 'Mixed' })
    expect(answer.filters).toEqual({
      date_range: { from: '2026-02-07', to: '2026-03-08' }, date_range_source: 'default (30d)', grain: 'week', product_id: null,
      campaign_id: campaignId, only_show_campaign_stats: true, timezone: null,
    })
    const common = { date_range: answer.filters.date_range, grain: 'week', product_id: null, campaign_id: campaignId, only_show_campaign_stats: true, timezone: null }
    expect(statsCalls).toEqual([
      { shopId: main().shop_id, request: { ...common, stats: ['total_gmv'], include_charts: true, cpm: 5 } },
      { shopId: main().shop_id, request: { ...common, stats: ['emv'], include_charts: false, cpm: 12 } },
      { shopId: main().shop_id, request: { ...common, stats: ['likes', 'comments'], include_charts: true } },
    ])
    expect(answer.widgets.map((w: any) => [w.id, w.type, w.title, w.size, w.style, w.supported])).toEqual([
      [board.widgets[0].id, 'stat', null, 'xs', 'chart', true],
      [board.widgets[1].id, 'stat', 'EMV at 12', 'xs', 'numbers', true],
      [board.widgets[2].id, 'stat-chart', null, 'lg', 'bar', true],
    ])
    expect(answer.widgets[1].stats.some((s: any) => 'daily_counts' in s)).toBe(false)
    // The numbers are the shop's stats for the same request (POST /shop/stats).
    for (const [i, w] of answer.widgets.entries()) {
      const { product_id: _p, timezone: _t, ...body } = statsCalls[i]!.request
      expect(w.stats).toEqual((await ok('POST /shop/stats', body as Record<string, unknown>)).stats)
    }
  })

  it('dashboards: a board locked to one product shows that product\'s GMV over the locked range on its home shop, the whole shop\'s on the shop it is shared to (spec: Dashboards: data)', async () => {
    const gmvOver = (shop: ShopRecord, range: { from: string; to: string }, productId: string | null) => {
      const { axis } = state.world
      const facts = state.world.shopData[shop.shop_id]!.facts.products
      const ids = productId ? [productId] : productsOf(shop)
      const total = ids.reduce((acc, id) => acc + facts.sum('total_gmv', id, axis.dayIndex(range.from), axis.dayIndex(range.to)), 0)
      return Math.round(total * 100) / 100
    }
    const totalGmv = (answer: any) => answer.widgets[0].stats.find((s: any) => s.key === 'total_gmv').total_count
    const [p0] = productsOf(second())
    const onHome = await data(sharedBoardId(), {}, second())
    expect(onHome.filters.date_range).toEqual({ from: '2026-03-02', to: '2026-03-08' })
    expect(totalGmv(onHome)).toBeGreaterThan(0)
    expect(totalGmv(onHome)).toBeCloseTo(gmvOver(second(), onHome.filters.date_range, p0!), 2)
    const onShared = await data(sharedBoardId(), {}, main())
    expect(totalGmv(onShared)).toBeGreaterThan(totalGmv(onHome))
    expect(totalGmv(onShared)).toBeCloseTo(gmvOver(main(), onShared.filters.date_range, null), 2)
  })

  it('dashboards: a shared board\'s numbers are each asking shop\'s own (spec: Dashboards)', async () => {
    await data(sharedBoardId(), { product_id: null }, main())
    await data(sharedBoardId(), { product_id: null }, second())
    expect(statsCalls.map((c) => c.shopId)).toEqual([...Array(3).fill(main().shop_id), ...Array(3).fill(second().shop_id)])
  })

  it('dashboards: unsupported widget types answer supported false with a note and no stats (spec: Dashboards: data)', async () => {
    await open()
    const overview = await get((await list()).dashboards.find((b: any) => b.seed_key === 'overview').id)
    const answer = await data(overview.id)
    expect(answer.filters.date_range_source).toBe('board default (30d)')
    expect(answer.widgets.map((w: any) => w.id)).toEqual(overview.widgets.map((w: any) => w.id))
    const topProducts = answer.widgets.find((w: any) => w.type === 'top-products')
    expect(topProducts).toEqual({
      id: expect.any(String), type: 'top-products', title: 'Top products', size: 'md', style: null, supported: false,
      note: 'top-products widgets are not computed through the API; open the board in the app to see them',
    })
    expect(answer.widgets.filter((w: any) => w.supported && w.stats.length > 0)).toHaveLength(overview.widgets.length - 1)
    expect(statsCalls).toHaveLength(overview.widgets.length - 1)
  })

  it('dashboards: widget_ids picks widgets (in board order) and answers 400 when one is not on the board (spec: Dashboards: data; Errors 400)', async () => {
    const board = await get(sharedBoardId())
    const [a, , c] = board.widgets
    const picked = await data(board.id, { widget_ids: [c.id, a.id] })
    expect(picked.widgets.map((w: any) => w.id)).toEqual([a.id, c.id])
    expect(statsCalls).toHaveLength(2)
    const absent = '00000000-0000-4000-8000-00000000c0f0'
    expect(await refused('POST /dashboards/data', { dashboard_id: board.id, widget_ids: [a.id, absent] }, 400)).toBe(`widget_ids: widget ${absent} is not on the board`)
    expect((await data(board.id, { widget_ids: [] })).widgets).toEqual([])
  })
})
