/**
 * Dashboards: list, get, create, update (with `expected_updated_at` and its 412), delete
 * (spec: Dashboards; Resources: Dashboard, Dashboard widget; Limits: Dashboards).
 */
import { apiError } from '../errors.ts'
import { STAT_KEYS } from '../world.ts'
import type { Define, SpecState } from '../index.ts'

const DATE_RANGES = new Set(['7d', '14d', '30d', '90d', 'mtd', 'qtd'])
const GRAINS = new Set(['day', 'week', 'month'])

interface Widget {
  id: string
  type: 'stat' | 'stat-chart'
  size: string
  title: string | null
  config: Record<string, unknown>
  col: number | null
  api_editable: boolean
}

export interface Board {
  id: string
  name: string
  home_shop_id: string
  position: number
  default_date_range: string | null
  default_grain: string | null
  default_product_ids: string[]
  created_at: string
  updated_at: string
  widgets: Widget[]
}

const oneOf = (value: unknown, allowed: Set<string> | string[], field: string): string => {
  const set = Array.isArray(allowed) ? new Set(allowed) : allowed
  if (typeof value !== 'string' || !set.has(value)) throw apiError(400, `${field} must be one of ${[...set].join(', ')}`)
  return value
}

const statKey = (value: unknown, field: string): string => {
  if (typeof value !== 'string' || !STAT_KEYS.has(value)) throw apiError(400, `${field}: unknown stat key ${JSON.stringify(value)}`)
  return value
}

const title = (value: unknown): string | null => {
  if (value === undefined || value === null) return null
  if (typeof value !== 'string' || value.length > 80) throw apiError(400, 'widget title must be a string of at most 80 characters')
  return value
}

function name(value: unknown): string {
  if (typeof value !== 'string' || value.length < 1 || value.length > 60) throw apiError(400, 'name must be 1-60 characters')
  return value
}

export function dashboardRoutes(define: Define, state: SpecState): void {
  const boards = (shopId: string) => {
    if (!state.dashboards.has(shopId)) state.dashboards.set(shopId, new Map())
    return state.dashboards.get(shopId)!
  }
  const find = (shopId: string, id: unknown): Board => {
    if (typeof id !== 'string' || !id) throw apiError(400, 'dashboard_id is required')
    const board = boards(shopId).get(id)
    if (!board) throw apiError(404, 'Dashboard not found')
    return board
  }
  const stamp = (previous?: string) => {
    // updated_at moves forward on every change, even two in one millisecond (412 compares them).
    const at = Math.max(state.now(), previous ? Date.parse(previous) + 1 : 0)
    return new Date(at).toISOString()
  }
  const uuid = () => `00000000-0000-4000-8000-${(++state.sequence).toString(16).padStart(12, '0')}`

  /** spec: Dashboards: create: the widget settings of `stat` and `stat-chart`, flat or nested under `config`. */
  function widget(raw: any): Widget {
    if (!raw || typeof raw !== 'object') throw apiError(400, 'each widget must be an object')
    const config = raw.config && typeof raw.config === 'object' ? raw.config : {}
    if (raw.type === 'stat') {
      const cpm = raw.cpm ?? config.cpm ?? 5
      if (typeof cpm !== 'number' || cpm < 0 || cpm > 1000) throw apiError(400, 'cpm must be a number from 0 to 1000')
      return {
        id: uuid(),
        type: 'stat',
        size: oneOf(raw.size ?? 'xs', ['xs', 'sm', 'md'], 'size'),
        title: title(raw.title),
        config: { statKey: statKey(raw.stat_key ?? config.statKey, 'stat_key'), style: oneOf(raw.style ?? config.style ?? 'chart', ['chart', 'numbers'], 'style'), cpm },
        col: null,
        api_editable: true,
      }
    }
    if (raw.type === 'stat-chart') {
      const keys = raw.stat_keys ?? config.statKeys
      if (!Array.isArray(keys) || keys.length < 1 || keys.length > 6) throw apiError(400, 'stat_keys must have 1-6 stat keys')
      return {
        id: uuid(),
        type: 'stat-chart',
        size: oneOf(raw.size ?? 'md', ['sm', 'md', 'lg'], 'size'),
        title: title(raw.title),
        config: { statKeys: keys.map((k: unknown) => statKey(k, 'stat_keys')), chart: oneOf(raw.chart ?? config.chart ?? 'line', ['line', 'bar'], 'chart') },
        col: null,
        api_editable: true,
      }
    }
    throw apiError(400, `unsupported widget type ${JSON.stringify(raw.type)}`)
  }

  function productIds(value: unknown): string[] {
    if (!Array.isArray(value) || value.length > 50 || value.some((v) => typeof v !== 'string')) throw apiError(400, 'default_product_ids must be at most 50 product ids')
    return value
  }

  function nameFree(shopId: string, wanted: string, except?: string): void {
    for (const board of boards(shopId).values()) if (board.name === wanted && board.id !== except) throw apiError(409, `A dashboard named ${JSON.stringify(wanted)} already exists`)
  }

  /** spec: Resources: Dashboard (with a get: widgets). Sharing is not modelled: every board is on its home shop. */
  const view = (board: Board, withWidgets: boolean) => ({
    id: board.id,
    name: board.name,
    stored_name: board.name,
    seed_key: null,
    home_shop_id: board.home_shop_id,
    is_home_shop: true,
    shared_with: [],
    position: board.position,
    widget_count: board.widgets.length,
    default_date_range: board.default_date_range,
    default_grain: board.default_grain,
    default_product_ids: board.default_product_ids,
    archived: false,
    archived_at: null,
    last_viewed_at: null,
    created_by: 'api',
    created_at: board.created_at,
    updated_at: board.updated_at,
    ...(withWidgets ? { widgets: board.widgets } : {}),
  })

  define('POST', '/dashboards/list', { shop: true }, (c) => {
    const all = [...boards(c.get('shop').shop_id).values()].sort((a, b) => a.position - b.position)
    // spec: default boards are created on first dashboard open (in the dashboard, not the API); none here.
    return c.json({ data: { dashboards: all.map((b) => view(b, false)), total_count: all.length, defaults_created: false } })
  })

  define('POST', '/dashboards/get', { shop: true }, (c) => c.json({ data: view(find(c.get('shop').shop_id, c.get('body').dashboard_id), true) }))

  define('POST', '/dashboards/create', { shop: true }, (c) => {
    const body = c.get('body')
    const shopId = c.get('shop').shop_id
    const boardName = name(body.name)
    const rawWidgets = body.widgets ?? []
    if (!Array.isArray(rawWidgets) || rawWidgets.length > 160) throw apiError(400, 'widgets must be an array of at most 160 widgets')
    const widgets = rawWidgets.map(widget)
    nameFree(shopId, boardName)
    const at = stamp()
    const board: Board = {
      id: `board-${String(++state.sequence).padStart(6, '0')}`,
      name: boardName,
      home_shop_id: shopId,
      position: boards(shopId).size,
      default_date_range: body.default_date_range === undefined || body.default_date_range === null ? null : oneOf(body.default_date_range, DATE_RANGES, 'default_date_range'),
      default_grain: body.default_grain === undefined || body.default_grain === null ? null : oneOf(body.default_grain, GRAINS, 'default_grain'),
      default_product_ids: body.default_product_ids === undefined ? [] : productIds(body.default_product_ids),
      created_at: at,
      updated_at: at,
      widgets,
    }
    boards(shopId).set(board.id, board)
    return c.json({ data: view(board, true) }, 201)
  })

  define('POST', '/dashboards/update', { shop: true }, (c) => {
    const body = c.get('body')
    const shopId = c.get('shop').shop_id
    const board = find(shopId, body.dashboard_id)
    if (body.expected_updated_at !== undefined) {
      const expected = typeof body.expected_updated_at === 'string' ? Date.parse(body.expected_updated_at) : NaN
      if (!Number.isFinite(expected)) throw apiError(400, 'expected_updated_at must be an ISO timestamp')
      // spec: Errors: "412 | expected_updated_at older than the board's updated_at | re-read and reapply".
      if (expected < Date.parse(board.updated_at)) throw apiError(412, 'The dashboard changed since expected_updated_at; re-read it and reapply')
    }
    if (body.widgets !== undefined && (body.add_widgets !== undefined || body.remove_widget_ids !== undefined)) {
      throw apiError(400, 'widgets cannot be combined with add_widgets or remove_widget_ids')
    }
    const next = { ...board, widgets: [...board.widgets] }
    if (body.name !== undefined) {
      next.name = name(body.name)
      nameFree(shopId, next.name, board.id)
    }
    if (body.remove_widget_ids !== undefined) {
      if (!Array.isArray(body.remove_widget_ids)) throw apiError(400, 'remove_widget_ids must be an array')
      for (const id of body.remove_widget_ids) if (!next.widgets.some((w) => w.id === id)) throw apiError(400, `remove_widget_ids: widget ${JSON.stringify(id)} is not on the board`)
      next.widgets = next.widgets.filter((w) => !body.remove_widget_ids.includes(w.id))
    }
    if (body.add_widgets !== undefined) {
      if (!Array.isArray(body.add_widgets)) throw apiError(400, 'add_widgets must be an array')
      next.widgets.push(...body.add_widgets.map(widget))
    }
    if (body.widgets !== undefined) {
      if (!Array.isArray(body.widgets)) throw apiError(400, 'widgets must be an array')
      next.widgets = body.widgets.map((raw: any) => {
        const kept = typeof raw?.id === 'string' ? board.widgets.find((w) => w.id === raw.id) : undefined
        return kept ? { ...widget({ ...raw, type: raw.type ?? kept.type }), id: kept.id } : widget({ ...raw, type: raw?.type ?? 'stat' })
      })
    }
    if (next.widgets.length > 160) throw apiError(400, 'a dashboard holds at most 160 widgets')
    if (body.default_date_range !== undefined) next.default_date_range = body.default_date_range === null ? null : oneOf(body.default_date_range, DATE_RANGES, 'default_date_range')
    if (body.default_grain !== undefined) next.default_grain = body.default_grain === null ? null : oneOf(body.default_grain, GRAINS, 'default_grain')
    if (body.default_product_ids !== undefined) next.default_product_ids = productIds(body.default_product_ids)
    next.updated_at = stamp(board.updated_at)
    Object.assign(board, next)
    return c.json({ data: view(board, true) })
  })

  define('DELETE', '/dashboards/delete', { shop: true }, (c) => {
    const shopId = c.get('shop').shop_id
    const board = find(shopId, c.get('body').dashboard_id)
    boards(shopId).delete(board.id)
    return c.json({ data: { dashboard_id: board.id, name: board.name, deleted: true, removed_from_shop_only: false } })
  })
}
