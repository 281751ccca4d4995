/**
 * shoptwin/mock in the browser (MSW's setupWorker): everything of mock/index.ts but the standalone
 * Node server. Bundlers pick this entry through the `browser` condition of package.json's exports.
 *
 *   import { setupWorker } from 'msw/browser'
 *   import { createHandlers, createMockState } from 'shoptwin/mock'
 *   const state = createMockState({ seed: 42, rateLimit: false })
 *   await setupWorker(...createHandlers(state, { baseUrl: 'https://api.example.com' })).start()
 */
// First: hands the contract's validators the bundled ajv.
import '../openapi/browser.ts'
// And the handlers the bundled msw (in Node they require it on first use: mock/lib/msw.ts).
import { getResponse, http } from 'msw'
import { provideMsw } from './lib/msw.ts'
provideMsw({ http, getResponse })
export { createMockState, type MockState, type MockStateOptions, type MockStateSnapshot } from './state.ts'
export { createHandlers, createOperationRoutes, toMswPath, type HandlersOptions } from './handlers.ts'
export { createAdminHandlers, type Admin } from './admin.ts'
export { createClock, type Clock } from './clock.ts'
export { apiError, ApiError, json, type ApiResult } from './respond.ts'
export type { RequestContext, AreaHandler, AreaModule, InputNormalizer, AdminAction } from './context.ts'
export { paginate, pageWindow, type PageWindow } from './pipeline/paging.ts'
export { acceptCamelCase } from './normalize.ts'
export { requireDateRange, MISSING_DATE_RANGE, INVALID_IDEMPOTENCY_KEY } from './pipeline/validate.ts'
export type { World, WorldLike, ShopRecord, ApiKeyRecord } from './world.ts'
export { explain, type TraceStore, type TraceStoreOptions, type TraceFilter } from './trace/store.ts'
export { formatTrace, type FormatTraceOptions } from './trace/format.ts'
export { TRACE_HEADER, type Trace, type TraceDecision, type TraceSummary, type TraceStep } from './trace/types.ts'
