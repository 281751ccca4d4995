/** Dashboards: the shop's boards, their widgets and the numbers behind them (spec: Dashboards). */
import type { Area } from '../document.ts'
import { arr, body, bool, data, dateTime, enumOf, getForm, int, nullable, num, obj, operation, ref, str, type OperationSpec, type Schema } from '../dsl.ts'
import { WIDGET_SIZES, WIDGET_TYPES_EDITABLE, dateRange } from '../common.ts'

const TAG = 'Dashboards'
const SECTION = 'Dashboards'

// spec: Limits: Dashboards.
const NAME_MAX = 60
const WIDGETS_ON_CREATE_MAX = 160
const STAT_KEYS_MAX = 6
const WIDGET_TITLE_MAX = 80
const CPM_MAX = 1000
const DEFAULT_PRODUCT_IDS_MAX = 50

const STAT_STYLES = ['chart', 'numbers'] as const
const CHART_KINDS = ['line', 'bar'] as const
const STAT_SIZES = ['xs', 'sm', 'md'] as const
const STAT_CHART_SIZES = ['sm', 'md', 'lg'] as const

const boardName = (): Schema =>
  str({ minLength: 1, maxLength: NAME_MAX, pattern: '\\S', description: `1-${NAME_MAX} characters, unique among the boards of the shop (else 409). Not blank (the server trims it; inferred).` })
const widgetTitle = (): Schema => str({ maxLength: WIDGET_TITLE_MAX })
/** spec: Dashboards: create: "an unknown stat key or other widget type returns 400". */
const statKey = (): Schema => ref('StatKey')
const statKeys = (): Schema =>
  arr(statKey(), { minItems: 1, maxItems: STAT_KEYS_MAX, uniqueItems: true, description: `1-${STAT_KEYS_MAX} stat keys of POST /shop/stats, each once (a repeat is refused; inferred).` })
const cpm = (): Schema => num({ minimum: 0, maximum: CPM_MAX, default: 5, description: 'Used by `emv`.' })
const defaultProductIds = (): Schema =>
  arr(str(), { maxItems: DEFAULT_PRODUCT_IDS_MAX, description: `Locked products, up to ${DEFAULT_PRODUCT_IDS_MAX}; 400 on a shop the board is only shared to, and for a product the shop does not have.` })
const dashboardId = (): Schema => str()

/** Widget settings may be nested under `config` in the stored camelCase form (spec: Dashboards: create). */
const widgetConfigInput = (): Schema =>
  body({
    statKey: statKey(),
    statKeys: statKeys(),
    style: enumOf(STAT_STYLES),
    cpm: cpm(),
    chart: enumOf(CHART_KINDS),
  })

/**
 * The stat key(s) must be given, at top level (snake_case) or under `config` (camelCase); the other
 * type's fields are refused (spec: Dashboards: create: "`stat`: `stat_key`, `style`, `size`, `cpm`,
 * `title`; `stat-chart`: `stat_keys`, `chart`, `size`, `title`"), at either level.
 * "Without the top-level key, config has its twin" is `if`/`then`, not `anyOf` beside `properties`: the
 * same rule, but openapi-zod-client reads an object with a sibling `anyOf` as that `anyOf` alone, and
 * zod's discriminatedUnion over the widget input then throws when the generated module loads.
 */
const withStatKeys = (schema: Schema, topLevel: string, inConfig: string, foreign: Array<[string, string]>): Schema => ({
  ...schema,
  // The `then` keeps the whole anyOf (its first branch cannot hold there) so that a 400 names the key.
  if: { not: { required: [topLevel] } },
  then: { anyOf: [{ required: [topLevel] }, { required: ['config'], properties: { config: { required: [inConfig] } } }] },
  not: {
    anyOf: [
      ...foreign.map(([top]) => ({ required: [top] })),
      ...foreign.map(([, nested]) => ({ required: ['config'], properties: { config: { required: [nested] } } })),
    ],
  },
})

const STAT_FOREIGN: Array<[string, string]> = [['stat_keys', 'statKeys'], ['chart', 'chart']]
const STAT_CHART_FOREIGN: Array<[string, string]> = [['stat_key', 'statKey'], ['style', 'style'], ['cpm', 'cpm']]
/** None of these fields, at top level or under `config`. */
const noneOf = (foreign: Array<[string, string]>): Schema => ({
  not: { anyOf: [...foreign.map(([top]) => ({ required: [top] })), ...foreign.map(([, nested]) => ({ required: ['config'], properties: { config: { required: [nested] } } }))] },
})
/** The stat key(s) given, at top level or under `config`. */
const someOf = (topLevel: string, inConfig: string): Schema => ({ anyOf: [{ required: [topLevel] }, { required: ['config'], properties: { config: { required: [inConfig] } } }] })

/**
 * What holds for an entry of update's complete `widgets` list whatever the board holds: a typed entry
 * takes its type's fields only (a kept widget of the other type is refused for the type change); an
 * entry without `id` is a new widget (`stat` unless typed), with its stat key(s). An entry naming an id
 * follows the stored widget's type: in the description, not the schema (spec: Dashboards: update,
 * "entries with a known `id` keep that widget and may change stat fields; entries without a known id
 * are new stat widgets").
 */
const updateEntryRules: Schema[] = [
  { if: { properties: { type: { const: 'stat' } }, required: ['type'] }, then: noneOf(STAT_FOREIGN) },
  { if: { properties: { type: { const: 'stat-chart' } }, required: ['type'] }, then: noneOf(STAT_CHART_FOREIGN) },
  { if: { not: { anyOf: [{ required: ['id'] }, { required: ['type'] }] } }, then: { allOf: [noneOf(STAT_FOREIGN), someOf('stat_key', 'statKey')] } },
  { if: { properties: { type: { const: 'stat' } }, required: ['type'], not: { required: ['id'] } }, then: someOf('stat_key', 'statKey') },
  { if: { properties: { type: { const: 'stat-chart' } }, required: ['type'], not: { required: ['id'] } }, then: someOf('stat_keys', 'statKeys') },
]

const dashboardWithId = (): Schema => body({ dashboard_id: dashboardId() }, { required: ['dashboard_id'] })

const listDashboards = operation({
  method: 'post',
  path: '/dashboards/list',
  operationId: 'listDashboards',
  tag: TAG,
  specSection: SECTION,
  summary: 'The shop\'s boards in tab order, without widgets',
  description: 'Default boards are created on first dashboard open; until then `defaults_created` is false. Also callable with GET and query parameters.',
  requestBody: body({ include_archived: bool({ default: true }) }),
  success: {
    status: 200,
    schema: data(obj({ dashboards: arr(ref('Dashboard')), total_count: int({ minimum: 0 }), defaults_created: bool() })),
  },
})

const getDashboard = operation({
  method: 'post',
  path: '/dashboards/get',
  operationId: 'getDashboard',
  tag: TAG,
  specSection: SECTION,
  summary: 'One board with its widgets in board order',
  description: 'Also callable with GET and `dashboard_id` as a query parameter. An unknown board: 404 (status inferred).',
  requestBody: dashboardWithId(),
  errors: [404],
  success: { status: 200, schema: data(ref('DashboardWithWidgets')) },
})

/** GET form whose `dashboard_id` query parameter is required, as the body field is. */
function getDashboardGetForm(post: OperationSpec): OperationSpec {
  const op = getForm(post, 'getDashboardGet')
  return { ...op, query: op.query?.map((q) => (q.name === 'dashboard_id' ? { ...q, required: true } : q)) }
}

export const dashboards: Area = {
  name: TAG,
  description:
    'Boards belong to the shop; anyone who can open the shop can read and edit them. A board shared from its home shop is one board everywhere, each shop seeing its own numbers.',
  schemas: {
    Dashboard: obj(
      {
        id: str(),
        name: str({ description: 'The displayed name.' }),
        stored_name: str({ description: 'Empty string for an unrenamed default board.' }),
        seed_key: nullable(str({ description: 'Identifies a default board; null on a board created by a user (nullability inferred).' })),
        home_shop_id: str(),
        is_home_shop: bool({ description: 'false when shared onto this shop from another shop of the account.' }),
        shared_with: arr({}, { description: 'The shops the board is shared with; item shape not shown.' }),
        position: num({ description: 'Tab order.' }),
        widget_count: int({ minimum: 0 }),
        default_date_range: nullable(ref('DateRangePreset')),
        default_grain: nullable(ref('Grain')),
        default_product_ids: arr(str(), { description: 'Always empty on a shop the board is shared to.' }),
        archived: bool(),
        archived_at: nullable(dateTime()),
        last_viewed_at: nullable(dateTime()),
        created_by: nullable(str({ description: 'Who created the board; type not shown (nullable inferred for default boards).' })),
        created_at: dateTime(),
        updated_at: dateTime(),
        widgets: arr(ref('DashboardWidget'), { description: 'Only with a get (and create/update), in board order.' }),
      },
      {
        required: [
          'id', 'name', 'stored_name', 'seed_key', 'home_shop_id', 'is_home_shop', 'shared_with', 'position', 'widget_count',
          'default_date_range', 'default_grain', 'default_product_ids', 'archived', 'archived_at', 'last_viewed_at',
          'created_by', 'created_at', 'updated_at',
        ],
        description: 'A dashboard board (spec: Resources: Dashboard). `widgets` only with a get.',
      },
    ),
    DashboardWithWidgets: {
      allOf: [ref('Dashboard'), obj({ widgets: arr(ref('DashboardWidget')) })],
      description: 'A board as get returns it: the board and its widgets in board order.',
    },
    DashboardWidget: obj(
      {
        id: str({ format: 'uuid' }),
        type: str({ description: '`stat` and `stat-chart` are API-managed; other types such as `top-products` are read and kept but not editable.' }),
        size: enumOf(WIDGET_SIZES, { description: 'xs quarter, sm third, md half, lg full width.' }),
        title: nullable(str()),
        config: obj(
          { statKey: str(), statKeys: arr(str()), style: str(), cpm: num(), chart: str() },
          {
            required: [],
            description: 'stat: statKey, style (chart or numbers), cpm (used by emv). stat-chart: statKeys (1-6), chart (line or bar). Other types: not shown.',
          },
        ),
        col: nullable(int({ minimum: 0, maximum: 11 })),
        api_editable: bool(),
      },
      { description: 'A widget of a board (spec: Resources: Dashboard widget).' },
    ),
    DashboardStatWidgetInput: withStatKeys(body(
      {
        type: enumOf(['stat']),
        stat_key: { ...statKey(), description: 'A stat key of POST /shop/stats; an unknown key returns 400.' },
        style: enumOf(STAT_STYLES, { default: 'chart' }),
        size: enumOf(STAT_SIZES, { default: 'xs' }),
        cpm: cpm(),
        title: widgetTitle(),
        config: widgetConfigInput(),
      },
      { required: ['type'], description: 'A new `stat` widget. The stat key goes in stat_key or config.statKey; the stat-chart fields (stat_keys, chart) are refused with 400.' },
    ), 'stat_key', 'statKey', [['stat_keys', 'statKeys'], ['chart', 'chart']]),
    DashboardStatChartWidgetInput: withStatKeys(body(
      {
        type: enumOf(['stat-chart']),
        stat_keys: statKeys(),
        chart: enumOf(CHART_KINDS, { default: 'line' }),
        size: enumOf(STAT_CHART_SIZES, { default: 'md' }),
        title: widgetTitle(),
        config: widgetConfigInput(),
      },
      { required: ['type'], description: 'A new `stat-chart` widget. The stat keys go in stat_keys or config.statKeys; the stat fields (stat_key, style, cpm) are refused with 400.' },
    ), 'stat_keys', 'statKeys', [['stat_key', 'statKey'], ['style', 'style'], ['cpm', 'cpm']]),
    DashboardWidgetInput: {
      oneOf: [ref('DashboardStatWidgetInput'), ref('DashboardStatChartWidgetInput')],
      discriminator: {
        propertyName: 'type',
        mapping: { stat: '#/components/schemas/DashboardStatWidgetInput', 'stat-chart': '#/components/schemas/DashboardStatChartWidgetInput' },
      },
      description: `A widget to add: only ${WIDGET_TYPES_EDITABLE.join(' and ')} can be created; another type returns 400.`,
    },
    DashboardWidgetUpdateEntry: {
      allOf: updateEntryRules,
      ...body(
      {
        id: str({ description: 'A known widget id keeps that widget (of any type); its stat fields may change.' }),
        type: enumOf(WIDGET_TYPES_EDITABLE),
        stat_key: statKey(),
        stat_keys: statKeys(),
        style: enumOf(STAT_STYLES),
        chart: enumOf(CHART_KINDS),
        size: enumOf(WIDGET_SIZES),
        cpm: cpm(),
        title: widgetTitle(),
        config: widgetConfigInput(),
      },
      { description: 'An entry of the complete widget list of update: entries with a known id keep that widget (of its stored type: the other type\'s fields, a type change, or any change to a widget the API cannot edit are 400); entries without a known id are new stat widgets (`stat` unless typed, with their stat key(s)).' },
      ),
    },
    DashboardData: obj(
      {
        dashboard: obj({ id: str(), name: str() }),
        filters: obj({
          date_range: dateRange(),
          date_range_source: str({ description: '`request`, `board default (<preset>)` or `default (30d)`.' }),
          grain: ref('Grain'),
          product_id: nullable(str()),
          campaign_id: nullable(str()),
          only_show_campaign_stats: bool(),
          timezone: nullable(str()),
        }),
        widgets: arr(
          obj(
            {
              id: str(),
              type: str(),
              title: nullable(str()),
              size: enumOf(WIDGET_SIZES),
              style: nullable(str({ description: 'Nullability inferred: widgets without a style.' })),
              supported: bool(),
              stats: arr(ref('StatEntry'), { description: 'daily_counts only for charted stats.' }),
              note: str({ description: 'When supported is false.' }),
            },
            { required: ['id', 'type', 'title', 'size', 'style', 'supported'] },
          ),
        ),
        warnings: arr(str(), { description: 'E.g. several products locked: the numbers are whole-shop.' }),
      },
      { description: 'A board\'s numbers: the filters applied and each widget\'s stat entries.' },
    ),
  },
  operations: [
    listDashboards,
    getForm(listDashboards, 'listDashboardsGet'),
    getDashboard,
    getDashboardGetForm(getDashboard),
    operation({
      method: 'post',
      path: '/dashboards/data',
      operationId: 'getDashboardData',
      tag: TAG,
      specSection: SECTION,
      summary: 'The numbers of a board\'s widgets',
      description:
        'Request filters override the board\'s. Default range: the board\'s locked preset counted back from today ending two days ago, else 30 days; default grain the board\'s, else `day`; default product the board\'s locked one on its home shop. 400 on an unrecognised timezone, a grain other than day/week/month, or a widget id not on the board. An unknown board: 404 (status inferred).',
      requestBody: body(
        {
          dashboard_id: dashboardId(),
          date_range: dateRange(),
          grain: ref('Grain'),
          product_id: nullable(str({ description: 'null ignores the board\'s locked product.' })),
          campaign_id: str(),
          only_show_campaign_stats: bool(),
          timezone: str({ description: 'IANA name; an unrecognised value returns 400.' }),
          widget_ids: arr(str(), { description: '400 if one is not on the board.' }),
        },
        { required: ['dashboard_id'] },
      ),
      errors: [404],
      success: { status: 200, schema: data(ref('DashboardData')) },
    }),
    operation({
      method: 'post',
      path: '/dashboards/create',
      operationId: 'createDashboard',
      tag: TAG,
      specSection: SECTION,
      summary: 'Create a board',
      description: `Name taken: 409. An unknown stat key or another widget type: 400. Returns 201 with the board as get does.`,
      requestBody: body(
        {
          name: boardName(),
          widgets: arr(ref('DashboardWidgetInput'), { maxItems: WIDGETS_ON_CREATE_MAX }),
          default_date_range: ref('DateRangePreset'),
          default_grain: ref('Grain'),
          default_product_ids: defaultProductIds(),
        },
        { required: ['name'] },
      ),
      errors: [409],
      success: { status: 201, schema: data(ref('DashboardWithWidgets')) },
    }),
    operation({
      method: 'post',
      path: '/dashboards/update',
      operationId: 'updateDashboard',
      tag: TAG,
      specSection: SECTION,
      summary: 'Update a board: name, widgets, locked defaults',
      description:
        '`widgets` (the complete new list) cannot be combined with `add_widgets` or `remove_widget_ids`. In `widgets`, an entry whose `id` is a widget of another type than stat or stat-chart may not change it, an entry may not change a widget\'s type or give the other type\'s fields, and an id may appear once: 400. Name taken on any shop the board shows on: 409. `expected_updated_at` older than the board\'s `updated_at`: 412. Unknown widget id in remove_widget_ids, or product ids locked on a shop the board is only shared to: 400. An unknown board: 404 (status inferred). Returns the updated board (its shape beyond "the board" is inferred to be as get returns it).',
      requestBody: {
        ...body(
          {
            dashboard_id: dashboardId(),
            name: boardName(),
            add_widgets: arr(ref('DashboardWidgetInput'), { description: 'Appended.' }),
            remove_widget_ids: arr(str(), { description: 'Any type; 400 if one is not on the board.' }),
            widgets: arr(ref('DashboardWidgetUpdateEntry'), { description: 'Complete new list; omitted widgets are removed.' }),
            default_date_range: nullable({ ...ref('DateRangePreset'), description: 'null stops locking.' }),
            default_grain: nullable({ ...ref('Grain'), description: 'null stops locking.' }),
            default_product_ids: defaultProductIds(),
            expected_updated_at: dateTime({ description: 'If the board changed since, 412.' }),
          },
          { required: ['dashboard_id'] },
        ),
        not: { anyOf: [{ required: ['widgets', 'add_widgets'] }, { required: ['widgets', 'remove_widget_ids'] }] },
      },
      errors: [404, 409, 412],
      success: { status: 200, schema: data(ref('Dashboard')), description: 'The updated board.' },
    }),
    operation({
      method: 'delete',
      path: '/dashboards/delete',
      operationId: 'deleteDashboard',
      tag: TAG,
      specSection: SECTION,
      summary: 'Delete a board (or remove it from a shop it is only shared to)',
      description:
        'Deletes the board for everyone with its share links; on a shop the board is only shared to, removes it from that shop only. Not restorable through the API. An unknown board: 404.',
      requestBody: dashboardWithId(),
      errors: [404],
      success: {
        status: 200,
        schema: data(obj({ dashboard_id: str(), name: str(), deleted: bool(), removed_from_shop_only: bool() })),
      },
    }),
  ],
}
