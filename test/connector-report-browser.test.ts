/**
 * The connector's certificate as a person reads it (`shoptwin conformance --mcp-url --report-dir`):
 * a full run and a run without a user, opened in headless Chromium. Every in-page link lands on an
 * element, the badge says what report.json says, nothing is fetched, and no skipped rule reads as
 * passed. Screenshots go to test-results/ for a person to look at.
 */
import { mkdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { openReportOffline, useChromium, withoutChromium } from './support/report-page.ts'
import { writeReports } from '../conformance/cli.ts'
import { connectorRunReport } from '../conformance/rules/connector/report.ts'
import { connectorRules, runConnectorRules } from '../conformance/rules/connector/run.ts'
import { connectorTarget } from './connector-helpers.ts'

const MCP = 'https://mcp.example.com/mcp'

describe.skipIf(withoutChromium)('the connector certificate in headless Chromium', () => {
  const chromium = useChromium('shoptwin-connector-report-')

  it.each([
    ['full', true, 'CERTIFIED', 12],
    ['no-user', false, 'PASSED, NOT CERTIFIED', 8],
  ] as const)('%s run: links resolve, the badge agrees with report.json, skipped rules are not shown as passed', async (name, withUser, badge, passed) => {
    const target = connectorTarget()
    const given = withUser ? target : { fetchFn: target.fetchFn }
    const outcomes = await runConnectorRules({ mcpUrl: MCP, ...given })
    const report = connectorRunReport({ mcpUrl: MCP, outcomes, rules: connectorRules, startedAt: new Date(), hasUser: withUser, hasApi: withUser })
    const reportDir = join(chromium.dir(), name)
    await writeReports(report, reportDir, [target.user.password, target.api.apiKey])
    const json = JSON.parse(await readFile(join(reportDir, 'report.json'), 'utf8'))
    const { page, requests } = await openReportOffline(chromium.browser(), join(reportDir, 'report.html'))
    const seen = await page.evaluate(() => ({
      title: document.querySelector('h1')?.textContent,
      badge: document.querySelector('.badge b')?.textContent,
      badgeLine: document.querySelector('.badge')?.textContent,
      dangling: [...document.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute('href')!.slice(1)).filter((id) => !document.getElementById(id)),
      passCells: document.querySelectorAll('td.pass').length,
      skipCells: document.querySelectorAll('td.skip').length,
      notRun: [...document.querySelectorAll('#not-run ~ table tbody tr td:first-child code')].map((c) => c.textContent),
    }))
    expect(requests).toEqual([])
    expect(seen.title).toBe('Assistant-connector conformance report')
    expect(seen.dangling).toEqual([])
    expect(seen.badge).toBe(badge)
    expect(seen.badgeLine?.replace(/\s+/g, ' ')).toContain(json.verdictText.split(': ')[1])
    expect(seen.passCells).toBe(passed)
    expect(seen.skipCells).toBe(12 - passed)
    if (!withUser) expect(seen.notRun.slice(0, 3)).toEqual(['connector.code-single-use', 'connector.consent-scoping', 'connector.activity-both-doors'])
    mkdirSync('test-results', { recursive: true })
    await page.screenshot({ path: `test-results/connector-report-${name}.png` })
    await page.screenshot({ path: `test-results/connector-report-${name}-full.png`, fullPage: true })
    await page.close()
  }, 60_000)
})
