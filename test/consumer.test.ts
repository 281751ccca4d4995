/**
 * shoptwin as its users get it (issue 14: an installable package): `npm pack`, installed into a
 * fresh client project outside the repository, used there with the consumer's Node 24 and Node 22
 * (the npm package `node@22`, as this repository gets its own Node): MSW handlers under the client's
 * vitest exactly as the README shows, plain `node` imports, the CLI (serve on port 0, a request, a
 * clean stop; conformance --list; fixtures), the client's own strict `tsc` with an openapi-fetch
 * client typed by `shoptwin/openapi`, and a bundled page running MSW's `setupWorker` with
 * `shoptwin/mock` in a real browser (Debian's headless Chromium through puppeteer-core).
 */
import { execFile, spawn } from 'node:child_process'
import { existsSync, mkdirSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { build } from 'esbuild'
import puppeteer from 'puppeteer-core'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { copyWorkingTree } from './support/working-tree.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('..', import.meta.url))
const pkg = (await import('../package.json', { with: { type: 'json' } })).default as { peerDependencies: Record<string, string>; dependencies: Record<string, string>; devDependencies: Record<string, string>; exports: unknown; engines: unknown; bin: unknown }
let dir: string
/** What `npm install` of the tarball printed. */
let installLog = ''
/** The copy of the working tree the tarball was packed from. */
let packed: string
let node22: string

/** Runs a command in the client project; rejects with its output when it fails. */
async function sh(command: string, args: string[], env: Record<string, string> = {}): Promise<string> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: dir, env: { ...process.env, ...env, npm_config_update_notifier: 'false' }, maxBuffer: 64 * 1024 * 1024, timeout: 240_000 })
    return stdout + stderr
  } catch (error) {
    const e = error as { stdout?: string; stderr?: string; message: string }
    throw new Error(`${command} ${args.join(' ')} failed: ${e.message}\n${e.stdout ?? ''}\n${e.stderr ?? ''}`)
  }
}

const CLIENT_TEST = `
import { setupServer } from 'msw/node'
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest'
import { createHandlers, createMockState } from 'shoptwin/mock'

const BASE = 'https://api.example.com'
const state = createMockState({ seed: 42, scale: 'small', today: '2026-11-20', now: '2026-11-20T10:00:00Z', rateLimit: false })
const server = setupServer(...createHandlers(state, { baseUrl: BASE }))
beforeAll(() => server.listen())
afterEach(() => { server.resetHandlers(); state.reset() })
afterAll(() => server.close())

const shop = () => state.world.shops.find((s) => s.is_active && s.plan === 'scale').shop_id
const post = (path, body, headers = {}) => fetch(BASE + path, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop(), ...headers }, body: JSON.stringify(body) })

it('an idempotent retry replays the first answer byte for byte', async () => {
  const first = await post('/lists/create', { title: 'retry', handles: [] }, { 'idempotency-key': 'retry-1' })
  const again = await post('/lists/create', { title: 'retry', handles: [] }, { 'idempotency-key': 'retry-1' })
  expect(again.status).toBe(first.status)
  expect(await again.text()).toBe(await first.text())
})

it('a stale write gets 412, a taken name 409', async () => {
  const board = (await (await post('/dashboards/create', { name: 'Weekly' })).json()).data
  expect((await post('/dashboards/create', { name: 'Weekly' })).status).toBe(409)
  state.clock.advance(60_000)
  expect((await post('/dashboards/update', { dashboard_id: board.id, name: 'Monthly' })).status).toBe(200)
  expect((await post('/dashboards/update', { dashboard_id: board.id, name: 'Yearly', expected_updated_at: board.updated_at })).status).toBe(412)
})

it('the clock: an idempotency record is gone after 24 hours', async () => {
  await post('/lists/create', { title: 'expiring', handles: [] }, { 'idempotency-key': 'exp-1' })
  const lookup = () => fetch(BASE + '/idempotency/exp-1', { headers: { 'x-api-key': 'demo-key', 'x-shop-id': shop() } })
  expect((await lookup()).status).toBe(200)
  state.clock.advance(25 * 60 * 60 * 1000)
  expect((await lookup()).status).toBe(404)
})
`

const PLAIN_NODE = `
import { createHandlers, createMockState } from 'shoptwin/mock'
import { createWorld } from 'shoptwin/fixtures'
import { catalogue } from 'shoptwin/conformance'
const state = createMockState({ seed: 42, today: '2026-11-20', now: '2026-11-20T10:00:00Z' })
const world = createWorld({ seed: 1, today: '2026-11-20' })
console.log(JSON.stringify({ node: process.version, handlers: createHandlers(state, { baseUrl: 'https://api.example.com' }).length, shops: world.shops.length, rules: catalogue.length }))
`

const TYPED_CLIENT = `
import createClient from 'openapi-fetch'
import type { paths } from 'shoptwin/openapi'
import { createHandlers, createMockState } from 'shoptwin/mock'
import { createWorld } from 'shoptwin/fixtures'
const state = createMockState({ seed: 42, scale: 'small', today: '2026-11-20', rateLimit: false })
const handlers = createHandlers(state, { baseUrl: 'https://api.example.com' })
const world = createWorld({ seed: 1, today: '2026-11-20' })
const client = createClient<paths>({ baseUrl: 'https://api.example.com' })
export async function main(): Promise<number> {
  const params = { header: { 'x-shop-id': world.shops[0]!.shop_id } }
  const { data } = await client.POST('/dashboards/create', { params, body: { name: 'Weekly' } })
  // @ts-expect-error the contract requires a body here
  await client.POST('/dashboards/create', { params })
  return handlers.length + (data ? data.data.widget_count : 0)
}
`

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'

const BROWSER_PAGE = `
import { setupWorker } from 'msw/browser'
import { createHandlers, createMockState } from 'shoptwin/mock'

const state = createMockState({ seed: 42, scale: 'small', today: '2026-11-20', now: '2026-11-20T10:00:00Z', rateLimit: false })
const base = location.origin + '/api'
const worker = setupWorker(...createHandlers(state, { baseUrl: base }))
await worker.start({ quiet: true, onUnhandledFrame: 'bypass' })
const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale').shop_id
const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shop }
const shops = await fetch(base + '/account/shops', { headers: { 'x-api-key': 'demo-key' } })
const missing = await fetch(base + '/shop/sps', { headers: { 'x-api-key': 'demo-key' } })
const write = () => fetch(base + '/lists/create', { method: 'POST', headers: { ...headers, 'idempotency-key': 'browser-1' }, body: JSON.stringify({ title: 'browser', handles: [] }) })
const first = await write()
const again = await write()
window.results = {
  list: { status: shops.status, count: (await shops.json()).data.length },
  error: { status: missing.status, body: await missing.json() },
  replay: { first: first.status, same: (await first.text()) === (await again.text()), again: again.status },
}
document.body.textContent = JSON.stringify(window.results)
`

describe('shoptwin installed in a client project (issue 14)', () => {
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'shoptwin-consumer-'))
    // Packed from a copy of the working tree: a pack in the repository rebuilds its dist/ under the other test files.
    packed = join(dir, 'shoptwin')
    await copyWorkingTree(packed, { nodeModules: true })
    await run('npm', ['pack', '--pack-destination', dir], { cwd: packed, maxBuffer: 64 * 1024 * 1024, timeout: 240_000 })
    const tarball = (await readdir(dir)).find((f) => f.endsWith('.tgz'))!
    await writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'client', version: '1.0.0', private: true, type: 'module', allowScripts: { node: true, msw: true } }))
    await writeFile(join(dir, 'client.test.mjs'), CLIENT_TEST)
    await writeFile(join(dir, 'app.mjs'), PLAIN_NODE)
    await writeFile(join(dir, 'client.ts'), TYPED_CLIENT)
    await writeFile(join(dir, 'tsconfig.json'), JSON.stringify({ compilerOptions: { target: 'ES2023', module: 'NodeNext', moduleResolution: 'NodeNext', strict: true, skipLibCheck: false, noEmit: true, lib: ['ES2023', 'DOM'], types: ['node'] }, include: ['client.ts'] }))
    installLog = await sh('npm', ['install', '--no-audit', '--no-fund', `./${tarball}`, `msw@${pkg.peerDependencies.msw}`, `vitest@${pkg.devDependencies.vitest}`, 'typescript@^5.9', 'openapi-fetch@^0.17', '@types/node@^24', 'node@22'])
    node22 = join(dir, 'node_modules', 'node', 'bin', 'node')
  }, 600_000)
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('the packed package.json carries no scripts, dev dependencies or workspaces: npm lists nothing of shoptwin among the install scripts to approve; the repository\'s manifest is as it was', async () => {
    const installed = JSON.parse(await readFile(join(dir, 'node_modules', 'shoptwin', 'package.json'), 'utf8')) as Record<string, unknown>
    for (const field of ['scripts', 'devDependencies', 'allowScripts', 'workspaces']) expect(installed, field).not.toHaveProperty(field)
    expect(installed).toMatchObject({ name: 'shoptwin', exports: pkg.exports, dependencies: pkg.dependencies, peerDependencies: pkg.peerDependencies, engines: pkg.engines, bin: pkg.bin })
    expect(installLog).not.toMatch(/install-scripts.*shoptwin/)
    // postpack put the repository's own manifest back (prepack stripped it for the tarball).
    expect(JSON.parse(await readFile(join(packed, 'package.json'), 'utf8'))).toHaveProperty('scripts.prepare')
    await expect(stat(join(packed, '.package.json.unpacked'))).rejects.toThrow()
  })

  it('the README\'s MSW set-up under the client\'s own vitest: replay, 409, 412, the clock', async () => {
    const out = await sh(process.execPath, ['node_modules/vitest/vitest.mjs', 'run', 'client.test.mjs'])
    expect(out).toMatch(/3 passed/)
  }, 240_000)

  it.each([
    ['Node 24', () => process.execPath, /^v24\./],
    ['Node 22', () => node22, /^v22\./],
  ])('plain node imports shoptwin/mock, /fixtures and /conformance (%s)', async (_label, nodeOf, version) => {
    const out = JSON.parse((await sh(nodeOf(), ['app.mjs'])).trim().split('\n').pop()!)
    expect(out.node).toMatch(version)
    expect(out).toMatchObject({ handlers: expect.any(Number), shops: 4, rules: expect.any(Number) })
    expect(out.handlers).toBeGreaterThan(80)
  }, 120_000)

  it('the client\'s strict tsc (skipLibCheck false) accepts the package\'s types and an openapi-fetch client typed by shoptwin/openapi', async () => {
    await sh(process.execPath, ['node_modules/typescript/bin/tsc', '-p', 'tsconfig.json'])
  }, 120_000)

  it.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('in the browser: a bundled page with MSW\'s setupWorker and shoptwin/mock answers its fetch calls (a list, a 400 {error}, a replay)', async () => {
    const site = join(dir, 'public')
    await mkdir(site, { recursive: true })
    await sh(process.execPath, ['node_modules/msw/cli/index.js', 'init', 'public', '--no-save'])
    await writeFile(join(dir, 'page.mjs'), BROWSER_PAGE)
    await build({ absWorkingDir: dir, entryPoints: ['page.mjs'], bundle: true, platform: 'browser', format: 'esm', outfile: join(site, 'page.js'), logLevel: 'silent' })
    await writeFile(join(site, 'index.html'), '<!doctype html><meta charset="utf-8"><title>client</title><body>loading</body><script type="module" src="/page.js"></script>')
    const types: Record<string, string> = { '.html': 'text/html', '.js': 'text/javascript' }
    const server = createServer(async (req, res) => {
      const path = join(site, new URL(req.url ?? '/', 'http://x').pathname)
      const body = await readFile(path).catch(() => undefined)
      if (body === undefined) res.writeHead(404).end()
      else res.writeHead(200, { 'content-type': types[path.slice(path.lastIndexOf('.'))] ?? 'application/octet-stream' }).end(body)
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    const browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
    try {
      const page = await browser.newPage()
      await page.goto(`http://127.0.0.1:${(server.address() as AddressInfo).port}/index.html`)
      await page.waitForFunction(() => (window as unknown as { results?: unknown }).results !== undefined, { timeout: 30_000 })
      const results = await page.evaluate(() => (window as unknown as { results: unknown }).results)
      expect(results).toEqual({
        list: { status: 200, count: 4 },
        error: { status: 400, body: { error: 'Missing X-Shop-Id header' } },
        replay: { first: 201, same: true, again: 201 },
      })
      mkdirSync(join(root, 'test-results'), { recursive: true })
      await page.screenshot({ path: join(root, 'test-results', 'consumer-browser.png') })
    } finally {
      await browser.close()
      await new Promise((resolve) => server.close(resolve))
    }
  }, 120_000)

  it.each([
    ['Node 24', () => process.execPath],
    ['Node 22', () => node22],
  ])('the CLI (%s): serve on port 0, a request, a clean stop on SIGTERM; conformance --list; fixtures', async (_label, nodeOf) => {
    const bin = join(dir, 'node_modules', 'shoptwin', 'bin', 'shoptwin.mjs')
    const child = spawn(nodeOf(), [bin, 'serve', '--port', '0', '--scale', 'small'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = ''
        child.stdout.on('data', (chunk) => {
          text += chunk
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)
          if (match) resolve(match[1]!)
        })
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${text}`)))
      })
      expect(await (await fetch(`${url}/health`)).json()).toMatchObject({ status: 'ok' })
      const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
      child.kill('SIGTERM')
      expect(await exited).toBe(0)
    } finally {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL')
    }
    expect(await sh(nodeOf(), [bin, 'conformance', '--list'])).toMatch(/^auth\.ads-plan-gate\s+MUST/m)
    const out = join(dir, `world-${nodeOf() === node22 ? 22 : 24}`)
    await sh(nodeOf(), [bin, 'fixtures', '--seed', '1', '--scale', 'small', '--today', '2026-11-20', '--out', out])
    expect(await readdir(out)).toContain('shops.json')
  }, 120_000)

  it('conformance runs in process from the installed package: vitest is no dependency, nothing is written under node_modules/shoptwin (issue 25)', async () => {
    const installed = join(dir, 'node_modules', 'shoptwin')
    const manifest = JSON.parse(await readFile(join(installed, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }
    expect(Object.keys(manifest.dependencies)).not.toContain('vitest')
    const files = async () => (await readdir(installed, { recursive: true })).sort()
    const before = await files()
    const bin = join(installed, 'bin', 'shoptwin.mjs')
    const child = spawn(process.execPath, [bin, 'serve', '--port', '0', '--scale', 'small', '--rate-limit', 'off'], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let text = ''
        child.stdout.on('data', (chunk) => {
          text += chunk
          const match = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(text)
          if (match) resolve(match[1]!)
        })
        child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${text}`)))
      })
      const shops = (await (await fetch(`${url}/account/shops`, { headers: { 'x-api-key': 'demo-key' } })).json()) as { data: Array<{ shop_id: string; is_active: boolean }> }
      const shopId = shops.data.find((s) => s.is_active)!.shop_id
      const report = join(dir, 'conformance-report')
      const out = await sh(process.execPath, [bin, 'conformance', '--base-url', url, '--api-key', 'demo-key', '--shop-id', shopId, '--rules', 'auth.missing-shop-header,idempotency.key-format', '--rps', '50', '--report-dir', report])
      expect(out).toMatch(/\[1\/3\] PASS auth\.missing-shop-header/)
      expect((await readdir(report)).sort()).toEqual(['junit.xml', 'report.html', 'report.json'])
    } finally {
      child.kill('SIGTERM')
    }
    expect(await files()).toEqual(before)
  }, 120_000)
})
