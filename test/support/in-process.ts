/**
 * Calls into a mock in the test's own process, through each operation's MSW handler (msw's
 * `getResponse`): no sockets, so thousands of cases fit in a few seconds.
 */
import { getResponse } from 'msw'
import type { Contract, OperationInfo } from '../../openapi/index.ts'
import { createHandlers, createOperationRoutes, type OperationRoute } from '../../mock/handlers.ts'
import type { MockState } from '../../mock/state.ts'
import { contractProblem } from '../../mock/testing.ts'

export const IN_PROCESS_ORIGIN = 'https://robustness.test'

export interface Answer {
  status: number
  text: string
  headers: Headers
  ms: number
}

export interface CallInput {
  /** The path with its parameters filled (default: the operation's path). */
  path?: string
  /** The query string without `?`. */
  query?: string
  headers?: Record<string, string>
  body?: string
}

export interface InProcessClient {
  routes: Map<string, OperationRoute>
  /** Calls one operation's handler; rejects when no answer comes within `timeoutMs`. */
  call(op: OperationInfo, input?: CallInput): Promise<Answer>
}

/** Rejects with `message` when `promise` has not settled within `ms` (the timer never outlives it). */
export async function withTimeout<T>(promise: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(message)), ms)
  })
  try {
    return await Promise.race([promise, timeout])
  } finally {
    clearTimeout(timer)
  }
}

export function createInProcessClient(state: MockState, { timeoutMs = 5_000, log = () => {} }: { timeoutMs?: number; log?: (error: unknown) => void } = {}): InProcessClient {
  const routes = new Map(createOperationRoutes(state, { baseUrl: IN_PROCESS_ORIGIN, log }).map((r) => [r.op.operationId, r]))
  return {
    routes,
    async call(op, { path = op.path, query = '', headers = {}, body } = {}) {
      const route = routes.get(op.operationId)!
      const url = `${IN_PROCESS_ORIGIN}${path}${query ? `?${query}` : ''}`
      const request = new Request(url, { method: op.method, headers, body: op.method === 'GET' ? undefined : body })
      const started = performance.now()
      const answer = await withTimeout(
        (async () => {
          const response = await getResponse([route.handler], request)
          if (!response) throw new Error(`${op.operationId}: the handler did not match ${op.method} ${url}`)
          return { status: response.status, text: await response.text(), headers: response.headers }
        })(),
        timeoutMs,
        `${op.operationId}: no answer within ${timeoutMs} ms`,
      )
      return { ...answer, ms: performance.now() - started }
    },
  }
}

/**
 * What is wrong with an answer, robustness-wise: a 5xx, a non-JSON or non-`{error}` 4xx, or a
 * status or body the contract does not document for the operation. Empty when fine.
 */
export function answerProblems(contract: Contract, op: OperationInfo, answer: { status: number; text: string; headers: Headers }): string[] {
  const problems: string[] = []
  if (answer.status >= 500) problems.push(`${op.operationId}: ${answer.status} ${answer.text.slice(0, 300)}`)
  if (!/^application\/json/.test(answer.headers.get('content-type') ?? '')) problems.push(`${op.operationId}: content-type ${answer.headers.get('content-type')}`)
  if (answer.status >= 400) {
    let body: unknown
    try {
      body = JSON.parse(answer.text)
    } catch {
      body = undefined
    }
    const ok = !!body && typeof body === 'object' && !Array.isArray(body) && Object.keys(body).join() === 'error' && typeof (body as { error: unknown }).error === 'string' && (body as { error: string }).error.length > 0
    if (!ok) problems.push(`${op.operationId}: ${answer.status} is not {error: string}: ${answer.text.slice(0, 300)}`)
  }
  const problem = contractProblem(contract, op, answer.status, answer.text)
  if (problem) problems.push(problem)
  return problems
}

const handlersOf = new WeakMap<MockState, ReturnType<typeof createHandlers>>()

/** Calls a mock state's MSW handlers with the demo key and a shop: `(method, path, body, shopId, headers)`. */
export function fetchOf(state: MockState, apiKey = 'demo-key') {
  let handlers = handlersOf.get(state)
  if (!handlers) handlersOf.set(state, (handlers = createHandlers(state, { baseUrl: IN_PROCESS_ORIGIN, log: () => {} })))
  return async (method: string, path: string, body?: unknown, shopId?: string, headers: Record<string, string> = {}) => {
    const request = new Request(`${IN_PROCESS_ORIGIN}${path}`, {
      method,
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey, ...(shopId ? { 'x-shop-id': shopId } : {}), ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const response = (await getResponse(handlers!, request))!
    return { status: response.status, text: await response.text(), headers: response.headers }
  }
}
