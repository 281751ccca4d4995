/**
 * `shoptwin certify-client` as a partner runs it: the twin starts, the command gets the twin's URL,
 * key and shop in its environment, the requests are graded, the reports are written without the
 * keys, and the exit code is 0/1/2 as the server suite's. Without a command it records until
 * `POST /__admin/certification/finish`.
 */
import { spawn } from 'node:child_process'
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadProfile, PROFILES } from '../conformance/certify-client/profile.ts'

const cli = fileURLToPath(new URL('../mock/cli.ts', import.meta.url))
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'certify-client-'))
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

function certifyClient(argv: string[], onStdout?: (text: string) => void): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, 'certify-client', '--scale', 'small', ...argv], { cwd: dir, env: { ...process.env, NO_COLOR: '1' } })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d) => {
      stdout += d
      onStdout?.(stdout)
    })
    child.stderr.on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }))
  })
}

// A hasty integration: twelve product reads at once, no pacing, no Retry-After.
const HASTY = `const h = { 'x-api-key': process.env.SHOPTWIN_API_KEY, 'x-shop-id': process.env.SHOPTWIN_SHOP_ID, 'content-type': 'application/json' };
for (let i = 0; i < 12; i++) await fetch(process.env.SHOPTWIN_BASE_URL + '/shop/products', { method: 'POST', headers: h, body: '{}' });`

describe('shoptwin certify-client', () => {
  it('runs the command against the twin, fails the pace and 429-retry rules with exit 1 (Retry-After is an inferred warning), and writes the three reports without the keys', async () => {
    const reports = join(dir, 'hasty')
    const { code, stdout } = await certifyClient(['--report-dir', reports, '--seed', '3', '--', process.execPath, '--input-type=module', '-e', HASTY])
    expect(stdout).toContain('FAIL ratelimit.pace [MUST]')
    expect(stdout).toContain('FAIL ratelimit.retry-429 [MUST]')
    expect(stdout).toContain('WARN ratelimit.retry-after [SHOULD, inferred]')
    expect(stdout).toContain('inferred: the spec says "back off briefly and retry" and never names a Retry-After header')
    expect(stdout).toContain('operations called (1): POST /shop/products')
    expect(stdout).toMatch(/NOT CERTIFIED: 2 MUST rules failed/)
    expect(code).toBe(1)
    const [junit, json, html] = await Promise.all(['junit.xml', 'report.json', 'report.html'].map((f) => readFile(join(reports, f), 'utf8')))
    for (const text of [junit, json, html, stdout]) expect(text).not.toMatch(/demo-(enterprise-|limited-)?key/)
    expect(JSON.parse(json!).requests).toHaveLength(12)
    expect(junit).toContain('<skipped message="not applicable: ')
    expect(html).toContain('<b>Inferred</b>: ')
    expect(html).toContain('<blockquote class="quote"><p>“| Request rate | 10 per second')
    expect(html).toContain('NOT CERTIFIED')
    expect(html).toContain('429 after a burst')
    // Every in-page link of the certificate resolves.
    const ids = new Set([...html!.matchAll(/ id="([^"]+)"/g)].map((m) => m[1]))
    const links = [...html!.matchAll(/href="#([^"]+)"/g)].map((m) => m[1])
    expect(links.length).toBeGreaterThan(0)
    expect(links.filter((l) => !ids.has(l))).toEqual([])
  })

  it('a command that fails is a run error: exit 1', async () => {
    const { code, stdout } = await certifyClient(['--', process.execPath, '-e', 'process.exit(3)'])
    expect(stdout).toContain('run error: the command exited with 3')
    expect(code).toBe(1)
  })

  it.each([
    [['--profile', 'lenient'], /--profile must be standard, strict or a JSON file/],
    [['--seed', 'x'], /--seed must be an integer/],
    [['--'], /nothing after --/],
    [['--', 'no-such-command-shoptwin'], /cannot run no-such-command-shoptwin/],
  ])('bad usage %j: exit 2 and one reason', async (argv, reason) => {
    const { code, stderr } = await certifyClient(argv)
    expect(stderr).toMatch(reason)
    expect(code).toBe(2)
  })

  it('a profile file overrides the standard profile', async () => {
    const file = join(dir, 'profile.json')
    await writeFile(file, JSON.stringify({ writeFaults: ['drop'], burst429: { after: [1, 1], every: 0, times: 1, retryAfterSeconds: 3 } }))
    const { stdout } = await certifyClient(['--profile', file, '--', process.execPath, '--input-type=module', '-e', HASTY])
    expect(stdout).toMatch(/produced: 429 after a burst x1/)
  })

  it.each([
    [{ situations: 5 }, /^a profile takes name, burst429, .*; unknown field: situations$/],
    [{ burst429: { time: 2 } }, /^burst429 takes after, every, times, retryAfterSeconds; unknown field: time$/],
    [{ burst429: 5 }, /^burst429 must be an object$/],
    [{ burst429: { after: [3, 1] } }, /^burst429\.after must be \[first, last\]/],
    [{ burst429: { times: -1 } }, /^burst429\.times must be an integer >= 0$/],
    [{ writeFaults: '503' }, /^writeFaults must be a list of/],
    [{ writeFaults: ['boom'] }, /^writeFaults: boom is not one of/],
    [{ slowMs: 1.5 }, /^slowMs must be an integer >= 0$/],
    [{ name: 5 }, /^name must be a non-empty string$/],
  ])('a profile file %j is refused before the session, in one line (it was ignored, or thrown mid-session)', async (content, reason) => {
    const file = join(dir, 'bad-profile.json')
    await writeFile(file, JSON.stringify(content))
    expect(() => loadProfile(file)).toThrow(reason)
  })

  it('a profile file sets burst429\'s fields one by one; the rest are the standard profile\'s', async () => {
    const file = join(dir, 'partial-profile.json')
    await writeFile(file, JSON.stringify({ burst429: { retryAfterSeconds: 3 }, inFlight409: 0 }))
    expect(loadProfile(file)).toEqual({ ...PROFILES.standard, name: file, burst429: { ...PROFILES.standard.burst429, retryAfterSeconds: 3 }, inFlight409: 0 })
    const { code, stderr } = await certifyClient(['--profile', join(dir, 'no-such.json')])
    expect(stderr).toMatch(/^shoptwin certify-client: --profile must be standard, strict or a JSON file/)
    expect(code).toBe(2)
  })

  it('without a command it records until POST /__admin/certification/finish, then grades', async () => {
    let finished = false
    const { code, stdout } = await certifyClient([], (text) => {
      const base = /SHOPTWIN_BASE_URL=(\S+)/.exec(text)?.[1]
      const shop = /SHOPTWIN_SHOP_ID=(\S+)/.exec(text)?.[1]
      const key = /SHOPTWIN_API_KEY=(\S+)/.exec(text)?.[1]
      if (!base || !shop || !key || finished) return
      finished = true
      void (async () => {
        // One call, made as the rules say: its 429 (on the first request to the shop) waited out on the twin's clock, then retried.
        const call = () => fetch(`${base}/shop/products`, { method: 'POST', headers: { 'x-api-key': key, 'x-shop-id': shop, 'content-type': 'application/json' }, body: '{}' })
        const first = await call()
        if (first.status === 429) {
          await fetch(`${base}/__admin/clock`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ advance_ms: Number(first.headers.get('retry-after') ?? 1) * 1000 }) })
          await call()
        }
        await fetch(`${base}/__admin/certification/finish`, { method: 'POST' })
      })()
    })
    expect(stdout).toContain('PASS headers.every-call [MUST]')
    // A client making one call meets the 429 on it, and its retry is judged.
    expect(stdout).toMatch(/2 requests; produced: 429 after a burst x1/)
    expect(stdout).toContain('PASS ratelimit.retry-429 [MUST]')
    expect(stdout).toContain('N/A  paging.depth-cap [MUST]  (not applicable: the client made no paged listings read beyond their first page or down to a depth cap)')
    expect(stdout).toMatch(/CERTIFIED for 1 operation: every applicable MUST rule exercised and passed/)
    expect(code).toBe(0)
  })

  it('--require-operations: a client that did not call a required operation exits 1; an unknown operation is bad usage', async () => {
    const { code, stdout } = await certifyClient(['--require-operations', 'POST /shop/products,POST /automations/create', '--', process.execPath, '--input-type=module', '-e', HASTY])
    expect(stdout).toMatch(/1 required operation not called \(POST \/automations\/create\)/)
    expect(code).toBe(1)
    const bad = await certifyClient(['--require-operations', 'POST /no/such', '--', process.execPath, '-e', ''])
    expect(bad.stderr).toMatch(/--require-operations: no operation POST \/no\/such in the contract/)
    expect(bad.code).toBe(2)
  })

  it('--require-certified: a partial run (rules not exercised) exits 1', async () => {
    const { code, stdout } = await certifyClient(['--require-certified', '--', process.execPath, '-e', ''])
    expect(stdout).toMatch(/PASSED, NOT CERTIFIED/)
    expect(code).toBe(1)
  })
})
