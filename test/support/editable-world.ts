/**
 * A mock whose world a test may edit in place, for the edge cases the generator does not make (a
 * creative without a post date, a request whose status lags its timestamps). Everywhere else the
 * world is read-only (frozen in tests); this one is built with `freezeWorld: false` and answers in
 * process, without an MSW server, so a file can hold it beside its shared harness.
 */
import { getResponse } from 'msw'
import { createHandlers, createMockState } from '../../mock/index.ts'

export function editableWorldMock({ baseUrl = 'https://editable.example.com', now = '2026-03-10T12:00:00.000Z', seed = 42 } = {}) {
  const state = createMockState({ seed, now, rateLimit: false, strict: true, freezeWorld: false })
  const handlers = createHandlers(state, { baseUrl, log: () => {} })
  /** POSTs a body to a path for a shop (default: the main shop); the status and the parsed answer. */
  async function post(path: string, body: unknown, shop = state.world.shops[0]!.shop_id): Promise<{ status: number; json: any }> {
    const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop }
    const response = (await getResponse(handlers, new Request(`${baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) })))!
    return { status: response.status, json: await response.json() }
  }
  return { state, post }
}
