/**
 * The console (/__admin/console) in Debian's Chromium through playwright-core: exchanges appear live
 * while requests are sent, a click shows the trace, the clock and fault controls change what the
 * next request gets, 10,000 exchanges stay a light page, and axe-core finds no serious or critical
 * violation. Screenshots go to test-results/. Skipped where /usr/bin/chromium is absent outside CI
 * (.ci/run installs it; in CI a missing browser fails).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { chromium, type Browser, type Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type MockServer } from '../mock/server.ts'
import { createOperationRoutes } from '../mock/handlers.ts'
import { bundleConsole } from '../mock/console/build.ts'
import { CONSOLE_CSP } from '../mock/console/serve.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const axeSource = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8')

let mock: MockServer
let base: string
let browser: Browser
let shopId: string
const headers = () => ({ 'content-type': 'application/json', 'x-api-key': 'demo-key', 'x-shop-id': shopId })
const sps = () => fetch(`${base}/shop/sps`, { headers: headers() })

/** A page on the console, with what it logged and every request it made. */
async function openConsole(width = 1440, height = 1000): Promise<{ page: Page; problems: string[]; requested: string[] }> {
  const page = await browser.newPage({ viewport: { width, height } })
  const problems: string[] = []
  const requested: string[] = []
  page.on('console', (m) => (m.type() === 'error' || m.type() === 'warning') && problems.push(m.text()))
  page.on('pageerror', (e) => problems.push(String(e)))
  page.on('request', (r) => requested.push(r.url()))
  await page.goto(`${base}/__admin/console`)
  await page.waitForSelector('.conn.on')
  return { page, problems, requested }
}

const shot = (page: Page, name: string) => page.screenshot({ path: `test-results/${name}.png`, fullPage: true })

describe('the console bundle', () => {
  it('the committed bundle is the one its source builds (npm run build:console after editing mock/console/ui)', async () => {
    expect(readFileSync(new URL('../mock/console/assets/console.js', import.meta.url), 'utf8')).toBe(await bundleConsole())
  })
})

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('the console in headless Chromium', () => {
  beforeAll(async () => {
    mkdirSync('test-results', { recursive: true })
    mock = createServer({ stateOptions: { seed: 42, now: '2026-06-01T09:00:00.000Z', responseCache: true, trace: { size: 10_000 } } })
    base = await mock.listen(0, '127.0.0.1')
    shopId = mock.state.world.shops[0]!.shop_id
    browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'] })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })

  it('is served under a strict CSP, loads only its own assets and logs no error', async () => {
    const page = await fetch(`${base}/__admin/console`)
    expect(page.headers.get('content-security-policy')).toBe(CONSOLE_CSP)
    expect(CONSOLE_CSP).not.toMatch(/unsafe-inline|unsafe-eval|https?:/)
    const html = await page.text()
    expect(html).not.toMatch(/<script>|<style>|\sstyle=|\son\w+=/)
    const { page: tab, problems, requested } = await openConsole()
    expect(requested.every((u) => u.startsWith(base) || u.startsWith('data:'))).toBe(true)
    expect(problems).toEqual([])
    await tab.close()
  })

  it('exchanges appear live while requests are sent; a click shows the trace, the request, the answer and a curl', async () => {
    const { page, problems } = await openConsole()
    const before = await page.locator('.row').count()
    await mock.state.clock.advance(10_000)
    for (let i = 0; i < 5; i++) await sps()
    const bad = await fetch(`${base}/affiliate/crm/list`, { method: 'POST', headers: headers(), body: JSON.stringify({ page_size: 'ten', sort_direction: 'sideways' }) })
    const badId = bad.headers.get('x-shoptwin-trace')!
    await page.waitForFunction((n) => document.querySelectorAll('.row').length >= n, before + 6)
    const row = page.locator('.row', { has: page.locator('.id', { hasText: new RegExp(`^${badId}$`) }) })
    await row.click()
    await page.waitForSelector('.decision.failed')
    const text = await page.locator('.trace').innerText()
    expect(text).toContain('validation')
    expect(text).toContain('sort_direction must be one of "asc", "desc"')
    expect(text).toContain('spec: Errors')
    expect(text).toContain("-H 'x-api-key: <API_KEY>'")
    expect(text).not.toContain('demo-key')
    await shot(page, 'console-trace')
    expect(problems).toEqual([])
    await page.close()
  })

  it('the clock control changes what the next request gets: +1 s empties the rate window', async () => {
    const { page } = await openConsole()
    // The clock is frozen: ten requests fill this second's window, the eleventh is refused.
    await mock.state.clock.advance(10_000)
    for (let i = 0; i < 10; i++) expect((await sps()).status).toBe(200)
    expect((await sps()).status).toBe(429)
    const was = mock.state.clock.nowMs()
    await page.getByRole('button', { name: '+1 s' }).click()
    await page.waitForFunction(() => document.querySelector('.notice')?.textContent?.includes('Clock advanced 1 s'))
    expect(mock.state.clock.nowMs()).toBe(was + 1000)
    expect((await sps()).status).toBe(200)
    await page.getByRole('button', { name: '+1 day' }).click()
    await page.waitForFunction(() => document.querySelector('.notice')?.textContent?.includes('Clock advanced 1 day'))
    expect(mock.state.clock.nowMs()).toBe(was + 1000 + 86_400_000)
    await page.getByRole('button', { name: 'Run' }).click()
    await page.waitForFunction(() => document.querySelector('.notice')?.textContent?.includes('Clock running'))
    expect(mock.state.clock.frozen).toBe(false)
    await page.getByRole('button', { name: 'Freeze' }).click()
    await page.waitForFunction(() => document.querySelector('.notice')?.textContent?.includes('Clock frozen'))
    expect(mock.state.clock.frozen).toBe(true)
    await page.close()
  })

  it('the fault controls change what the next request gets: added, the next is 503; removed, the next is 200', async () => {
    const { page } = await openConsole()
    await mock.state.clock.advance(10_000)
    const form = page.locator('.fault-form')
    await form.getByLabel('Route').fill('getShopSps')
    await form.getByLabel('Status').fill('503')
    await form.getByLabel('Count').fill('5')
    await page.getByRole('button', { name: 'Add fault' }).click()
    await page.waitForSelector('text=Remove')
    const faulted = await sps()
    expect(faulted.status).toBe(503)
    await shot(page, 'console-faults')
    await page.getByRole('button', { name: /Remove fault/ }).click()
    await page.waitForSelector('text=No fault injected.')
    expect(mock.state.faults.list()).toEqual([])
    expect((await sps()).status).toBe(200)
    await page.close()
  })

  it('shows the rate counters, idempotency records, area state and the connector', async () => {
    await mock.state.clock.advance(10_000)
    await fetch(`${base}/lists/create`, { method: 'POST', headers: { ...headers(), 'idempotency-key': 'console-list-1' }, body: JSON.stringify({ title: 'Console list', handles: ['nobody'] }) })
    const { page } = await openConsole()
    await page.getByRole('tab', { name: 'Rate limits & idempotency' }).click()
    await page.waitForSelector('text=console-list-1')
    const limits = await page.locator('.panel').innerText()
    expect(limits).toMatch(/key_[0-9a-f]{8}/)
    expect(limits).not.toContain('demo-key')
    await shot(page, 'console-limits')
    await page.getByRole('tab', { name: 'Area state' }).click()
    await page.waitForSelector('details.area')
    await page.locator('details.area summary').first().click()
    await page.getByRole('tab', { name: 'Connector' }).click()
    await page.waitForSelector('text=Activity (newest first)')
    await page.close()
  })

  it('stays light at 10,000 exchanges: a virtualised list, every one reachable', async () => {
    const health = createOperationRoutes(mock.state, { baseUrl: 'http://shoptwin.internal' }).find((r) => r.op.operationId === 'getHealth')!
    const { page, problems } = await openConsole()
    for (let i = 0; i < 10_000; i++) await health.run({ method: 'GET', url: new URL('http://shoptwin.internal/health'), headers: new Headers(), bodyText: '' })
    await page.waitForFunction(() => /10000 kept/.test(document.querySelector('.count')?.textContent ?? ''), undefined, { timeout: 30_000 })
    expect(await page.locator('.row').count()).toBeLessThan(120)
    await page.locator('.list').evaluate((el) => (el.scrollTop = 0))
    await page.waitForFunction(() => document.querySelector('.rows li')?.getAttribute('style')?.includes('translateY(0px)'))
    await page.locator('.row').first().click()
    await page.waitForSelector('.decision')
    await shot(page, 'console-10000')
    await page.locator('.filters').getByLabel('Status').fill('404')
    await page.waitForSelector('text=No exchange matches the filters.')
    expect(problems).toEqual([])
    await page.close()
  }, 120_000)

  it('axe-core finds no serious or critical violation', async () => {
    const { page } = await openConsole()
    await page.locator('.row').last().click()
    await page.waitForSelector('.decision')
    for (const tab of ['Faults', 'Rate limits & idempotency', 'Area state', 'Connector']) {
      await page.getByRole('tab', { name: tab }).click()
      // CDP evaluation is not subject to the page's CSP (an injected <script> would be refused).
      await page.evaluate(axeSource)
      const violations = await page.evaluate(async () => {
        const result = await (window as unknown as { axe: { run(): Promise<{ violations: Array<{ id: string; impact: string; nodes: Array<{ target: string[] }> }> }> } }).axe.run()
        return result.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical').map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 3).join(', ')}`)
      })
      expect(violations, tab).toEqual([])
    }
    await page.close()
  })
})
