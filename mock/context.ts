/**
 * What an area handler receives and returns. Area authors write
 * `const listX = defineHandler('listX', (ctx) => ...)` and export `handlers: { listX }`; AreaHandler
 * is the untyped form the registry and the pipeline hold.
 */
import type { ClaimedAhead, TakenAhead } from './twin/store.ts'
import type { Contract, OperationInfo, operations, PagedOperationId } from '../openapi/index.ts'
import type { ApiResult } from './respond.ts'
import type { MockState } from './state.ts'
import type { ApiKeyRecord, ShopRecord, World } from './world.ts'
import type { PageWindow } from './pipeline/paging.ts'
import type { RequestHeaders } from './pipeline/compose.ts'
import type { ConnectorActor } from './connector/activity.ts'
import type { TraceRecord } from './trace/store.ts'

export type { ApiResult } from './respond.ts'

/**
 * One request, from arrival through the pipeline's steps (mock/pipeline) to the area handler: the
 * steps fill `apiKey`, `shop`, `input` and `page`; by the time a handler runs, authentication, rate
 * limiting, validation, paging and idempotency are done.
 */
export interface RequestContext {
  state: MockState
  /** `state.world` at the time of the request. */
  world: World
  /** The canonical operation, whose handler answers (for an alias such as `/v1/ads/...` or a GET form: the operation it aliases). */
  op: OperationInfo
  /** The operation the client actually called (equals `op` unless an alias was called). */
  calledOp: OperationInfo
  /**
   * The HTTP method, the URL, the path parameters (`{key}` of `/idempotency/{key}`) and the body text ('' when none) as received.
   * A HEAD runs its GET's operation: see `changesState`.
   */
  method: string
  url: URL
  params: Record<string, string>
  bodyText: string
  headers: RequestHeaders
  /** The mock clock's time when the request arrived. */
  now: Date
  /** `now` as YYYY-MM-DD (UTC). */
  today: string
  /** The caller's key (undefined for `GET /health`); a connector call arrives with its connection's grant here. */
  apiKey?: ApiKeyRecord
  /** Set for calls through the assistant connector: the connection acting. */
  connector?: ConnectorActor
  /** The shop of `x-shop-id` (undefined for `GET /health` and `GET /account/shops`). */
  shop: ShopRecord | undefined
  /**
   * The validated request: the JSON body for POST/DELETE, or the query of a GET form parsed into the
   * same shape (deepObject `date_range[from]`, repeated keys and comma lists as arrays, numbers and
   * booleans coerced per the schema). Defaults from the schema are NOT applied: use `??`.
   */
  input: Record<string, unknown>
  /** For operations with `x-paging`: the page window after clamps and the depth cap. */
  page: PageWindow | undefined
  /** The request's trace while tracing is on (mock/trace): steps record their decisions with `ctx.trace?.decide(...)`. */
  trace?: TraceRecord
  /** A rate-limit slot a shared store took with the request's catch-up (mock/pipeline/twin-sync.ts), for the rate-limit step. */
  takenAhead?: { apiKey: string; shopId: string; taken: TakenAhead }
  /** A keyed write's idempotency claim a shared store made with the catch-up, for the idempotency step. */
  claimedAhead?: { shopId: string; key: string; claimed: ClaimedAhead }
}

/**
 * False for a HEAD: answered as its GET would be, it changes nothing (RFC 9110 9.2.1, 9.3.2). A handler
 * whose GET changes something (the halo report call that starts a build) works out what that GET would
 * answer, and records it only when this is true.
 */
export const changesState = (ctx: Pick<RequestContext, 'method'>): boolean => ctx.method !== 'HEAD'

/** An operation's behaviour. Return `{ status, body }`, or return/throw `apiError(status, message)`. */
export type AreaHandler = (ctx: RequestContext) => ApiResult | Promise<ApiResult>

/** An operationId of the contract (openapi/types.ts). */
export type OperationId = keyof operations
/** The JSON request body of an operation; never for one without a body (`requestBody?: never` in the generated types). */
type JsonBodyOf<T> = T extends { requestBody?: infer R } ? ([NonNullable<R>] extends [never] ? never : NonNullable<R> extends { content: { 'application/json': infer B } } ? B : never) : never
type QueryOf<T> = T extends { parameters: { query?: infer Q } } ? NonNullable<Q> : never
/** The validated input of an operation as the contract types it: its JSON body, else its query (a GET form parsed into the same shape), else no field at all. */
export type InputOf<Id extends OperationId> = [JsonBodyOf<operations[Id]>] extends [never] ? ([QueryOf<operations[Id]>] extends [never] ? Record<never, never> : QueryOf<operations[Id]>) : JsonBodyOf<operations[Id]>
/** True for an operation that takes `x-shop-id` (the pipeline has resolved the shop before the handler runs). */
type ShopScoped<Id extends OperationId> = operations[Id] extends { parameters: { header: { 'x-shop-id': unknown } } } ? true : false

/**
 * A request as one operation's handler sees it: `input` typed from the contract, `shop` set for
 * shop-scoped operations, `page` set for operations with `x-paging`.
 */
export type HandlerContext<Id extends OperationId> = Omit<RequestContext, 'input' | 'shop' | 'page'> & {
  input: InputOf<Id>
  shop: ShopScoped<Id> extends true ? ShopRecord : ShopRecord | undefined
  page: Id extends PagedOperationId ? PageWindow : undefined
}

/** What a page envelope asks of its context (mock/lib/pages.ts): the page window of an operation with `x-paging`, and its input. */
export type PagedContext = { page: PageWindow; input: object }

/**
 * What a helper or a body shared by several shop-scoped operations asks of its context: the shop
 * (non-optional) and the input fields it reads. Any of those operations' HandlerContext fits.
 */
export type ShopContext<Input = unknown> = Omit<RequestContext, 'input' | 'shop'> & { shop: ShopRecord; input: Input }

/** A handler that names its operation (checked against the key it is registered under: mock/areas/index.ts). */
export type TypedHandler<Id extends OperationId = OperationId> = AreaHandler & { readonly operationId: Id }

/**
 * Declares the handler of one operation, typed from the contract:
 * `defineHandler('updateDashboard', (ctx) => ...)` gives `ctx.input` the request body's type and a
 * non-optional `ctx.shop` on shop-scoped operations.
 */
export function defineHandler<Id extends OperationId>(operationId: Id, handler: (ctx: HandlerContext<Id>) => ApiResult | Promise<ApiResult>): TypedHandler<Id> {
  return Object.assign(handler as unknown as AreaHandler, { operationId })
}

/**
 * Rewrites a request's input before validation (camelCase or legacy keys to the canonical ones,
 * flat `shared_time_from` to `shared_time.from`...). Must not mutate its argument.
 */
export type InputNormalizer = (input: Record<string, unknown>, op: OperationInfo, contract: Contract) => Record<string, unknown>

/** A control-API action an area adds (`POST /__admin/<name>`, `state.admin.run(name, input)`). */
export type AdminAction = (state: MockState, input: Record<string, unknown>) => unknown | Promise<unknown>

/**
 * A write on an area's state: a named, serialisable operation, a function of the state and a plain-data
 * input (strings, numbers, booleans, null, arrays and plain objects; timestamps as ISO text). Everything
 * it needs comes in the input or is in the state (ids come from the state's own counters), so replaying
 * the same writes in order on a fresh state gives the same state: the seam a shared store for several
 * replicas attaches to (`MockStateOptions.onWrite`).
 */
export type AreaWrite<T, I = any, R = unknown> = (state: T, input: I) => R

/**
 * An area's mutable state, typed: `createState(world)` builds it from the world on the area's first
 * use; the MockState owns it and drops it on reset. Handlers read it with `ctx.state.read(def)`
 * (typed read-only) and change it only through its named writes, `ctx.state.write(def, 'name', input)`.
 * The world itself stays read-only (frozen in strict mode and in tests): what requests change lives here.
 */
export interface AreaState<T, W extends Record<string, AreaWrite<T>> = Record<string, AreaWrite<T>>> {
  /** The area it belongs to (one state per definition). */
  readonly area: string
  createState(world: World): T
  /** The only ways requests change the state, by name. */
  readonly writes: W
  /**
   * Kept by reset: a setting of the mock (like the clock and its flags) rather than state of the
   * world; its createState must not read the world.
   */
  readonly survivesReset: boolean
  /**
   * Kept when the world's view moves with the clock (fixtures/as-of.ts): its createState reads none
   * of the records that appear as the clock passes them (posts, LIVEs, sample requests, boosts,
   * exclusions, social pushes and joins, outreach events), so the state made from the last view is
   * the one a new view would make. Otherwise (the default, the safe one) the state is made again from
   * the new view and its writes since the reset are replayed.
   */
  readonly stableAcrossViews: boolean
}

/** Declares an area's typed state and its named writes (see AreaState, AreaWrite). */
export const defineAreaState = <T, W extends Record<string, AreaWrite<T, any, any>> = Record<never, never>>(
  area: string,
  createState: (world: World) => T,
  writes: W & Record<string, AreaWrite<T, any, any>> = {} as W,
  { survivesReset = false, stableAcrossViews = survivesReset }: { survivesReset?: boolean; stableAcrossViews?: boolean } = {},
): AreaState<T, W> => {
  const definition: AreaState<T, W> = { area, createState, writes, survivesReset, stableAcrossViews }
  if (areaStateRegistry.has(area)) throw new Error(`shoptwin mock: two area states are named '${area}' (a logged write names its state by area)`)
  areaStateRegistry.set(area, definition as unknown as AreaState<unknown>)
  return definition
}

/** Every area state defined, by area name: a logged write names its state, and a replay finds it here. */
const areaStateRegistry = new Map<string, AreaState<unknown>>()

/** The area state named `area` (a replayed write's); throws for a name no module defined. */
export function areaStateNamed(area: string): AreaState<unknown> {
  const definition = areaStateRegistry.get(area)
  if (!definition) throw new Error(`shoptwin mock: no area state named '${area}' (is its module loaded?)`)
  return definition
}

/** The names of every area state defined (what a replay can rebuild). */
export const areaStateNames = (): string[] => [...areaStateRegistry.keys()]

/** The input and result of one named write of an area state. */
export type WriteInput<W, K extends keyof W> = W[K] extends (state: any, input: infer I) => any ? I : never
export type WriteResult<W, K extends keyof W> = W[K] extends (state: any, input: any) => infer R ? R : never

/** T as reads see it: no property, array, map or set of it can be changed through this type. */
export type DeepReadonly<T> = T extends (...args: infer A) => infer R
  ? (...args: A) => DeepReadonly<R>
  : T extends ReadonlyMap<infer K, infer V>
    ? ReadonlyMap<K, DeepReadonly<V>>
    : T extends ReadonlySet<infer V>
      ? ReadonlySet<DeepReadonly<V>>
      : T extends readonly (infer E)[]
        ? readonly DeepReadonly<E>[]
        : T extends object
          ? { readonly [P in keyof T]: DeepReadonly<T[P]> }
          : T

/** One write as `MockStateOptions.onWrite` sees it: which area, which write, its plain-data input, the version after it. */
export interface WriteRecord {
  area: string
  name: string
  input: unknown
  version: number
}

/** What an area module exports (mock/areas/<area>.ts), collected by mock/areas/index.ts. */
export interface AreaModule {
  handlers: Record<string, AreaHandler>
  /**
   * Handlers (by operationId) whose answer depends on nothing but the world, the shop's state, the
   * request and the clock's date (`ctx.today`, never `ctx.now`), and that write nothing: the response
   * cache may serve their answers again (mock/stores/response-cache.ts).
   */
  cacheable?: readonly string[]
  normalizers?: Record<string, InputNormalizer>
  adminActions?: Record<string, AdminAction>
}
