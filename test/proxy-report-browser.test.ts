/**
 * The proxy's report as a person reads it: the traffic of a client breaking a rule behind
 * `shoptwin proxy --inject standard`, in front of an upstream answering one read out of its schema, opened
 * in Debian's headless Chromium. Both verdicts at the head, the server's and the client's findings
 * apart and open, every in-page link lands, nothing is fetched, no key. Screenshots go to test-results/.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { PROFILES } from '../conformance/certify-client/profile.ts'
import { startCertification } from '../conformance/certify-client/session.ts'
import { startProxy as startMutationProxy, rewriteJson } from '../conformance/testing/harness.ts'
import { createServer } from '../mock/server.ts'
import { startProxy } from '../proxy/index.ts'
import { proxyHtml, proxyJunit } from '../proxy/reporters.ts'
import { runIntegration } from './certify-client/partner-client.ts'
import { openReportOffline, useChromium, withoutChromium } from './support/report-page.ts'

describe.skipIf(withoutChromium)('the proxy report in headless Chromium', () => {
  const chromium = useChromium('shoptwin-proxy-report-')

  it('both verdicts at the head, server and client findings apart and open, every link lands, no key', { timeout: 120_000 }, async () => {
    const mock = createServer({ stateOptions: { seed: 42, scale: 'small', now: '2026-11-20T12:00:00Z', today: '2026-11-20' } })
    const url = await mock.listen(0, '127.0.0.1')
    const { state } = mock
    // The upstream answers the product list with a price as a string: a schema violation.
    const broken = await startMutationProxy(url, rewriteJson((r) => r.path === '/shop/products', (json) => ({ data: json.data.map((p: any) => ({ ...p, price: String(p.price) })) })))
    try {
      await startCertification(state, { ...PROFILES.standard, name: 'prepared', writeFaults: [], inFlight409: 0, stale412: 0, burst429: { ...PROFILES.standard.burst429, times: 0 } }, 7)
      const proxy = await startProxy({ upstream: broken.url, inject: PROFILES.standard, seed: 7, now: () => state.clock.nowMs() })
      await runIntegration({ baseUrl: proxy.url, apiKey: 'demo-key', shopId: state.world.shops[0]!.shop_id, sleep: async (ms) => state.clock.advance(ms), now: () => state.clock.nowMs(), breaks: 'idempotency.retry-same-key' })
      const report = await proxy.stop()
      const file = join(chromium.dir(), 'report.html')
      writeFileSync(file, proxyHtml(report))
      const { page, requests } = await openReportOffline(chromium.browser(), file)
      const seen = await page.evaluate(() => ({
        badges: [...document.querySelectorAll('body > .badge')].map((b) => b.textContent!.replace(/\s+/g, ' ').trim()),
        dangling: [...document.querySelectorAll('a[href^="#"]')].map((a) => a.getAttribute('href')!.slice(1)).filter((id) => !document.getElementById(id)),
        links: document.querySelectorAll('a[href^="#"]').length,
        open: [...document.querySelectorAll('section.rule > details[open]')].map((d) => d.parentElement!.id),
        curls: [...document.querySelectorAll('pre.curl')].map((p) => p.textContent!),
        text: document.body.textContent!,
      }))
      expect(requests).toEqual([])
      expect(seen.dangling).toEqual([])
      expect(seen.links).toBeGreaterThan(60)
      expect(seen.badges[0]).toMatch(/^Server ?VIOLATIONS: 1 MUST rule failed/)
      expect(seen.badges[1]).toMatch(/^Client ?NOT CERTIFIED: 1 MUST rule failed/)
      expect(seen.open).toEqual(['server-rule-contract.responses-valid', 'client-rule-idempotency.retry-same-key'])
      expect(seen.curls.length).toBeGreaterThan(2)
      expect(seen.curls.every((c) => c.includes('$API_KEY'))).toBe(true)
      expect(seen.text).not.toContain('demo-key')
      expect(seen.text).toContain('What the proxy produced')
      // certify-client's page, rendered for the proxy, speaks of what stood between client and server: the proxy, never a twin
      // (its clock, the situations it produced, the findings' requests), on the page and in the JUnit file.
      expect(seen.text.match(/.{0,40}\btwin\b.{0,40}/gi) ?? []).toEqual([])
      expect(proxyJunit(report).match(/.{0,40}\btwin\b.{0,40}/gi) ?? []).toEqual([])
      expect(seen.text).toContain('Time (proxy clock)')
      expect(seen.text).toMatch(/\(produced: [^)]+\)/)
      mkdirSync('test-results', { recursive: true })
      await page.screenshot({ path: 'test-results/proxy-report.png' })
      await page.close()
    } finally {
      await broken.close()
      await mock.close()
    }
  })
})
