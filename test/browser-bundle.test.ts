import { readFile } from 'node:fs/promises'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { getResponse } from 'msw'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isWrite, typicalRequest } from '../conformance/examples.ts'
import { serializeQuery } from '../conformance/runner/run-rule.ts'
import { createHandlers, createMockState, type MockStateOptions } from '../mock/index.ts'
import { loadContract } from '../openapi/index.ts'
import { useChromium, withoutChromium } from './support/report-page.ts'

describe('shoptwin/mock in the browser (MSW setupWorker)', () => {
  it('the browser entry bundles for the browser platform with no Node built-in (mock/browser.ts)', async () => {
    const result = await build({
      entryPoints: [new URL('../mock/browser.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      metafile: true,
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.filter((i) => i.startsWith('node:'))).toEqual([])
    // The contract travels inside the bundle, as a JSON module.
    expect(inputs.some((i) => i.endsWith('openapi/openapi.json'))).toBe(true)
    expect(result.outputFiles[0]!.text.length).toBeGreaterThan(0)
  })
})

/** One call of the sweep, as fetch takes it. */
interface Call {
  operation: string
  url: string
  method: string
  headers: Record<string, string>
  body?: string
}

/** What a call answered. */
interface Answer {
  operation: string
  status: number
  body: string
}

// A frozen clock and one seed: the twin in Node and the twin in the page answer alike.
const STATE_OPTIONS: MockStateOptions = { seed: 42, scale: 'small', today: '2026-11-20', now: '2026-11-20T10:00:00.000Z', rateLimit: false }

/** A typical request to every operation of the contract (writes with an Idempotency-Key, then again: the replay). */
function sweepCalls(baseUrl: string, shopId: string): Call[] {
  const contract = loadContract()
  const calls: Call[] = []
  for (const op of contract.operations) {
    const request = typicalRequest(contract, op, { shop_id: shopId })
    const path = op.path.replace(/\{[^}]+\}/g, 'browser-sweep')
    const headers: Record<string, string> = { 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shopId }
    if (op.method !== 'GET') headers['content-type'] = 'application/json'
    if (op.idempotent) headers['idempotency-key'] = `browser-${op.operationId}`
    const call: Call = { operation: op.permission, url: `${baseUrl}${path}${serializeQuery(request.query ?? {})}`, method: op.method, headers }
    if (op.method !== 'GET') call.body = JSON.stringify(request.body ?? {})
    calls.push(call)
    if (isWrite(op) && op.idempotent) calls.push({ ...call, operation: `${op.permission} (replay)` })
  }
  return calls
}

// The page: MSW's worker started with the browser entry's handlers, as the README has it, and the sweep run through fetch.
const PAGE_SCRIPT = `
import { setupWorker } from 'msw/browser'
import { createHandlers, createMockState } from './mock/browser.ts'

const baseUrl = location.origin + '/api'
const state = createMockState(${JSON.stringify(STATE_OPTIONS)})
const worker = setupWorker(...createHandlers(state, { baseUrl }))
window.sweep = async (calls) => {
  const answers = []
  for (const call of calls) {
    const response = await fetch(call.url, { method: call.method, headers: call.headers, body: call.body })
    answers.push({ operation: call.operation, status: response.status, body: await response.text() })
  }
  return answers
}
worker.start({ quiet: true }).then(() => { window.started = true }, (error) => { window.started = String(error) })
`

describe.skipIf(withoutChromium)('shoptwin/mock under MSW\'s setupWorker in headless Chromium', () => {
  const chromium = useChromium('shoptwin-browser-bundle-')
  let server: Server
  let origin: string
  beforeAll(async () => {
    const root = fileURLToPath(new URL('..', import.meta.url))
    const bundle = await build({ stdin: { contents: PAGE_SCRIPT, resolveDir: root, loader: 'js' }, bundle: true, platform: 'browser', format: 'esm', write: false, logLevel: 'silent' })
    const files: Record<string, { type: string; body: string | Buffer }> = {
      '/index.html': { type: 'text/html', body: '<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><title>shoptwin in the browser</title><script type="module" src="/page.js"></script>' },
      '/page.js': { type: 'text/javascript', body: bundle.outputFiles[0]!.text },
      '/mockServiceWorker.js': { type: 'text/javascript', body: await readFile(new URL('../node_modules/msw/lib/mockServiceWorker.js', import.meta.url)) },
    }
    server = createServer((req, res) => {
      const file = files[new URL(req.url ?? '/', 'http://x').pathname]
      if (file) res.writeHead(200, { 'content-type': file.type }).end(file.body)
      else res.writeHead(404).end()
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    origin = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  }, 60_000)
  afterAll(async () => {
    // Chromium keeps its connections open until it closes (after this hook).
    server?.closeAllConnections()
    await new Promise((resolve) => server?.close(resolve))
  })

  it('every operation answers in the page as in Node (status and body), with no console error: a Node-only global (Buffer, process) reachable from mock/browser.ts is a 500 there', async () => {
    const baseUrl = `${origin}/api`
    const shopId = createMockState(STATE_OPTIONS).world.shops[0]!.shop_id
    const calls = sweepCalls(baseUrl, shopId)

    // Node: the package's Node entry, in process.
    const state = createMockState(STATE_OPTIONS)
    const handlers = createHandlers(state, { baseUrl })
    const inNode: Answer[] = []
    for (const call of calls) {
      const response = await getResponse(handlers, new Request(call.url, { method: call.method, headers: call.headers, body: call.body }))
      inNode.push({ operation: call.operation, status: response?.status ?? 0, body: (await response?.text()) ?? '' })
    }

    const page = await chromium.browser().newPage()
    const problems: string[] = []
    page.on('console', (message) => {
      // Chromium logs every 4xx the page fetched; the sweep asks for many on purpose.
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text())
    })
    page.on('pageerror', (error) => problems.push(String(error)))
    await page.goto(`${origin}/index.html`)
    await page.waitForFunction(() => (window as unknown as { started?: unknown }).started !== undefined, { timeout: 30_000 })
    expect(await page.evaluate(() => (window as unknown as { started: unknown }).started)).toBe(true)
    const inBrowser = await page.evaluate((c) => (window as unknown as { sweep: (c: Call[]) => Promise<Answer[]> }).sweep(c), calls)

    expect(calls.length).toBeGreaterThan(100)
    expect(inNode.filter((a) => a.status >= 500)).toEqual([])
    // The browser's answers, compared where they differ (the whole list would drown the one that matters).
    const differing = inBrowser.filter((a, i) => a.status !== inNode[i]!.status || a.body !== inNode[i]!.body)
    expect(differing.map((a) => ({ ...a, body: a.body.slice(0, 200), inNode: inNode[inBrowser.indexOf(a)]!.status }))).toEqual([])
    expect(problems).toEqual([])
  }, 120_000)
})
