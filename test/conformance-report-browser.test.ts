/**
 * The certificate as a person reads it (issue 14: honest verdicts): a passing and a failing report
 * opened in a real browser (Debian's headless Chromium through puppeteer-core). Every in-page link
 * lands on an element, the badge says what report.json says, and nothing is fetched from anywhere.
 * Screenshots go to test-results/ for a person to look at.
 */
import { mkdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openReportOffline, useChromium, withoutChromium } from './support/report-page.ts'
import { writeReports } from '../conformance/cli.ts'
import { buildReport } from '../conformance/report.ts'
import { catalogue } from '../conformance/catalogue.ts'
import type { Exchange, RuleOutcome, RunOptions } from '../conformance/types.ts'
import { loadContract } from '../openapi/index.ts'

const contract = loadContract()
const options: RunOptions = { baseUrl: 'http://127.0.0.1:4010', apiKey: 'secret-demo-key', shopId: 'shop-1', allowWrites: true, rules: [], rps: 8, haloBoundSeconds: 60, ruleTimeoutSeconds: 120 }

/** An exchange as the suite records it (keys already redacted). */
const exchange = (seq: number, status: number): Exchange => ({
  seq, rule: 'x', operationId: 'getShopSps', method: 'GET', url: 'http://127.0.0.1:4010/shop/sps', requestHeaders: { 'x-api-key': '<redacted>', 'x-shop-id': 'shop-1' },
  status, responseHeaders: { 'content-type': 'application/json' }, responseExcerpt: status === 200 ? '{"data":{"sps":4.2}}' : '{"error":"Missing X-Shop-Id header"}', durationMs: 4,
  curl: 'curl -sS -X GET http://127.0.0.1:4010/shop/sps -H "x-api-key: $API_KEY"', findings: [],
} as unknown as Exchange)

/** Every rule of the catalogue, passed, with the whole contract exercised; or with two failures. */
function outcomes(failing: boolean): RuleOutcome[] {
  return catalogue.map((rule, i) => {
    const failed = failing && (rule.id === 'auth.missing-shop-header' || rule.id === 'dashboards.stale-update-412')
    return {
      id: rule.id, title: rule.title, spec: rule.spec, level: rule.level, writes: rule.writes, area: rule.id.split('.')[0]!,
      status: failed ? 'fail' : 'pass', failures: failed ? [{ operation: 'getShopSps', message: 'the spec\'s exact message', expected: 'HTTP 400 {"error":"Missing X-Shop-Id header"}', received: 'HTTP 400 {"error":"shop?"}', exchange: exchange(i, 400) }] : [],
      warnings: [], operations: i === 0 ? contract.operations.map((o) => o.operationId) : ['getShopSps'], exchanges: [exchange(i, 200)], durationMs: 12,
    } as unknown as RuleOutcome
  })
}

describe.skipIf(withoutChromium)('the HTML certificate in headless Chromium (issue 14)', () => {
  const chromium = useChromium('shoptwin-report-')

  it.each([
    ['passing', false, 'CERTIFIED'],
    ['failing', true, 'NOT CERTIFIED'],
  ] as const)('%s report: links resolve, the badge agrees with report.json, no request leaves the page', async (name, failing, badge) => {
    const report = buildReport(contract, options, outcomes(failing), [], new Date('2026-11-24T10:00:00Z'))
    const reportDir = join(chromium.dir(), name)
    await writeReports(report, reportDir, [options.apiKey])
    const json = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8'))
    const { page, requests } = await openReportOffline(chromium.browser(), join(reportDir, 'report.html'))
    const seen = await page.evaluate(() => ({
      badge: document.querySelector('.badge b')?.textContent,
      badgeLine: document.querySelector('.badge')?.textContent,
      dangling: [...document.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute('href')!.slice(1)).filter((id) => !document.getElementById(id)),
      links: document.querySelectorAll('a[href^="#"]').length,
      openSections: [...document.querySelectorAll('section.rule > details[open]')].map((d) => d.parentElement!.id),
      height: document.body.scrollHeight,
    }))
    expect(requests).toEqual([])
    expect(seen.links).toBeGreaterThan(catalogue.length)
    expect(seen.dangling).toEqual([])
    expect(seen.badge).toBe(badge)
    expect(seen.badgeLine?.replace(/\s+/g, ' ')).toContain(json.verdictText.split(': ')[1])
    expect(json.verdict).toBe(failing ? 'not certified' : 'certified')
    expect(seen.openSections).toEqual(failing ? ['rule-auth.missing-shop-header', 'rule-dashboards.stale-update-412'] : [])
    // Collapsed by default: the whole catalogue fits in a few screens, not 70,000 px.
    expect(seen.height).toBeLessThan(20_000)
    mkdirSync('test-results', { recursive: true })
    await page.screenshot({ path: `test-results/report-${name}.png` })
    await page.screenshot({ path: `test-results/report-${name}-full.png`, fullPage: true })
    await page.close()
  }, 60_000)
})
