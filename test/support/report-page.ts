/** Opens a report file in headless Chromium with every request off the file refused and recorded. */
import type { Browser, Page } from 'puppeteer-core'

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
