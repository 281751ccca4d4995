/**
 * The registry of area modules. Each area (mock/areas/<area>.ts) exports an AreaModule:
 * `handlers` by operationId, optional input `normalizers` and control-API `adminActions`.
 * Add yours to `modules` below; aliases (`/v1/ads/...`, GET forms) reach the canonical handler
 * by themselves.
 */
import type { AdminAction, AreaHandler, AreaModule, InputNormalizer, TypedHandler } from '../context.ts'
import { account } from './account.ts'
import { halo } from './halo.ts'
import { enterprise } from './enterprise.ts'
import { ads } from './ads.ts'
import { social } from './social.ts'
import { dashboards } from './dashboards.ts'
import { samples } from './samples.ts'
import { stats } from './stats.ts'
import { timeseries } from './timeseries.ts'
import { content } from './content.ts'
import { spark } from './spark.ts'
import { outreach } from './outreach.ts'

export const modules: Record<string, AreaModule> = {
  account,
  halo,
  enterprise,
  ads,
  social,
  dashboards,
  samples,
  stats,
  timeseries,
  content,
  outreach,
  spark,
}

function collect<T>(pick: (m: AreaModule) => Record<string, T> | undefined, what: string): Record<string, T> {
  const out: Record<string, T> = {}
  for (const [area, module] of Object.entries(modules)) {
    for (const [id, value] of Object.entries(pick(module) ?? {})) {
      if (id in out) throw new Error(`${what} ${id} is defined by two areas (second: ${area})`)
      out[id] = value
    }
  }
  return out
}

/** Every area handler by operationId; a handler made with defineHandler must be registered under its own operation. */
export const areaHandlers: Record<string, AreaHandler> = checkHandlerNames(collect((m) => m.handlers, 'handler'))

/** Refuses a handler made by defineHandler for one operation and registered under another. */
export function checkHandlerNames(handlers: Record<string, AreaHandler>): Record<string, AreaHandler> {
  for (const [id, handler] of Object.entries(handlers)) {
    const named = (handler as Partial<TypedHandler>).operationId
    if (named !== undefined && named !== id) throw new Error(`the handler of ${named} is registered as ${id}`)
  }
  return handlers
}
/** Input normalizers (camelCase and legacy keys) by operationId. */
export const areaNormalizers: Record<string, InputNormalizer> = collect((m) => m.normalizers, 'normalizer')
/** Control-API actions by name (`samples/arrive` → `POST /__admin/samples/arrive`). */
export const areaAdminActions: Record<string, AdminAction> = collect((m) => m.adminActions, 'admin action')

/** The handlers the response cache may serve again (each area's `cacheable`), by operationId. */
export const areaCacheableReads: Record<string, AreaHandler> = Object.fromEntries(
  Object.values(modules).flatMap((m) => (m.cacheable ?? []).map((id) => {
    const handler = m.handlers[id]
    if (!handler) throw new Error(`cacheable ${id} has no handler in its area`)
    return [id, handler] as const
  })),
)
