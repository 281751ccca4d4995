/**
 * Typed handlers (mock/context.ts defineHandler; issue 16): a handler names its operation, the areas'
 * registry refuses one registered under another operation, and the dashboards' typed handlers are
 * the ones the mock runs.
 */
import { describe, expect, it } from 'vitest'
import { defineHandler } from '../mock/context.ts'
import { areaHandlers, checkHandlerNames } from '../mock/areas/index.ts'

describe('typed handlers (issue 16: one context type, input typed from the contract)', () => {
  it('handlers: a defineHandler handler registered under another operation is refused, naming both', () => {
    const handler = defineHandler('getDashboard', () => ({ status: 200, body: {} }))
    expect(checkHandlerNames({ getDashboard: handler })).toEqual({ getDashboard: handler })
    expect(() => checkHandlerNames({ deleteDashboard: handler })).toThrow('the handler of getDashboard is registered as deleteDashboard')
  })

  it('handlers: every area handler of the registry names its operation (defineHandler), so an untyped handler fails here', () => {
    const unnamed = Object.entries(areaHandlers)
      .filter(([id, handler]) => (handler as { operationId?: string }).operationId !== id)
      .map(([id]) => id)
    expect(unnamed).toEqual([])
    expect(Object.keys(areaHandlers).length).toBeGreaterThan(60)
  })

  it('handlers: every dashboards operation runs a handler that names it', () => {
    for (const id of ['listDashboards', 'getDashboard', 'createDashboard', 'updateDashboard', 'deleteDashboard', 'getDashboardData']) {
      expect((areaHandlers[id] as { operationId?: string }).operationId).toBe(id)
    }
  })
})
