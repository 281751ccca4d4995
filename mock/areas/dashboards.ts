/**
 * Dashboards (spec: Dashboards; Resources: Dashboard, Dashboard widget; Errors 400/409/412): the
 * shop's boards, their widgets, and the numbers behind them. Boards live in one account-wide store
 * in the mock's state, so a board shared from its home shop is one board everywhere; the fields
 * that depend on the asking shop (`position`, `is_home_shop`, `default_product_ids`) are derived
 * when a board is shown.
 */
import { Rng } from '../../fixtures/random.ts'
import type { Dashboard, DashboardTemplate, DashboardWidget } from '../../fixtures/types.ts'
import { describeAjvError, STAT_KEYS, type Contract } from '../../openapi/index.ts'
import type { components } from '../../openapi/types.ts'
import { defineAreaState, defineHandler, type AreaModule, type DeepReadonly, type InputOf, type InputNormalizer, type RequestContext } from '../context.ts'
import { acceptCamelCase } from '../normalize.ts'
import { messages } from '../messages.ts'
import { apiError } from '../respond.ts'
import type { MockState } from '../state.ts'
import type { World } from '../world.ts'
import { computeShopStats } from '../lib/stats/compute.ts'
import { assertRangeOrder, assertTimeZone, dateInZone } from '../lib/dates.ts'
import { compareText } from '../lib/sort.ts'

type Schemas = components['schemas']
type Preset = NonNullable<Dashboard['default_date_range']>
type Grain = 'day' | 'week' | 'month'
type WidgetSize = DashboardWidget['size']
type DateRange = { from: string; to: string }

/** The account's boards, shared by all its shops. */
interface DashboardStore {
  /** Every board of the account by id. */
  boards: Map<string, Dashboard>
  /** Per shop: the ids of the boards it shows, in tab order. */
  tabs: Map<string, string[]>
  /** Shops whose default boards exist (spec: created on first dashboard open). */
  defaultsCreated: Set<string>
  /** Per shop: the default boards its first dashboard open creates (from the world). */
  templates: Map<string, readonly DashboardTemplate[]>
  /** The last timestamp handed out, so two changes in one millisecond still differ. */
  lastStampMs: number
  /** Widget and board ids: UUIDs from the world's seed, never Math.random. */
  ids: Rng
}

// spec: Dashboards: create: widget defaults.
const STAT_DEFAULTS = { style: 'chart', size: 'xs', cpm: 5 } as const
const STAT_CHART_DEFAULTS = { chart: 'line', size: 'md' } as const
const STAT_SIZES: readonly WidgetSize[] = ['xs', 'sm', 'md']
const STAT_CHART_SIZES: readonly WidgetSize[] = ['sm', 'md', 'lg']
const DEFAULT_RANGE_DAYS = 30
/** spec: Dashboards: data: the default range ends two days ago. */
const RANGE_END_DAYS_AGO = 2

// ---------------------------------------------------------------------------------------------
// The store and its writes

/**
 * The account's boards (spec: Dashboards: boards belong to the account and show on its shops): a
 * copy of the world's seeded boards, made on the area's first use and dropped by reset. Requests
 * change it only through the named writes below; each takes plain data (the board as the handler
 * validated it, widgets still to be numbered with `id: ''`, and the request's time) and hands out
 * ids and timestamps itself, so replaying the writes on a fresh store gives the same boards.
 */
const dashboardsState = defineAreaState(
  'dashboards',
  (world: World): DashboardStore => {
    const boards = new Map<string, Dashboard>()
    const defaultsCreated = new Set<string>()
    const templates = new Map<string, readonly DashboardTemplate[]>()
    for (const shop of world.shops) {
      const seeded = world.shopData[shop.shop_id]?.dashboards
      if (!seeded) continue
      if (seeded.defaultsCreated) defaultsCreated.add(shop.shop_id)
      templates.set(shop.shop_id, seeded.templates)
      for (const board of seeded.boards) boards.set(board.id, structuredClone(board))
    }
    const tabs = new Map<string, string[]>()
    for (const shop of world.shops) {
      const shown = [...boards.values()].filter((b) => showsOn(b, shop.shop_id))
      shown.sort((a, b) => a.position - b.position || compareText(a.created_at, b.created_at) || compareText(a.id, b.id))
      tabs.set(shop.shop_id, shown.map((b) => b.id))
    }
    return { boards, tabs, defaultsCreated, templates, lastStampMs: 0, ids: Rng.scoped(world.options.seed, 'mock', 'dashboards') }
  },
  {
    /** A new board on its home shop's last tab; its widgets (and then the board) get their ids here. */
    createBoard(store, input: { board: Dashboard; at: string }): Dashboard {
      const widgets = numberWidgets(store, input.board.widgets)
      const at = stamp(store, input.at)
      const board = { ...input.board, id: nextUuid(store), widgets, created_at: at, updated_at: at }
      store.boards.set(board.id, board)
      tabsOf(store, board.home_shop_id).push(board.id)
      return board
    },
    /** The board replaced by its edited copy, `updated_at` moved strictly forward (spec: Dashboards: update). */
    replaceBoard(store, input: { board: Dashboard; at: string }): Dashboard {
      const previous = store.boards.get(input.board.id)!
      const board = { ...input.board, widgets: numberWidgets(store, input.board.widgets), updated_at: stamp(store, input.at, previous.updated_at) }
      store.boards.set(board.id, board)
      return board
    },
    /** spec: Dashboards: delete: everywhere from its home shop; from a shop it is shared to, only there. */
    deleteBoard(store, input: { boardId: string; shopId: string; at: string }): void {
      const board = store.boards.get(input.boardId)!
      const fromShopOnly = board.home_shop_id !== input.shopId
      for (const shopId of fromShopOnly ? [input.shopId] : shopsOf(board)) store.tabs.set(shopId, tabsOf(store, shopId).filter((id) => id !== board.id))
      if (fromShopOnly) store.boards.set(board.id, { ...board, shared_with: board.shared_with.filter((id) => id !== input.shopId), updated_at: stamp(store, input.at, board.updated_at) })
      else store.boards.delete(board.id)
    },
    /** The user archives or restores a board in the app (control API). */
    archiveBoard(store, input: { boardId: string; archived: boolean; at: string }): void {
      const board = store.boards.get(input.boardId)!
      if (board.archived === input.archived) return
      const at = stamp(store, input.at, board.updated_at)
      store.boards.set(board.id, { ...board, archived: input.archived, archived_at: input.archived ? at : null, updated_at: at })
    },
    /**
     * spec: Dashboards: default boards are created on first dashboard open (the user opening the
     * dashboards in the app; API calls only report it as `defaults_created`). The defaults take the
     * next tabs after the boards the shop already shows. Returns how many were created.
     */
    openDefaults(store, input: { shopId: string; at: string }): number {
      if (store.defaultsCreated.has(input.shopId)) return 0
      store.defaultsCreated.add(input.shopId)
      const templates = store.templates.get(input.shopId) ?? []
      for (const template of templates) {
        const at = stamp(store, input.at)
        const board: Dashboard = {
          id: nextUuid(store),
          name: template.name,
          stored_name: '',
          seed_key: template.seed_key,
          home_shop_id: input.shopId,
          shared_with: [],
          position: 0,
          default_date_range: template.default_date_range,
          default_grain: template.default_grain,
          default_product_ids: [],
          archived: false,
          archived_at: null,
          last_viewed_at: null,
          created_by: null,
          created_at: at,
          updated_at: at,
          widgets: template.widgets.map((w) => ({ ...structuredClone(w), id: nextUuid(store) })),
        }
        store.boards.set(board.id, board)
        tabsOf(store, input.shopId).push(board.id)
      }
      return templates.length
    },
  },
  // Boards do not come with the clock: kept when the world's view moves.
  { stableAcrossViews: true },
)

/** The store as requests read it (changed only through dashboardsState's writes). */
type Store = DeepReadonly<DashboardStore>
const dashboardStore = (state: MockState): Store => state.read(dashboardsState)

const showsOn = (board: DeepReadonly<Dashboard>, shopId: string): boolean => board.home_shop_id === shopId || board.shared_with.includes(shopId)

/** The shops a board shows on: its home shop, then the shops it is shared to. */
const shopsOf = (board: DeepReadonly<Dashboard>): string[] => [board.home_shop_id, ...board.shared_with]

/** The ids of the boards a shop shows, in tab order. */
const tabsShown = (store: Store, shopId: string): readonly string[] => store.tabs.get(shopId) ?? []

const tabsOf = (store: DashboardStore, shopId: string): string[] => {
  let tabs = store.tabs.get(shopId)
  if (!tabs) store.tabs.set(shopId, (tabs = []))
  return tabs
}

/** A random-looking version 4 UUID from the store's seeded generator. */
function nextUuid(store: DashboardStore): string {
  const hex = Array.from({ length: 32 }, () => store.ids.int(0, 15).toString(16))
  hex[12] = '4'
  hex[16] = ((store.ids.int(0, 3) & 0x3) | 0x8).toString(16)
  const s = hex.join('')
  return `${s.slice(0, 8)}-${s.slice(8, 12)}-${s.slice(12, 16)}-${s.slice(16, 20)}-${s.slice(20)}`
}

/** The widgets with an id each: a widget the request added (`id: ''`) gets a new one, in board order. */
const numberWidgets = (store: DashboardStore, widgets: DashboardWidget[]): DashboardWidget[] =>
  widgets.map((w) => (w.id === '' ? { ...w, id: nextUuid(store) } : w))

/**
 * A timestamp for a change: the request's time, but always later than any timestamp handed out
 * before and than `after`, so `updated_at` strictly advances (the 412 rule depends on it).
 */
function stamp(store: DashboardStore, now: string, after?: string): string {
  const floor = Math.max(store.lastStampMs, after ? Date.parse(after) : 0) + 1
  store.lastStampMs = Math.max(Date.parse(now), floor)
  return new Date(store.lastStampMs).toISOString()
}

// ---------------------------------------------------------------------------------------------
// Views

/** A board as the asking shop sees it (spec: Resources: Dashboard). */
function boardView(store: Store, board: DeepReadonly<Dashboard>, shopId: string, withWidgets: boolean): Schemas['Dashboard'] {
  const isHome = board.home_shop_id === shopId
  const view: Schemas['Dashboard'] = {
    id: board.id,
    name: board.name,
    stored_name: board.stored_name,
    seed_key: board.seed_key,
    home_shop_id: board.home_shop_id,
    is_home_shop: isHome,
    shared_with: [...board.shared_with],
    position: tabsShown(store, shopId).indexOf(board.id),
    widget_count: board.widgets.length,
    default_date_range: board.default_date_range,
    default_grain: board.default_grain,
    // spec: Resources: Dashboard: always empty on a shop the board is shared to.
    default_product_ids: isHome ? [...board.default_product_ids] : [],
    archived: board.archived,
    archived_at: board.archived_at,
    last_viewed_at: board.last_viewed_at,
    created_by: board.created_by,
    created_at: board.created_at,
    updated_at: board.updated_at,
  }
  if (withWidgets) view.widgets = structuredClone(board.widgets) as DashboardWidget[]
  return view
}

/** The board `dashboard_id` names if the shop shows it; 404 otherwise (status inferred). */
function findBoard(store: Store, shopId: string, id: string): DeepReadonly<Dashboard> {
  const board = store.boards.get(id)
  if (!board || !showsOn(board, shopId)) throw apiError(404, `Dashboard not found: ${id}`)
  return board
}

const sameName = (a: string, b: string): boolean => a.trim().toLowerCase() === b.trim().toLowerCase()

/** The name, trimmed; 400 when only blanks remain (spec: Limits: name 1-60 characters). */
function boardName(name: string): string {
  const trimmed = name.trim()
  if (!trimmed) throw apiError(400, 'name must have 1-60 characters that are not blank')
  return trimmed
}

/** spec: Dashboards: names are unique among the boards of a shop (409), for every shop given. */
function assertNameFree(store: Store, shopIds: string[], name: string, except?: string): void {
  for (const shopId of shopIds) {
    for (const id of tabsShown(store, shopId)) {
      const other = store.boards.get(id)
      if (other && other.id !== except && sameName(other.name, name)) {
        throw apiError(409, `A dashboard named "${other.name}" already exists on shop ${shopId}`)
      }
    }
  }
}

/** Locked products: ids of the shop's products, without repeats; 400 on an unknown one. */
function productIds(ctx: RequestContext, shopId: string, ids: string[]): string[] {
  const known = new Set(ctx.world.shopData[shopId]?.products.map((p) => p.product_id) ?? [])
  const unknown = ids.find((id) => !known.has(id))
  if (unknown !== undefined) throw apiError(400, `default_product_ids: ${unknown} is not a product of shop ${shopId}`)
  return [...new Set(ids)]
}

// ---------------------------------------------------------------------------------------------
// Widgets (spec: Resources: Dashboard widget; Dashboards: create, update)

/**
 * The settings of a stat or stat-chart widget given at top level or nested under `config`: one shape
 * for both widget types and the update entries, so that one function validates them all
 * (asWidgetInput reads the contract's typed widget inputs through it).
 */
interface WidgetInput {
  id?: string
  type?: string
  stat_key?: string
  stat_keys?: string[]
  style?: 'chart' | 'numbers'
  chart?: 'line' | 'bar'
  size?: WidgetSize
  cpm?: number
  title?: string
  config?: { statKey?: string; statKeys?: string[]; style?: 'chart' | 'numbers'; cpm?: number; chart?: 'line' | 'bar' }
}

/** Fields of the other API-managed type, each as a top-level and a `config` name. */
const FOREIGN_FIELDS: Record<'stat' | 'stat-chart', Array<[string, string]>> = {
  stat: [['stat_keys', 'statKeys'], ['chart', 'chart']],
  'stat-chart': [['stat_key', 'statKey'], ['style', 'style'], ['cpm', 'cpm']],
}

const STAT_KEY_SET: ReadonlySet<string> = new Set(STAT_KEYS)

function assertStatKey(key: string, field: string): void {
  if (!STAT_KEY_SET.has(key)) throw apiError(400, `${field}: unknown stat key "${key}" (not a stat key of POST /shop/stats)`)
}

/** 400 on a field of the other API-managed type, at top level or under `config` (the contract says so with `not`). */
function assertOwnFields(input: { config?: unknown }, type: 'stat' | 'stat-chart', path: string): void {
  const config = (input.config && typeof input.config === 'object' ? input.config : {}) as Record<string, unknown>
  for (const [top, nested] of FOREIGN_FIELDS[type]) {
    if ((input as Record<string, unknown>)[top] !== undefined) throw apiError(400, `${path}.${top} does not apply to a ${type} widget`)
    if (config[nested] !== undefined) throw apiError(400, `${path}.config.${nested} does not apply to a ${type} widget`)
  }
}

/**
 * The settings an input gives for a widget of `type` (top level first, then `config`), checked:
 * unknown stat keys, fields of the other type and sizes the type does not take are 400.
 */
function widgetSettings(input: WidgetInput, type: 'stat' | 'stat-chart', path: string) {
  const config = input.config ?? {}
  assertOwnFields(input, type, path)
  const sizes = type === 'stat' ? STAT_SIZES : STAT_CHART_SIZES
  if (input.size !== undefined && !sizes.includes(input.size)) throw apiError(400, `${path}.size must be one of ${sizes.join(', ')} for a ${type} widget`)
  const statKey = input.stat_key ?? config.statKey
  if (statKey !== undefined) assertStatKey(statKey, `${path}.stat_key`)
  const statKeys = input.stat_keys ?? config.statKeys
  if (statKeys !== undefined) {
    statKeys.forEach((key, i) => assertStatKey(key, `${path}.stat_keys[${i}]`))
    if (new Set(statKeys).size !== statKeys.length) throw apiError(400, `${path}.stat_keys must not repeat a stat key`)
  }
  return { statKey, statKeys, style: input.style ?? config.style, chart: input.chart ?? config.chart, cpm: input.cpm ?? config.cpm, size: input.size, title: input.title }
}

/** A widget of a create or update body, read through WidgetInput (see there). */
const asWidgetInput = (value: InputOf<'createDashboard'>['widgets'] extends Array<infer W> | undefined ? W : never): WidgetInput => value as WidgetInput

/** A new stat or stat-chart widget with the spec's defaults (spec: Dashboards: create); its id (`''`) is given by the write that stores it. */
function newWidget(input: WidgetInput, path: string): DashboardWidget {
  const type = input.type ?? 'stat'
  if (type !== 'stat' && type !== 'stat-chart') throw apiError(400, `${path}.type: only stat and stat-chart widgets can be created through the API, not ${type}`)
  const s = widgetSettings(input, type, path)
  const base = { id: '', type, title: s.title ?? null, col: null, api_editable: true }
  if (type === 'stat') {
    if (s.statKey === undefined) throw apiError(400, `${path}.stat_key is required for a stat widget (or config.statKey)`)
    return { ...base, size: s.size ?? STAT_DEFAULTS.size, config: { statKey: s.statKey, style: s.style ?? STAT_DEFAULTS.style, cpm: s.cpm ?? STAT_DEFAULTS.cpm } }
  }
  if (s.statKeys === undefined) throw apiError(400, `${path}.stat_keys is required for a stat-chart widget (or config.statKeys)`)
  return { ...base, size: s.size ?? STAT_CHART_DEFAULTS.size, config: { statKeys: s.statKeys, chart: s.chart ?? STAT_CHART_DEFAULTS.chart } }
}

/** A kept widget with the stat fields an entry of `widgets` changes (spec: Dashboards: update). */
function editedWidget(widget: DashboardWidget, entry: WidgetInput, path: string): DashboardWidget {
  const { id: _id, ...changes } = entry
  if (widget.type !== 'stat' && widget.type !== 'stat-chart') {
    if (Object.keys(changes).length) throw apiError(400, `${path}: widget ${widget.id} is a ${widget.type} widget, which the API keeps but cannot edit`)
    return widget
  }
  if (entry.type !== undefined && entry.type !== widget.type) throw apiError(400, `${path}.type: widget ${widget.id} is a ${widget.type} widget; its type cannot change`)
  const s = widgetSettings(entry, widget.type, path)
  const config = { ...widget.config }
  if (widget.type === 'stat') {
    if (s.statKey !== undefined) config.statKey = s.statKey
    if (s.style !== undefined) config.style = s.style
    if (s.cpm !== undefined) config.cpm = s.cpm
  } else {
    if (s.statKeys !== undefined) config.statKeys = s.statKeys
    if (s.chart !== undefined) config.chart = s.chart
  }
  return { ...widget, size: s.size ?? widget.size, title: s.title ?? widget.title, config }
}

/** The complete new widget list of an update: known ids kept (and edited), others new, the rest removed. */
function replacedWidgets(board: Dashboard, entries: WidgetInput[]): DashboardWidget[] {
  const byId = new Map(board.widgets.map((w) => [w.id, w]))
  const kept = new Set<string>()
  return entries.map((entry, i) => {
    const path = `widgets[${i}]`
    const known = entry.id !== undefined ? byId.get(entry.id) : undefined
    if (!known) return newWidget(entry, path)
    if (kept.has(known.id)) throw apiError(400, `${path}.id: widget ${known.id} appears twice in widgets`)
    kept.add(known.id)
    return editedWidget(known, entry, path)
  })
}

// ---------------------------------------------------------------------------------------------
// Handlers

// spec: Dashboards: list: tab order, no widgets, include_archived default true.
const listDashboards = defineHandler('listDashboards', (ctx) => {
  const { shop } = ctx
  const store = dashboardStore(ctx.state)
  const includeArchived = ctx.input.include_archived ?? true
  const dashboards = tabsShown(store, shop.shop_id)
    .map((id) => store.boards.get(id)!)
    .filter((b) => includeArchived || !b.archived)
    .map((b) => boardView(store, b, shop.shop_id, false))
  return { status: 200, body: { data: { dashboards, total_count: dashboards.length, defaults_created: store.defaultsCreated.has(shop.shop_id) } } }
})

// spec: Dashboards: get: the board and its widgets in board order.
const getDashboard = defineHandler('getDashboard', (ctx) => {
  const { shop } = ctx
  const store = dashboardStore(ctx.state)
  const board = findBoard(store, shop.shop_id, ctx.input.dashboard_id)
  return { status: 200, body: { data: boardView(store, board, shop.shop_id, true) } }
})

// spec: Dashboards: create: 201 with the board as get returns it.
const createDashboard = defineHandler('createDashboard', (ctx) => {
  const { shop, input } = ctx
  const store = dashboardStore(ctx.state)
  const name = boardName(input.name)
  const widgets = (input.widgets ?? []).map((w, i) => newWidget(asWidgetInput(w), `widgets[${i}]`))
  const lockedProducts = productIds(ctx, shop.shop_id, input.default_product_ids ?? [])
  assertNameFree(store, [shop.shop_id], name)
  const board: Dashboard = {
    id: '',
    name,
    stored_name: name,
    seed_key: null,
    home_shop_id: shop.shop_id,
    shared_with: [],
    position: 0,
    default_date_range: input.default_date_range ?? null,
    default_grain: input.default_grain ?? null,
    default_product_ids: lockedProducts,
    archived: false,
    archived_at: null,
    last_viewed_at: null,
    created_by: ctx.apiKey ? `api-key:${ctx.apiKey.label}` : null,
    created_at: '',
    updated_at: '',
    widgets,
  }
  const created = ctx.state.write(dashboardsState, 'createBoard', { board, at: ctx.now.toISOString() })
  return { status: 201, body: { data: boardView(store, created, shop.shop_id, true) } }
})

// spec: Dashboards: update.
const updateDashboard = defineHandler('updateDashboard', (ctx) => {
  const { shop, input } = ctx
  const store = dashboardStore(ctx.state)
  const board = structuredClone(findBoard(store, shop.shop_id, input.dashboard_id)) as Dashboard

  // spec: Errors: 412 when expected_updated_at is older than the board's updated_at.
  if (input.expected_updated_at !== undefined && Date.parse(input.expected_updated_at) < Date.parse(board.updated_at)) {
    throw apiError(412, messages.dashboardChanged(board.updated_at))
  }

  const next: Dashboard = structuredClone(board)
  if (input.name !== undefined) {
    next.name = boardName(input.name)
    next.stored_name = next.name
    // spec: Dashboards: update: 409 if the name is taken on any shop the board shows on.
    assertNameFree(store, shopsOf(board), next.name, board.id)
  }
  if (input.widgets !== undefined) next.widgets = replacedWidgets(board, input.widgets)
  if (input.remove_widget_ids !== undefined) {
    const onBoard = new Set(board.widgets.map((w) => w.id))
    const absent = input.remove_widget_ids.find((id) => !onBoard.has(id))
    if (absent !== undefined) throw apiError(400, `remove_widget_ids: widget ${absent} is not on the board`)
    const removed = new Set(input.remove_widget_ids)
    next.widgets = next.widgets.filter((w) => !removed.has(w.id))
  }
  if (input.add_widgets !== undefined) next.widgets.push(...input.add_widgets.map((w, i) => newWidget(asWidgetInput(w), `add_widgets[${i}]`)))
  if (input.default_date_range !== undefined) next.default_date_range = input.default_date_range
  if (input.default_grain !== undefined) next.default_grain = input.default_grain
  if (input.default_product_ids !== undefined) {
    if (board.home_shop_id === shop.shop_id) next.default_product_ids = productIds(ctx, shop.shop_id, input.default_product_ids)
    // spec: Dashboards: update: 400 on a shop the board is only shared to. `[]` is what that shop
    // sees already, so sending it back unchanged is accepted and leaves the home shop's lock alone.
    else if (input.default_product_ids.length) throw apiError(400, 'default_product_ids cannot be locked on a shop the board is only shared to')
  }

  // spec: Dashboards: updated_at advances on every change (and only then).
  const changed = JSON.stringify(next) !== JSON.stringify(board)
  const shown = changed ? ctx.state.write(dashboardsState, 'replaceBoard', { board: next, at: ctx.now.toISOString() }) : board
  return { status: 200, body: { data: boardView(store, shown, shop.shop_id, true) } }
})

// spec: Dashboards: delete: for everyone with its share links, or from a shared-to shop only.
const deleteDashboard = defineHandler('deleteDashboard', (ctx) => {
  const { shop } = ctx
  const board = findBoard(dashboardStore(ctx.state), shop.shop_id, ctx.input.dashboard_id)
  ctx.state.write(dashboardsState, 'deleteBoard', { boardId: board.id, shopId: shop.shop_id, at: ctx.now.toISOString() })
  return { status: 200, body: { data: { dashboard_id: board.id, name: board.name, deleted: true, removed_from_shop_only: board.home_shop_id !== shop.shop_id } } }
})

// ---------------------------------------------------------------------------------------------
// Data (spec: Dashboards: POST /dashboards/data)

const addDays = (date: string, days: number): string => {
  const d = new Date(`${date}T00:00:00Z`)
  d.setUTCDate(d.getUTCDate() + days)
  return d.toISOString().slice(0, 10)
}

/**
 * A preset counted back from `today`, ending two days ago (spec: Dashboards: data):
 * `Nd` is the N days ending then; `mtd` runs from the first of that end day's month, `qtd` from the
 * first day of its quarter (January, April, July, October).
 */
export function presetRange(preset: Preset, today: string): DateRange {
  const to = addDays(today, -RANGE_END_DAYS_AGO)
  const [year, month] = to.split('-').map(Number) as [number, number]
  const pad = (m: number) => String(m).padStart(2, '0')
  switch (preset) {
    case 'mtd':
      return { from: `${year}-${pad(month)}-01`, to }
    case 'qtd':
      return { from: `${year}-${pad(month - ((month - 1) % 3))}-01`, to }
    default:
      return { from: addDays(to, 1 - Number.parseInt(preset, 10)), to }
  }
}


const getDashboardData = defineHandler('getDashboardData', (ctx) => {
  const { shop, input } = ctx
  const store = dashboardStore(ctx.state)
  const board = findBoard(store, shop.shop_id, input.dashboard_id)
  const isHome = board.home_shop_id === shop.shop_id

  const onBoard = new Set(board.widgets.map((w) => w.id))
  const absent = input.widget_ids?.find((id) => !onBoard.has(id))
  if (absent !== undefined) throw apiError(400, `widget_ids: widget ${absent} is not on the board`)
  if (input.timezone !== undefined) assertTimeZone(input.timezone)
  if (input.date_range) assertRangeOrder(input.date_range.from, input.date_range.to, 'date_range')

  // Request filters override the board's.
  const today = dateInZone(ctx.now, input.timezone ?? shop.timezone)
  const preset = board.default_date_range
  const [dateRange, dateRangeSource] = input.date_range
    ? [input.date_range, 'request']
    : preset
      ? [presetRange(preset, today), `board default (${preset})`]
      : [presetRange(`${DEFAULT_RANGE_DAYS}d` as Preset, today), `default (${DEFAULT_RANGE_DAYS}d)`]
  const grain: Grain = input.grain ?? board.default_grain ?? 'day'
  const warnings: string[] = []
  let productId: string | null = null
  if ('product_id' in input) productId = input.product_id ?? null
  else if (isHome && board.default_product_ids.length === 1) productId = board.default_product_ids[0]!
  else if (isHome && board.default_product_ids.length > 1) {
    warnings.push(`${board.default_product_ids.length} products are locked on this board; the numbers are whole-shop, not per product`)
  }
  const filters = {
    date_range: dateRange,
    date_range_source: dateRangeSource,
    grain,
    product_id: productId,
    campaign_id: input.campaign_id ?? null,
    only_show_campaign_stats: input.only_show_campaign_stats ?? false,
    timezone: input.timezone ?? null,
  }

  const { date_range_source: _source, ...statsFilters } = filters
  const wanted = input.widget_ids ? new Set(input.widget_ids) : undefined
  const widgets = board.widgets
    .filter((w) => !wanted || wanted.has(w.id))
    .map((w) => {
      const head = { id: w.id, type: w.type, title: w.title, size: w.size }
      if (w.type !== 'stat' && w.type !== 'stat-chart') {
        return { ...head, style: w.config.style ?? null, supported: false, note: `${w.type} widgets are not computed through the API; open the board in the app to see them` }
      }
      const isStat = w.type === 'stat'
      // Charts: stat widgets styled `chart` and every stat-chart widget.
      const stats = computeShopStats(ctx.state, shop, {
        ...statsFilters,
        stats: isStat ? [w.config.statKey!] : [...w.config.statKeys!],
        include_charts: isStat ? w.config.style === 'chart' : true,
        ...(isStat && w.config.cpm !== undefined ? { cpm: w.config.cpm } : {}),
      })
      return { ...head, style: (isStat ? w.config.style : w.config.chart) ?? null, supported: true, stats }
    })
  return { status: 200, body: { data: { dashboard: { id: board.id, name: board.name }, filters, widgets, warnings } } }
})

// ---------------------------------------------------------------------------------------------
// Control API

/** `dashboards/open {shop_id}`: the user opens the dashboards in the app, creating the default boards. */
const openAction = (state: MockState, input: Record<string, unknown>) => {
  const shop = state.findShop(String(input.shop_id ?? ''))
  if (!shop) throw apiError(400, 'shop_id must name a shop of the account')
  const created = state.write(dashboardsState, 'openDefaults', { shopId: shop.shop_id, at: state.clock.now().toISOString() })
  return { shop_id: shop.shop_id, defaults_created: true, created }
}

/** `dashboards/archive {dashboard_id, archived?}`: the user archives (or restores) a board in the app. */
const archiveAction = (state: MockState, input: Record<string, unknown>) => {
  const board = dashboardStore(state).boards.get(String(input.dashboard_id ?? ''))
  if (!board) throw apiError(404, `Dashboard not found: ${String(input.dashboard_id)}`)
  const archived = input.archived ?? true
  if (typeof archived !== 'boolean') throw apiError(400, 'archived must be a boolean')
  state.write(dashboardsState, 'archiveBoard', { boardId: board.id, archived, at: state.clock.now().toISOString() })
  return { dashboard_id: board.id, archived }
}

// Two rules the contract encodes as `oneOf` and `not`, checked before the schema so that the 400
// names the rule rather than the first failing branch (spec: Dashboards: create, update; Errors 400).

/** The contract's schema of a new widget of `type` (compiled once per contract by its validators). */
const widgetInputCheck = (contract: Contract, type: 'stat' | 'stat-chart') => {
  const name = type === 'stat' ? 'DashboardStatWidgetInput' : 'DashboardStatChartWidgetInput'
  return contract.validators.compile(`dashboards:${name}`, { $ref: `#/components/schemas/${name}` })
}

/**
 * 400 on a widget of another type than stat or stat-chart in `input[field]`, and on a widget that
 * does not match its own type's schema (the contract's `oneOf` would report the first branch's error).
 */
/**
 * 400 naming the stat key when an entry of `input[field]` has one that is not a stat key, before the
 * contract's `StatKey` enum would answer with its whole list (spec: Dashboards: create).
 */
function checkStatKeys(input: Record<string, unknown>, field: string): void {
  const list: unknown = input[field]
  if (!Array.isArray(list)) return
  list.forEach((w: unknown, i) => {
    if (!w || typeof w !== 'object') return
    const entry = w as { stat_key?: unknown; stat_keys?: unknown; config?: { statKey?: unknown; statKeys?: unknown } }
    const config = entry.config && typeof entry.config === 'object' ? entry.config : {}
    for (const key of [entry.stat_key, config.statKey]) if (typeof key === 'string') assertStatKey(key, `${field}[${i}].stat_key`)
    for (const keys of [entry.stat_keys, config.statKeys]) {
      if (!Array.isArray(keys)) continue
      for (const [k, key] of keys.entries()) if (typeof key === 'string') assertStatKey(key, `${field}[${i}].stat_keys[${k}]`)
    }
  })
}

function checkNewWidgets(contract: Contract, input: Record<string, unknown>, field: string): void {
  checkStatKeys(input, field)
  const list: unknown = input[field]
  if (!Array.isArray(list)) return
  list.forEach((w: unknown, i) => {
    const type = (w as { type?: unknown } | null)?.type
    if (typeof type !== 'string') return
    if (type !== 'stat' && type !== 'stat-chart') {
      throw apiError(400, `${field}[${i}].type: only stat and stat-chart widgets can be created through the API, not ${type}`)
    }
    // The twin's own messages first (they say why), then the contract's schema.
    assertOwnFields(w as { config?: unknown }, type, `${field}[${i}]`)
    const keys = (w as { stat_keys?: unknown; config?: { statKeys?: unknown } }).stat_keys ?? (w as { config?: { statKeys?: unknown } }).config?.statKeys
    if (Array.isArray(keys) && new Set(keys).size !== keys.length) throw apiError(400, `${field}[${i}].stat_keys must not repeat a stat key`)
    const check = widgetInputCheck(contract, type)
    if (!check(w)) {
      const error = check.errors![0]!
      throw apiError(400, describeAjvError({ ...error, instancePath: `/${field}/${i}${error.instancePath}` }, 'body'))
    }
  })
}

const createRules: InputNormalizer = (input, _op, contract) => {
  checkNewWidgets(contract, input, 'widgets')
  return input
}

const updateRules: InputNormalizer = (input, _op, contract) => {
  if (input.widgets !== undefined && (input.add_widgets !== undefined || input.remove_widget_ids !== undefined)) {
    throw apiError(400, 'widgets (the complete list) cannot be combined with add_widgets or remove_widget_ids')
  }
  checkNewWidgets(contract, input, 'add_widgets')
  checkStatKeys(input, 'widgets')
  checkUpdateEntries(input)
  return input
}

/**
 * The rules of update's `widgets` entries that hold whatever the board holds (the contract's
 * DashboardWidgetUpdateEntry `allOf`), with the twin's messages rather than the schema's `not`: a
 * typed entry takes its type's fields; an entry without `id` is a new widget with its stat key(s).
 */
function checkUpdateEntries(input: Record<string, unknown>): void {
  const list: unknown = input.widgets
  if (!Array.isArray(list)) return
  list.forEach((w: unknown, i) => {
    if (!w || typeof w !== 'object' || Array.isArray(w)) return
    const entry = w as WidgetInput
    const type = entry.type ?? (entry.id === undefined ? 'stat' : undefined)
    if (type !== 'stat' && type !== 'stat-chart') return
    const path = `widgets[${i}]`
    assertOwnFields(entry, type, path)
    if (entry.id !== undefined) return
    const config = (entry.config ?? {}) as { statKey?: unknown; statKeys?: unknown }
    if (type === 'stat' && entry.stat_key === undefined && config.statKey === undefined) throw apiError(400, `${path}.stat_key is required for a stat widget (or config.statKey)`)
    if (type === 'stat-chart' && entry.stat_keys === undefined && config.statKeys === undefined) throw apiError(400, `${path}.stat_keys is required for a stat-chart widget (or config.statKeys)`)
  })
}

export const dashboards: AreaModule = {
  handlers: { listDashboards, getDashboard, getDashboardData, createDashboard, updateDashboard, deleteDashboard },
  // spec: Conventions 4: the GET forms also take camelCase keys.
  normalizers: {
    listDashboardsGet: acceptCamelCase(),
    getDashboardGet: acceptCamelCase(),
    createDashboard: createRules,
    updateDashboard: updateRules,
  },
  adminActions: { 'dashboards/open': openAction, 'dashboards/archive': archiveAction },
}
