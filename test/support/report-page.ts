/** Headless Chromium for the tests of pages a person reads (certificates), and a report opened offline. */
import { existsSync } from 'node:fs'
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'
import { afterAll, beforeAll } from 'vitest'

/** Debian's Chromium (installed by .ci/run in CI). */
export const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium'
/** Browser tests skip only outside CI when Chromium is missing; in CI they run (and fail without it). */
export const withoutChromium = !existsSync(CHROMIUM) && !process.env.CI

/** Launches Chromium and makes a scratch directory before the tests of a describe block; both go after them. */
export function useChromium(prefix: string): { browser: () => Browser; dir: () => string } {
  let browser: Browser | undefined
  let dir: string | undefined
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), prefix))
    browser = await puppeteer.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] })
  }, 60_000)
  afterAll(async () => {
    await browser?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })
  return { browser: () => browser!, dir: () => dir! }
}

/** Opens a report file in headless Chromium with every request off the file refused and recorded. */

export async function openReportOffline(browser: Browser, file: string): Promise<{ page: Page; requests: string[] }> {
  const page = await browser.newPage()
  const requests: string[] = []
  await page.setRequestInterception(true)
  page.on('request', (request) => {
    if (!request.url().startsWith('file://')) requests.push(request.url())
    void (request.url().startsWith('file://') ? request.continue() : request.abort())
  })
  await page.setViewport({ width: 1280, height: 900 })
  await page.goto(`file://${file}`, { waitUntil: 'load' })
  return { page, requests }
}
