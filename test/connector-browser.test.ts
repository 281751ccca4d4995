/**
 * spec: What the service does: "at consent the user picks the shops and tools allowed". The consent
 * page in a real browser (Debian's headless Chromium through puppeteer-core): sign in, tick one shop
 * and two tools, Allow; exactly those are granted. Skipped where /usr/bin/chromium is absent outside CI (.ci/run installs it; in CI a missing browser fails).
 */
import { existsSync, mkdirSync } from 'node:fs'
import puppeteer, { type Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { connectorTools } from '../mock/connector/tools.ts'
import { createServer, type MockServer } from '../mock/server.ts'
import { loadContract } from '../openapi/index.ts'
import { pkcePair } from './connector-helpers.ts'

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
const REDIRECT = 'http://127.0.0.1:1/callback'
let mock: MockServer
let base: string
let browser: Browser

describe.skipIf(!existsSync(CHROMIUM) && !process.env.CI)('connector consent page in headless Chromium', () => {
  beforeAll(async () => {
    mock = createServer({ stateOptions: { seed: 21, now: '2026-06-01T09:00:00.000Z', rateLimit: false } })
    base = await mock.listen(0, '127.0.0.1')
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    await mock?.close()
  })

  it('ticking one shop and two tools and pressing Allow grants exactly those', async () => {
    const state = mock.state
    const user = state.connector.data.users[0]!
    const registered = (await (await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Browser Test Assistant', redirect_uris: [REDIRECT] }) })).json()) as { client_id: string }
    const url = new URL(`${base}/oauth/authorize`)
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: registered.client_id, redirect_uri: REDIRECT, code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 'browser-state' })) url.searchParams.set(k, v)

    const page = await browser.newPage()
    await page.setViewport({ width: 900, height: 1400 })
    // The redirect back to the client goes nowhere: catch its URL instead of loading it.
    let callback: URL | undefined
    await page.setRequestInterception(true)
    page.on('request', (request) => {
      if (request.url().startsWith(REDIRECT)) {
        callback = new URL(request.url())
        void request.abort()
      } else void request.continue()
    })
    const outside: string[] = []
    page.on('requestfinished', (r) => {
      if (/^https?:/.test(r.url()) && !r.url().startsWith(base)) outside.push(r.url())
    })
    await page.goto(url.href)
    await page.type('#email', user.email)
    await page.type('#password', user.password)
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')])

    const shop = state.world.shops[0]!
    await page.click(`input[name=shop][value="${shop.shop_id}"]`)
    // Each area is closed: open it to tick its tools one by one.
    for (const tool of ['getShopSps', 'createList']) {
      await page.click(`.area:has(input[value="${tool}"]) summary`)
      await page.click(`input[name=tool][value="${tool}"]`)
    }
    mkdirSync('test-results', { recursive: true })
    await page.evaluate(() => window.scrollTo(0, 0))
    await page.screenshot({ path: 'test-results/connector-consent.png', fullPage: false })
    await Promise.all([page.waitForNavigation().catch(() => undefined), page.click('button[value=allow]')])

    expect(callback?.searchParams.get('state')).toBe('browser-state')
    expect(callback?.searchParams.get('code')).toBeTruthy()
    expect(outside, outside.join(' ')).toEqual([])
    const connection = Object.values(state.connector.data.connections).find((c) => c.client_name === 'Browser Test Assistant')!
    expect(connection.shops).toEqual([shop.shop_id])
    expect(connection.tools.sort()).toEqual(['createList', 'getShopSps'])

    // The same signed-in browser revokes it on the connections page.
    await page.goto(`${base}/oauth/connections`)
    await page.screenshot({ path: 'test-results/connector-connections.png' })
    await Promise.all([page.waitForNavigation(), page.click(`form:has(input[value="${connection.connection_id}"]) button`)])
    expect(state.connector.data.connections[connection.connection_id]!.revoked_at).not.toBeNull()
    expect(await page.content()).toContain('revoked')
  }, 60_000)

  it('without script: "All shops", "All read tools" and one area\'s box grant every shop, every read tool and that area\'s writes; the page is short', async () => {
    const state = mock.state
    const user = state.connector.data.users[0]!
    const registered = (await (await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Group Consent Assistant', redirect_uris: [REDIRECT] }) })).json()) as { client_id: string }
    const url = new URL(`${base}/oauth/authorize`)
    for (const [k, v] of Object.entries({ response_type: 'code', client_id: registered.client_id, redirect_uri: REDIRECT, code_challenge: pkcePair().challenge, code_challenge_method: 'S256', state: 'groups' })) url.searchParams.set(k, v)
    // A browser context of its own: signed out, as a new user arrives.
    const page = await (await browser.createBrowserContext()).newPage()
    await page.setJavaScriptEnabled(false)
    await page.setViewport({ width: 900, height: 1000 })
    let callback: URL | undefined
    await page.setRequestInterception(true)
    page.on('request', (request) => {
      if (request.url().startsWith(REDIRECT)) {
        callback = new URL(request.url())
        void request.abort()
      } else void request.continue()
    })
    await page.goto(url.href)
    await page.type('#email', user.email)
    await page.type('#password', user.password)
    await Promise.all([page.waitForNavigation(), page.click('button[type=submit]')])
    // The page was 6,700 px tall with every tool open; the areas closed, it fits in a couple of screens.
    const height = await page.evaluate(() => document.documentElement.scrollHeight)
    expect(height).toBeLessThan(2600)
    expect(await page.$$eval('script', (scripts) => scripts.length)).toBe(0)
    const tools = connectorTools(loadContract())
    const area = tools.find((t) => t.name === 'createList')!.area
    await page.click('input[name=shop][value="@all"]')
    await page.click('input[name=tool][value="@read"]')
    await page.click(`input[name=tool][value="@area:${area}"]`)
    mkdirSync('test-results', { recursive: true })
    await page.screenshot({ path: 'test-results/connector-consent-groups.png', fullPage: true })
    await Promise.all([page.waitForNavigation().catch(() => undefined), page.click('button[value=allow]')])
    expect(callback?.searchParams.get('code')).toBeTruthy()
    const connection = Object.values(state.connector.data.connections).find((c) => c.client_name === 'Group Consent Assistant')!
    expect(connection.shops).toEqual(state.world.shops.filter((s) => s.account_id === user.account_id).map((s) => s.shop_id))
    expect(connection.shops.length).toBeGreaterThan(1)
    expect(connection.tools.sort()).toEqual(tools.filter((t) => t.kind === 'read' || t.area === area).map((t) => t.name).sort())
    expect(connection.tools).toContain('createList')
  }, 60_000)
})
