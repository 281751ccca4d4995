/**
 * spec: What the service does: "at consent the user picks the shops and tools allowed". The consent
 * page in a real browser (Debian's headless Chromium through puppeteer-core): sign in, tick one shop
 * and two tools, Allow; exactly those are granted. Skipped where /usr/bin/chromium is absent outside CI (.ci/run installs it; in CI a missing browser fails).
 */
import { existsSync, mkdirSync } from 'node:fs'
import puppeteer, { type Browser } from 'puppeteer-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createServer, type MockServer } from '../mock/server.ts'
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
    await page.click('input[name=tool][value="getShopSps"]')
    await page.click('input[name=tool][value="createList"]')
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
})
