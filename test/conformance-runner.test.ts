/**
 * The suite's runner (conformance/runner/run-rules.ts) runs the rules in this process: in order,
 * each within its time limit, progress and outcomes as they come, and nothing of vitest at run time.
 */
import { readFileSync, readdirSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createTerminalReporter } from '../conformance/reporters/terminal.ts'
import { runSelectedRules } from '../conformance/runner/run-rules.ts'
import type { Rule, RunOptions } from '../conformance/types.ts'

const root = fileURLToPath(new URL('..', import.meta.url))
const options = (baseUrl: string): RunOptions => ({ baseUrl, apiKey: 'k', shopId: 's', allowWrites: true, rules: [], rps: 1000, haloBoundSeconds: 60, ruleTimeoutSeconds: 120 })
const rule = (id: string, run: Rule['run'], extra: Partial<Omit<Rule, 'quote'>> = {}): Rule => ({ id, title: `${id} behaves`, spec: 'Errors', level: 'MUST', quote: ['Error bodies are JSON `{error: <message string>}`.'], writes: false, operations: [], run, ...extra })

/** A loopback server answering every request `{}` with 200, counting them. */
async function countingServer(): Promise<{ url: string; count: () => number; close: () => Promise<void> }> {
  let count = 0
  const server: Server = createServer((_req, res) => {
    count++
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return { url, count: () => count, close: () => new Promise((resolve) => server.close(() => resolve())) }
}

afterEach(() => {
  vi.useRealTimers()
})

describe('conformance runner, in process', () => {
  it('[i/n] before each rule line, and a line while a rule waits (t.progress), in run order', async () => {
    const lines: string[] = []
    const terminal = createTerminalReporter({ write: (s) => lines.push(s), color: false })
    const rules = [rule('halo.refreshing-then-ok', async (t) => t.progress('waiting for the storefront build, 12 s of 60 s')), rule('auth.missing-key', async () => {})]
    terminal.start('https://staging.example.com', 54)
    const { outcomes, runErrors } = await runSelectedRules(options('https://staging.example.com'), { onOutcome: (o) => terminal.outcome({ ...o, durationMs: 5 }), onProgress: (id, message) => terminal.waiting(id, message) }, rules)
    expect(outcomes.map((o) => [o.id, o.status])).toEqual([['halo.refreshing-then-ok', 'pass'], ['auth.missing-key', 'pass']])
    expect(runErrors).toEqual([])
    expect(lines.slice(1)).toEqual([
      '[ 1/54] halo.refreshing-then-ok: waiting for the storefront build, 12 s of 60 s\n',
      '[ 1/54] PASS halo.refreshing-then-ok [MUST] 5 ms\n',
      '[ 2/54] PASS auth.missing-key [MUST] 5 ms\n',
    ])
  })

  it('a rule past its time limit is an error; it stops at its next wait, its clean-ups still send their requests, the next rule runs', async () => {
    const target = await countingServer()
    try {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
      let resumed = false
      const slow = rule('halo.slow', async (t) => {
        t.cleanup(() => t.request('GET /health'))
        await t.sleep(60_000)
        resumed = true
        t.fail({ operation: 'GET /health', message: 'reported after the limit', expected: '-', received: '-' })
        await t.request('GET /health')
      }, { timeoutSeconds: 2 })
      const run = runSelectedRules(options(target.url), {}, [slow, rule('auth.next', async () => {})])
      await vi.advanceTimersByTimeAsync(2_000)
      const { outcomes } = await run
      // The abandoned rule wakes after the run: its wait throws, nothing it does counts.
      await vi.advanceTimersByTimeAsync(60_000)
      expect(resumed).toBe(false)
      expect(outcomes.map((o) => [o.id, o.status, o.reason])).toEqual([
        ['halo.slow', 'error', "timed out after 2 s (the rule's own limit)"],
        ['auth.next', 'pass', undefined],
      ])
      expect(outcomes[0]!.failures).toEqual([])
      expect(outcomes[0]!.exchanges.map((e) => `${e.method} ${new URL(e.url).pathname} ${e.status}`)).toEqual(['GET /health 200'])
      expect(target.count()).toBe(1)
    } finally {
      await target.close()
    }
  })

  it('the run-wide --rule-timeout applies to a rule without its own limit', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] })
    const run = runSelectedRules({ ...options('http://127.0.0.1:9'), ruleTimeoutSeconds: 0.5 }, {}, [rule('auth.hangs', () => new Promise(() => {}))])
    await vi.advanceTimersByTimeAsync(500)
    expect((await run).outcomes.map((o) => [o.status, o.reason])).toEqual([['error', 'timed out after 0.5 s (--rule-timeout)']])
  })

  it('an unreachable target makes the rule an error with its own id, title and level; the run goes on', async () => {
    const target = await countingServer()
    await target.close()
    const { outcomes } = await runSelectedRules(options(target.url), {}, [rule('auth.reads', async (t) => void (await t.request('GET /health')), { level: 'SHOULD' }), rule('auth.next', async () => {})])
    expect(outcomes[0]).toMatchObject({ id: 'auth.reads', title: 'auth.reads behaves', level: 'SHOULD', status: 'error' })
    expect(outcomes[0]!.reason).toMatch(/^target unreachable: http:\/\/127\.0\.0\.1:\d+\/health: ECONNREFUSED/)
    expect(outcomes[1]!.status).toBe('pass')
  })

  it('nothing under conformance/ or mock/ imports vitest (it is a dev dependency)', () => {
    const files = (dir: string): string[] =>
      readdirSync(join(root, dir), { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.test.ts') ? [join(dir, e.name)] : []))
    const importers = ['conformance', 'mock', 'fixtures', 'openapi'].flatMap(files).filter((f) => /from ['"]vitest|import\(['"]vitest/.test(readFileSync(join(root, f), 'utf8')))
    expect(importers).toEqual([])
  })
})
