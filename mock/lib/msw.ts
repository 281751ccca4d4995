/**
 * MSW, loaded on first use. Importing msw costs a server start some 120 ms of CPU (it also loads
 * Node's fetch, undici), and the standalone server answers its fixed-path operations without it
 * (mock/server.ts's fast path): the first `GET /health` needs none of it. The MSW handlers are made
 * with these `http` and `getResponse`, which load msw when first called. In Node that is a require of
 * msw's ES module (Node 22.12+ loads it synchronously, and it is the same module instance as an
 * `import 'msw'` elsewhere, so the handlers are the user's msw's own); where there is no require (a
 * browser bundle), mock/browser.ts hands the bundled msw over with `provideMsw` first.
 */
import type * as Msw from 'msw'

type MswModule = Pick<typeof Msw, 'http' | 'getResponse'>

let provided: MswModule | undefined

/** Hands the handlers msw where Node's require is not there (mock/browser.ts does, with the bundled one). */
export function provideMsw(module: MswModule): void {
  provided ??= module
}

function msw(): MswModule {
  if (provided) return provided
  const nodeModule = globalThis.process?.getBuiltinModule?.('node:module')
  if (!nodeModule) throw new Error('shoptwin/mock: msw is not loaded here: import shoptwin/mock through its browser entry, or call provideMsw')
  provided = nodeModule.createRequire(import.meta.url)('msw') as MswModule
  return provided
}

const METHODS = ['all', 'head', 'get', 'post', 'put', 'delete', 'patch', 'options'] as const

/** msw's `http`: each method loads msw on its first call. */
export const http = Object.fromEntries(METHODS.map((method) => [method, (...args: unknown[]) => (msw().http[method] as (...a: unknown[]) => unknown)(...args)])) as unknown as typeof Msw.http

/** msw's `getResponse`, loading msw on its first call. */
export const getResponse: typeof Msw.getResponse = (...args) => msw().getResponse(...args)
