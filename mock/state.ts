/**
 * The mock's state: the world, the clock and the stores. No globals: every createMockState() is
 * independent, so one process can hold many mocks.
 */
import { loadContract, type Contract } from '../openapi/index.ts'
import { createAdmin, type Admin } from './admin.ts'
import { areaAdminActions, areaCacheableReads, areaHandlers, areaNormalizers } from './areas/index.ts'
import { createClock, type Clock } from './clock.ts'
import { connectorAdminActions } from './connector/admin.ts'
import { listAccountActivity } from './connector/activity.ts'
import { createConnectorStore, type ConnectorStore } from './connector/store.ts'
import { buildConnectorFixtures } from '../fixtures/connector.ts'
import { areaStateNamed, type AreaHandler, type AreaState, type AreaWrite, type DeepReadonly, type InputNormalizer, type WriteInput, type WriteRecord, type WriteResult } from './context.ts'
import type { Awaitable } from './pipeline/compose.ts'
import { createMemoryActivity, type ActivityStore } from './stores/activity.ts'
import type { LoggedOp, TwinOp } from './twin/ops.ts'
import { createMemoryTwinStore, type TwinStore } from './twin/store.ts'
import type { CertificationSession } from './pipeline/certification.ts'
import { createFaultStore, type FaultMatch, type FaultStore } from './stores/faults.ts'
import { createIdempotencyStore, type IdempotencyStore, type IdempotencyStoreOptions } from './stores/idempotency.ts'
import { createJournal, type JournalStore } from './stores/journal.ts'
import { createRateLimiter, type RateLimiter, type RateLimiterOptions } from './stores/rate-limiter.ts'
import { createResponseCache, type ResponseCache, type ResponseCacheOptions } from './stores/response-cache.ts'
import { createTraceStore, type TraceStore, type TraceStoreOptions } from './trace/store.ts'
import { buildWorld, type ShopRecord, type World } from './world.ts'
import { worldAt } from '../fixtures/as-of.ts'

export interface MockStateOptions {
  /** Seed of the world (default 42). */
  seed?: number
  /** Size of the world (default 'small'). */
  scale?: string
  /** The world's "today" (YYYY-MM-DD); default: the clock's date. */
  today?: string
  /** Enforce the spec's rate limits (default true). */
  rateLimit?: boolean
  /** Start the clock frozen at this instant; default: real time. */
  now?: string | number | Date
  /** Validate every response against the contract; a mismatch becomes a 500 (default false). */
  strict?: boolean
  /** Extra or replacement area handlers by operationId (tests, experiments). */
  handlers?: Record<string, AreaHandler>
  /** The contract to serve (default: openapi/openapi.yaml, loaded once per process). */
  contract?: Contract
  idempotency?: IdempotencyStoreOptions
  rateLimits?: RateLimiterOptions
  /** Most journal entries kept (default 1000). */
  journalSize?: number
  /**
   * A trace of every answer, named by its `x-shoptwin-trace` header (mock/trace): `true` (default),
   * `false` (no trace, no header: `shoptwin serve --trace off`), or `{ size }`, the traces kept (default 1000).
   */
  trace?: boolean | TraceStoreOptions
  /**
   * Serve identical cacheable reads again from a cache emptied by every possible write, control-API
   * call and clock move (default false; the standalone server turns it on). Not for code that edits
   * `state.world` directly: such an edit does not empty it.
   */
  responseCache?: boolean | ResponseCacheOptions
  /**
   * Called after every named write of an area state (`state.write`), in order: the seam a shared
   * store for several replicas attaches to (replaying the records on a fresh state of the same seed,
   * today and clock gives the same state).
   */
  onWrite?: (write: WriteRecord) => void
  /**
   * Called with every operation of the twin's log, numbered, in order: area writes, connector
   * operations, clock moves, resets and faults (mock/twin/ops.ts). Replaying them with `state.replay`
   * on a fresh mock of the same options gives the same state.
   */
  onOp?: (entry: LoggedOp) => void
  /** Where the twin keeps what changes (default: in this process's memory); mock/twin/redis/ shares it between replicas. */
  twin?: (state: MockState) => TwinStore
  /** The instant the twin was created (epoch ms; default: the clock's now): the connector's fixtures are made as of it. */
  createdAt?: number
  /**
   * Freeze the generated world (every record and list of it; fact tables and calendars excepted) so an
   * in-place edit throws. Default: on in strict mode and under vitest.
   */
  freezeWorld?: boolean
}

export interface MockStateSnapshot {
  seed: number
  scale: string
  today: string
  now: string
  clockFrozen: boolean
  rateLimit: boolean
  strict: boolean
  shops: number
  idempotencyRecords: number
  journalEntries: number
  faults: number
  implementedOperations: number
  /** The response cache's entries and counters, null when it is off. */
  responseCache: { entries: number; hits: number; misses: number } | null
}

export interface MockState {
  readonly seed: number
  readonly scale: string
  readonly today: string
  /** The current world (replaced by reset). */
  readonly world: World
  readonly clock: Clock
  readonly contract: Contract
  readonly idempotency: IdempotencyStore
  readonly rateLimiter: RateLimiter
  readonly journal: JournalStore
  /** The traces of the last answers (`state.traces.last()`, `.get(id)`, `.explain(response)`); `state.traces.enabled = false` turns tracing off. */
  readonly traces: TraceStore
  readonly faults: FaultStore
  /** The assistant connector's clients, connections, tokens and the activity log (mock/connector; replaced by reset). */
  readonly connector: ConnectorStore
  /** The account's activity log (a store: in memory, or the shared store's). */
  readonly activity: ActivityStore
  /** Where the twin keeps what changes (mock/twin/store.ts). */
  readonly twin: TwinStore
  /** Catches up with what other replicas changed (nothing to do in memory). */
  sync(): Awaitable<void>
  /** Runs a write of the twin (on a shared store: under its lease, committed at the end). */
  exclusive<T>(run: () => Awaitable<T>): Awaitable<T>
  /** Runs a read; on a shared store, one that turns out to write is run again as a write. */
  readOrWrite<T>(run: () => Awaitable<T>): Awaitable<T>
  /** Applies an operation of the log again (a replay, or another replica's change); it is not logged again. */
  replay(op: TwinOp): void
  /** Answers of identical cacheable reads (undefined when off), kept per `version`. */
  readonly responseCache: ResponseCache | undefined
  /**
   * Moves on every write (a request to a handler not declared cacheable), every move of the clock,
   * reset and every control-API call that changes something: an answer computed at one version
   * holds until the next.
   */
  readonly version: number
  /** Marks a change of the state (the next version). */
  changed(): void
  /** The handlers the response cache may serve again, by operationId (the areas' `cacheable`). */
  readonly cacheableReads: ReadonlyMap<string, AreaHandler>
  /** Area handlers by operationId (the registry's, plus `options.handlers`). */
  readonly handlers: Map<string, AreaHandler>
  readonly normalizers: Map<string, InputNormalizer>
  /** The control API's functions (also served under /__admin/ by the standalone server). */
  readonly admin: Admin
  rateLimit: boolean
  strict: boolean
  /** The client-certification session recording this state's requests, if one is attached (mock/pipeline/certification.ts). */
  certification: CertificationSession | undefined
  /** An area's typed state (`defineAreaState`), created from the current world on first use, dropped by reset (unless it survives resets); typed read-only. */
  read<T>(definition: AreaState<T, any>): DeepReadonly<T>
  /**
   * Applies one named write of an area's state (the only way requests change it): moves the version
   * and reports the write to `onWrite`. In strict mode the input must be plain data.
   */
  write<T, W extends Record<string, AreaWrite<T>>, K extends keyof W & string>(definition: AreaState<T, W>, name: K, input: WriteInput<W, K>): WriteResult<W, K>
  /** The area states made so far (read-only views for the console). */
  areaStates(): ReadonlyArray<{ area: string; state: unknown }>
  /** A shop of the account by id (undefined for unknown and foreign shops). */
  findShop(shopId: string): ShopRecord | undefined
  /** A fresh world (same seed unless given) and empty stores; the clock and the flags stay. */
  reset(options?: { seed?: number; scale?: string; today?: string }): void
  inspect(): MockStateSnapshot
}

/** A new, independent mock state. */
export function createMockState(options: MockStateOptions = {}): MockState {
  const { rateLimit = true, strict = false, now, handlers = {}, journalSize = 1000 } = options
  let version = 0
  const changed = () => {
    version++
  }
  let twin: TwinStore = createMemoryTwinStore(options.onOp ? { onOp: options.onOp } : {})
  // True while the state is being built or an operation of the log is applied again: nothing is logged then.
  let replaying = true
  const beforeChange = () => {
    if (!replaying) twin.beforeChange()
  }
  const logged = (op: TwinOp) => {
    if (!replaying) twin.logged(op)
  }
  const clock = createClock({
    ...(now !== undefined ? { start: now } : {}),
    beforeMove: beforeChange,
    onMove: () => {
      changed()
      if (!replaying) twin.logged({ kind: 'clock', ...clock.setting() })
    },
  })
  const cache = options.responseCache ? createResponseCache({ ...(options.responseCache === true ? {} : options.responseCache), version: () => version }) : undefined
  const contract = options.contract ?? loadContract()
  let seed = options.seed ?? 42
  let scale = options.scale ?? 'small'
  let fixedToday = options.today
  let today = fixedToday ?? clock.today()
  // `process` is Node's: the browser build (MSW's setupWorker) has none.
  const freeze = options.freezeWorld ?? (strict || (typeof process !== 'undefined' && process.env?.VITEST !== undefined))
  // The generated world holds each shop's whole last day; requests see it as of the clock's now
  // (fixtures/as-of.ts): a new view once the clock leaves the interval the current one holds for.
  let generated = buildWorld({ seed, scale, today, freeze })
  /**
   * The instant the state last looked at the clock for its view: a shop first read in the view is
   * seen as of it, so the view shows the world as of the clock's now whatever reads came before.
   */
  let viewInstant = clock.nowMs()
  const viewAt = (t: number) => {
    viewInstant = t
    return worldAt(generated, t, { freeze, instant: () => viewInstant })
  }
  let view = viewAt(viewInstant)
  /** Every write since the last reset, in order: replayed on fresh area states when the view moves. */
  let writeLog: Array<{ definition: AreaState<unknown, any>; name: string; input: unknown }> = []
  let areaStates = new Map<AreaState<unknown>, unknown>()
  const newConnector = (at: number): ConnectorStore => {
    const store = createConnectorStore(buildConnectorFixtures(view.world, at))
    store.beforeApply = beforeChange
    store.onApply = (operation) => logged({ kind: 'connector', ...operation })
    return store
  }
  let connector = newConnector(options.createdAt ?? clock.nowMs())
  const faultStore = createFaultStore()
  /** Faults go through the log too: added, taken (counted down) and cleared. */
  const faults: FaultStore = {
    add(input) {
      beforeChange()
      const fault = faultStore.add(input)
      logged({ kind: 'fault', action: 'add', input })
      return fault
    },
    take(match) {
      if (!faultStore.peek(match)) return undefined
      beforeChange()
      const fault = faultStore.take(match)
      logged({ kind: 'fault', action: 'take', match: { operationId: match.operationId, permission: match.permission, path: match.path } })
      return fault
    },
    remove(id) {
      if (!faultStore.list().some((f) => f.id === id)) return false
      beforeChange()
      faultStore.remove!(id)
      logged({ kind: 'fault', action: 'remove', id })
      return true
    },
    peek: (match: FaultMatch) => faultStore.peek(match),
    list: () => faultStore.list(),
    clear() {
      beforeChange()
      faultStore.clear()
      logged({ kind: 'fault', action: 'clear' })
    },
  }
  const memoryIdempotency = createIdempotencyStore(clock, options.idempotency)
  const memoryRateLimiter = createRateLimiter(clock, options.rateLimits)
  const memoryJournal = createJournal({ max: journalSize })
  const memoryActivity = createMemoryActivity(() => connector)
  /** Applies a named write; the view's replay keeps it unless its state is stable across views. */
  const applyWrite = (definition: AreaState<unknown, any>, name: string, input: unknown): unknown => {
    const result = definition.writes[name]!(areaStateOf(definition), input)
    // Only the states made again when the view moves replay their writes (stableAcrossViews: kept).
    if (!definition.stableAcrossViews) writeLog.push({ definition, name, input })
    return result
  }
  type ResetOp = Extract<TwinOp, { kind: 'reset' }>
  const applyReset = (op: ResetOp) => {
    // The world first: a reset it refuses (a scale or a date it does not take) changes nothing.
    const world = buildWorld({ seed: op.seed, scale: op.scale, today: op.today, freeze })
    seed = op.seed
    scale = op.scale
    fixedToday = op.fixedToday ? op.today : undefined
    today = op.today
    generated = world
    view = viewAt(clock.nowMs())
    writeLog = []
    areaStates = op.hard ? new Map() : keptOverReset()
    connector = newConnector(op.at)
    changed()
    // A shared store empties its records and counters in the commit that logs the reset (mock/twin/redis/).
    void state.idempotency.clear()
    void state.rateLimiter.clear()
    // A shared journal and the shared traces start anew with the reset's generation (mock/twin/redis/).
    memoryJournal.clear()
    state.traces.clear()
    faultStore.clear()
  }
  const areaStateOf = <T>(definition: AreaState<T, any>): T => {
    if (!areaStates.has(definition)) areaStates.set(definition, definition.createState(view.world))
    return areaStates.get(definition) as T
  }
  /** The area states that are settings of the mock, not made from the world: kept by reset. */
  const keptOverReset = () => new Map([...areaStates].filter(([definition]) => definition.survivesReset))
  /** The area states a new view of the world would make the same: kept when the view moves. */
  const keptOverViews = () => new Map([...areaStates].filter(([definition]) => definition.stableAcrossViews))
  /** The world as of the clock's now. */
  const currentWorld = (): World => {
    const t = clock.nowMs()
    viewInstant = t
    if (t < view.interval.from || t >= view.interval.until) moveView(t)
    return view.world
  }
  /**
   * The clock has passed (or gone back over) a moment at which a record of the world appears or
   * changes: the world as of `t`, and the area states that read such records made again from it with
   * their writes since the reset replayed in order (writes are functions of their state and plain
   * data, so the same writes give the same changes; one that no longer applies, after the clock went
   * back, is dropped).
   */
  const moveView = (t: number): void => {
    view = viewAt(t)
    areaStates = keptOverViews()
    writeLog = writeLog.filter((w) => {
      try {
        w.definition.writes[w.name]!(areaStateOf(w.definition), w.input)
        return true
      } catch {
        return false
      }
    })
    changed()
  }

  const state: MockState = {
    get seed() {
      return seed
    },
    get scale() {
      return scale
    },
    get today() {
      return today
    },
    get world() {
      return currentWorld()
    },
    get connector() {
      return connector
    },
    get activity() {
      return twin.activity ?? memoryActivity
    },
    get twin() {
      return twin
    },
    sync: () => twin.sync(),
    exclusive: (run) => twin.exclusive(run),
    readOrWrite: (run) => twin.readOrWrite(run),
    replay(op) {
      replaying = true
      try {
        switch (op.kind) {
          case 'write': {
            currentWorld()
            try {
              applyWrite(areaStateNamed(op.area), op.name, op.input)
            } catch (error) {
              if (!op.threw) throw error
            }
            changed()
            break
          }
          case 'connector':
            connector.replay(op)
            break
          case 'clock':
            clock.restore(op)
            changed()
            break
          case 'reset':
            applyReset(op)
            break
          case 'fault':
            if (op.action === 'add') faultStore.add(op.input)
            else if (op.action === 'take') faultStore.take(op.match)
            else if (op.action === 'remove') faultStore.remove!(op.id)
            else faultStore.clear()
            changed()
            break
        }
      } finally {
        replaying = false
      }
    },
    clock,
    contract,
    get idempotency() {
      return twin.idempotency ?? memoryIdempotency
    },
    get rateLimiter() {
      return twin.rateLimiter ?? memoryRateLimiter
    },
    get journal() {
      return twin.journal ?? memoryJournal
    },
    traces: createTraceStore(options.trace === undefined || options.trace === true ? {} : options.trace === false ? { enabled: false } : options.trace),
    faults,
    responseCache: cache,
    get version() {
      return version
    },
    changed,
    cacheableReads: new Map(Object.entries(areaCacheableReads).filter(([id]) => !Object.hasOwn(handlers, id))),
    handlers: handlerIndex(contract, { ...areaHandlers, listAccountActivity, ...handlers }),
    normalizers: new Map(Object.entries(areaNormalizers)),
    admin: undefined as unknown as Admin,
    rateLimit,
    certification: undefined,
    strict,
    read<T>(definition: AreaState<T, any>): DeepReadonly<T> {
      currentWorld()
      return areaStateOf(definition) as DeepReadonly<T>
    },
    write(definition, name, input) {
      if (state.strict) assertPlainData(input, `${definition.area}.${name}`)
      currentWorld()
      beforeChange()
      let result: unknown
      try {
        result = applyWrite(definition, name, input)
      } catch (error) {
        // Logged as what it did: replayed, it does the same and refuses the same way.
        changed()
        logged({ kind: 'write', area: definition.area, name, input, threw: true })
        throw error
      }
      changed()
      logged({ kind: 'write', area: definition.area, name, input })
      const record = { area: definition.area, name, input, version }
      options.onWrite?.(record)
      state.traces.noteWrite(record)
      return result as any
    },
    areaStates() {
      currentWorld()
      return [...areaStates].map(([definition, value]) => ({ area: definition.area, state: value }))
    },
    findShop(shopId) {
      return generated.shops.find((s) => s.shop_id === shopId)
    },
    reset(next = {}) {
      beforeChange()
      const fixed = next.today ?? fixedToday
      const op: ResetOp = { kind: 'reset', seed: next.seed ?? seed, scale: next.scale ?? scale, today: fixed ?? clock.today(), fixedToday: fixed !== undefined, at: clock.nowMs() }
      applyReset(op)
      logged(op)
    },
    inspect() {
      return {
        seed,
        scale,
        today,
        now: clock.now().toISOString(),
        clockFrozen: clock.frozen,
        rateLimit: state.rateLimit,
        strict: state.strict,
        shops: generated.shops.length,
        idempotencyRecords: state.idempotency.size,
        journalEntries: state.journal.size,
        faults: state.faults.list().length,
        implementedOperations: state.handlers.size,
        responseCache: cache ? { entries: cache.size, hits: cache.hits, misses: cache.misses } : null,
      }
    },
  }
  ;(state as { admin: Admin }).admin = createAdmin(state, { ...areaAdminActions, ...connectorAdminActions })
  if (options.twin) twin = options.twin(state)
  replaying = false
  return state
}

/** The handlers by operationId; every canonical operation of the contract must have one (aliases use their canonical's). */
function handlerIndex(contract: Contract, handlers: Record<string, AreaHandler>): Map<string, AreaHandler> {
  const missing = contract.operations.filter((op) => !op.aliasOf && !Object.hasOwn(handlers, op.operationId)).map((op) => op.operationId)
  if (missing.length) throw new Error(`shoptwin mock: no handler for ${missing.join(', ')}`)
  return new Map(Object.entries(handlers))
}

/** Throws unless `value` is plain data (what a write's input must be: it is logged and may be replayed elsewhere). */
function assertPlainData(value: unknown, where: string, path = 'input'): void {
  if (value === null || typeof value === 'string' || typeof value === 'boolean') return
  if (typeof value === 'number') {
    if (Number.isFinite(value)) return
  } else if (Array.isArray(value)) {
    value.forEach((v, i) => assertPlainData(v, where, `${path}[${i}]`))
    return
  } else if (typeof value === 'object' && Object.getPrototypeOf(value) === Object.prototype) {
    for (const [k, v] of Object.entries(value)) if (v !== undefined) assertPlainData(v, where, `${path}.${k}`)
    return
  }
  throw new TypeError(`shoptwin mock: the write ${where} got ${path} that is not plain data (${Object.prototype.toString.call(value)})`)
}
