/**
 * The control API: reset, clock, faults, the request journal and the world, plus actions areas
 * add (`samples/arrive`). The same functions serve `state.admin.*` in-process and `/__admin/*`
 * on the standalone server.
 */
import type { HttpHandler } from 'msw'
import { http } from './lib/msw.ts'
import type { AdminAction } from './context.ts'
import { methodFallback } from './method-fallback.ts'
import { pathMethods } from './methods.ts'
import { CONSOLE_ROUTES, createConsoleHandlers } from './console/routes.ts'
import { apiError, toResponse, type ApiResult } from './respond.ts'
import type { MockState } from './state.ts'
import { clockRangeProblem } from './clock.ts'
import { unknownFieldsProblem } from './lib/fields.ts'
import { worldOptionsProblem } from './world.ts'
import type { Fault, FaultInput } from './stores/faults.ts'
import type { JournalEntry } from './stores/journal.ts'
import type { Awaitable } from './pipeline/compose.ts'

export interface ClockView {
  now: string
  frozen: boolean
}

export interface Admin {
  reset(input?: { seed?: number; scale?: string; today?: string }): { seed: number; scale: string; today: string }
  clock(): ClockView
  /** `{now}` sets (frozen unless `running`), `{advance_ms}` advances, `{real_time: true}` returns to the wall clock. */
  setClock(input: { now?: string; advance_ms?: number; running?: boolean; real_time?: boolean }): ClockView
  addFault(input: FaultInput): Fault
  faults(): Fault[]
  clearFaults(): void
  /** Every replica's, on a shared twin (then asynchronous). */
  requests(filter?: { operationId?: string; limit?: number }): Awaitable<JournalEntry[]>
  clearRequests(): Awaitable<void>
  world(): { keys: Array<{ key: string; label: string; tier: string; routes: '*' | string[]; shops: '*' | string[] }>; shops: unknown[]; foreign_shops: unknown[] }
  /** Names of the extra actions (`samples/arrive`...). */
  actions(): string[]
  /** Adds an action (areas do this through their `adminActions` export). */
  register(name: string, action: AdminAction): void
  run(name: string, input?: Record<string, unknown>): Promise<unknown>
}

/** 400 for a field `input` has that `fields` does not list. */
function onlyFields(input: object, fields: readonly string[], what: string): void {
  const problem = unknownFieldsProblem(input, fields, what)
  if (problem) throw apiError(400, problem)
}

export function createAdmin(state: MockState, initialActions: Record<string, AdminAction> = {}): Admin {
  const actions = new Map(Object.entries(initialActions))
  const clockView = (): ClockView => ({ now: state.clock.now().toISOString(), frozen: state.clock.frozen })
  return {
    reset(input = {}) {
      // Checked whole before anything changes: a refused reset leaves the twin as it was (and logs nothing on a shared store).
      onlyFields(input, ['seed', 'scale', 'today'], 'a reset')
      const { seed, scale, today } = input
      if (seed !== undefined && !Number.isSafeInteger(seed)) throw apiError(400, `seed must be an integer from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`)
      const problem = worldOptionsProblem({ scale, today })
      if (problem) throw apiError(400, problem)
      state.reset(input)
      return { seed: state.seed, scale: state.scale, today: state.today }
    },
    clock: clockView,
    setClock(input) {
      // Checked whole before the clock moves: a refused move leaves it where it was.
      onlyFields(input, ['now', 'advance_ms', 'running', 'real_time'], 'the clock')
      const { now, advance_ms, running, real_time } = input
      if (now !== undefined && (typeof now !== 'string' || !Number.isFinite(Date.parse(now)))) throw apiError(400, 'now must be an ISO date-time')
      if (advance_ms !== undefined && (typeof advance_ms !== 'number' || !Number.isFinite(advance_ms))) throw apiError(400, 'advance_ms must be a number')
      const from = now !== undefined ? Date.parse(now) : real_time ? Date.now() : state.clock.nowMs()
      const problem = clockRangeProblem(from + (advance_ms ?? 0))
      if (problem) throw apiError(400, problem)
      if (real_time) state.clock.useRealTime()
      if (now !== undefined) state.clock.set(now, { running: running === true })
      if (advance_ms !== undefined) state.clock.advance(advance_ms)
      return clockView()
    },
    addFault(input) {
      try {
        return state.faults.add(input)
      } catch (error) {
        throw apiError(400, (error as Error).message)
      } finally {
        state.changed()
      }
    },
    faults: () => state.faults.list(),
    clearFaults() {
      state.faults.clear()
      state.changed()
    },
    requests: (filter) => state.journal.entries(filter),
    clearRequests: () => state.journal.clear(),
    world() {
      const w = state.world
      return {
        keys: w.apiKeys.map(({ key, label, tier, routes, shops }) => ({ key, label, tier, routes, shops })),
        shops: w.shops,
        foreign_shops: w.foreignShops,
      }
    },
    actions: () => [...actions.keys()],
    register(name, action) {
      actions.set(name, action)
    },
    async run(name, input = {}) {
      const action = actions.get(name)
      if (!action) throw apiError(404, `No such control action: ${name} (GET /__admin/ lists them)`)
      // An action writes: the state changes when it starts and when it ends (answers read meanwhile are not kept).
      state.changed()
      try {
        return await action(state, input)
      } finally {
        state.changed()
      }
    },
  }
}

async function jsonBody(request: Request): Promise<Record<string, unknown>> {
  const text = await request.text()
  if (!text.trim()) return {}
  try {
    const parsed = JSON.parse(text) as unknown
    if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) return parsed as Record<string, unknown>
  } catch {
    // fall through
  }
  throw apiError(400, 'body must be a JSON object')
}

/** `GET|POST /__admin/clock`: one line per path, its methods joined. */
function routesListing(entries: Array<[string, string]>): string[] {
  const byPath = new Map<string, string[]>()
  for (const [path, method] of entries) byPath.set(path, [...(byPath.get(path) ?? []), method])
  return [...byPath].map(([path, methods]) => `${methods.join('|')} ${path}`)
}

const respond = async (run: () => unknown | Promise<unknown>, status = 200): Promise<Response> => {
  try {
    return toResponse({ status, body: await run() })
  } catch (error) {
    if ((error as ApiResult).status && (error as { body?: unknown }).body) return toResponse(error as ApiResult)
    return toResponse({ status: 500, body: { error: (error as Error).message } })
  }
}

/** The control API's paths and methods (its actions can be registered later: read per request). */
export function adminMethods(admin: Admin): Array<[path: string, method: string]> {
  return [
    ['/__admin', 'GET'],
    ['/__admin/reset', 'POST'],
    ['/__admin/clock', 'GET'],
    ['/__admin/clock', 'POST'],
    ['/__admin/faults', 'GET'],
    ['/__admin/faults', 'POST'],
    ['/__admin/faults', 'DELETE'],
    ['/__admin/requests', 'GET'],
    ['/__admin/requests', 'DELETE'],
    ['/__admin/world', 'GET'],
    ['/__admin/state', 'GET'],
    ['/__admin/metrics', 'GET'],
    ['/__admin/traces', 'GET'],
    ['/__admin/traces/{id}', 'GET'],
    ...CONSOLE_ROUTES.map(([path, method]): [string, string] => [path, method]),
    ...admin.actions().map((a): [string, string] => [`/__admin/${a}`, 'POST']),
  ]
}

/** MSW handlers of the control API under `<baseUrl>/__admin/`. */
export function createAdminHandlers(state: MockState, { baseUrl = '' }: { baseUrl?: string } = {}): HttpHandler[] {
  const at = (p: string) => `${baseUrl.replace(/\/$/, '')}/__admin${p}`
  const admin = state.admin
  // Every call of the control API is a new state version (spec of the mock: the response cache keys on it).
  const answer = (run: () => unknown | Promise<unknown>, status = 200): Promise<Response> => {
    state.changed()
    return respond(run, status)
  }
  const handlers: HttpHandler[] = [
    http.get(at(''), () =>
      answer(() => ({
        routes: routesListing(adminMethods(admin).slice(1)),
      })),
    ),
    http.post(at('/reset'), async ({ request }) => answer(async () => admin.reset(await jsonBody(request)))),
    http.get(at('/clock'), () => answer(() => admin.clock())),
    http.post(at('/clock'), async ({ request }) => answer(async () => admin.setClock(await jsonBody(request)))),
    http.get(at('/faults'), () => answer(() => ({ faults: admin.faults() }))),
    http.post(at('/faults'), async ({ request }) => answer(async () => ({ fault: admin.addFault((await jsonBody(request)) as FaultInput) }), 201)),
    http.delete(at('/faults'), () => answer(() => (admin.clearFaults(), { faults: [] }))),
    http.get(at('/requests'), ({ request }) =>
      answer(async () => {
        const url = new URL(request.url)
        const limit = url.searchParams.get('limit')
        // As GET /__admin/traces reads its limit (mock/console/routes.ts): `abc` or `-1` is refused, not read as no limit.
        if (limit !== null && !/^\d+$/.test(limit)) throw apiError(400, 'limit must be a non-negative integer')
        return { requests: await admin.requests({ operationId: url.searchParams.get('operation') ?? undefined, limit: limit ? Number(limit) : undefined }) }
      }),
    ),
    http.delete(at('/requests'), () => answer(async () => (await admin.clearRequests(), { requests: [] }))),
    http.get(at('/world'), () => answer(() => admin.world())),
    http.get(at('/state'), () => answer(() => state.inspect())),
    // What an operator scrapes: the store, the log's head, this replica's lag and the store's round trip.
    http.get(at('/metrics'), () => answer(() => state.twin.metrics())),
    ...createConsoleHandlers(state, { baseUrl }),
    http.post(at('/*'), async ({ request }) => {
      const name = new URL(request.url).pathname.replace(/^.*?\/__admin\//, '')
      // A path of the control API's own that takes no POST (`/__admin/world`) is the fallback's 405.
      if (!admin.actions().includes(name) && pathMethods(adminMethods(admin)).allowOf(`/__admin/${name}`)) return undefined
      return answer(async () => ({ result: (await admin.run(name, await jsonBody(request))) ?? null }))
    }),
  ]
  // The control API's other methods (HEAD as GET, OPTIONS, 405 with Allow): mock/methods.ts.
  const fallback = methodFallback({ base: at(''), allowOf: (path) => pathMethods(adminMethods(admin)).allowOf(`/__admin${path === '/' ? '' : path}`), handlers: () => handlers })
  return [...handlers, ...fallback]
}
