/**
 * `--inject standard|strict|FILE`: certify-client's adversity schedule (conformance/certify-client/
 * schedule.ts, the same profiles and seed placement) applied at the proxy, in front of a real server:
 * a 429 with Retry-After and a 503 answered without forwarding, a 500 or a dropped connection after the
 * upstream acted (applied), a 409 in flight, a write held past the client's timeout (its retry is
 * forwarded while the held write is in flight at the upstream, which answers its own 409 or its replay).
 * The board changed by someone else (the twin edits it through its control API) cannot be made on a
 * real server without changing the customer's data: the proxy answers that update 412 itself.
 */
import { messages } from '../mock/messages.ts'
import { keyIdOf } from '../conformance/certify-client/session.ts'
import { createSchedule } from '../conformance/certify-client/schedule.ts'
import type { Profile } from '../conformance/certify-client/profile.ts'
import type { Injector } from './server.ts'

export function createInjector(profile: Profile, seed: number): Injector {
  const schedule = createSchedule(profile, seed, {
    // spec: Errors: 412 on a stale expected_updated_at (Dashboards: POST /dashboards/update).
    staleBoard: () => ({ kind: 'status', situation: '412 stale board (not forwarded)', status: 412, message: messages.dashboardChanged() }),
  })
  const keyIds = new Map<string, string>()
  const keyId = (key: string) => {
    let id = keyIds.get(key)
    if (id === undefined) keyIds.set(key, (id = keyIdOf(key)))
    return id
  }
  return {
    decide(x, op) {
      const key = x.requestHeaders['x-api-key']
      return schedule({ keyId: key ? keyId(key) : null, shopId: x.requestHeaders['x-shop-id'] ?? null, idempotencyKey: x.requestHeaders['idempotency-key'] ?? null, bodyText: x.requestBody }, op)
    },
  }
}
