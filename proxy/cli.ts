/**
 * `shoptwin proxy --upstream URL [--port N] [--host H] [--report-dir DIR] [--inject standard|strict|FILE]
 * [--seed N] [--timeout SECONDS] [--fail-on must|should|never]`: runs in the foreground until SIGINT or
 * SIGTERM, a live line per exchange on a terminal (quiet when piped), then the reports and the exit
 * code: 0 unless a rule at the --fail-on level failed (1); 2 on bad usage or a port in use.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { loadProfile, type Profile } from '../conformance/certify-client/profile.ts'
import type { Graded } from './grade.ts'
import { startProxy, type ProxyReport } from './index.ts'
import { proxyHtml, proxyJson, proxyJunit } from './reporters.ts'

const USAGE = 'usage: shoptwin proxy --upstream URL [--port 4011] [--host 127.0.0.1] [--report-dir DIR] [--inject standard|strict|FILE] [--seed 42] [--timeout 30] [--fail-on must|should|never]'

const usage = (message: string): 2 => {
  console.error(`proxy: ${message}\n${USAGE}`)
  return 2
}

const FAIL_ON = ['must', 'should', 'never'] as const

/** One line per exchange: `#12 POST /automations/create → 201 4 ms  ✓` (findings named). */
export function liveLine({ x, findings }: Graded, color: boolean): string {
  const paint = (code: number, text: string) => (color ? `\u001b[${code}m${text}\u001b[0m` : text)
  const status = x.status === 0 ? 'dropped' : String(x.status)
  const upstream = x.upstream && x.upstream.status !== x.status ? ` (upstream ${x.upstream.status})` : ''
  const failed = findings.filter((f) => f.failure)
  const mark = failed.length ? paint(31, `✗ ${failed[0]!.rule}: ${failed[0]!.message}${failed.length > 1 ? ` (+${failed.length - 1})` : ''}`) : findings.length ? paint(33, `! ${findings[0]!.rule}: ${findings[0]!.message}`) : paint(32, '✓')
  const extra = [x.injected ? paint(36, `[--inject: ${x.injected}]`) : '', x.upstreamError ? paint(31, `[upstream: ${x.upstreamError}]`) : '', x.operationId ? '' : paint(90, '[no operation of the contract]')].filter(Boolean).join(' ')
  return `#${x.seq} ${x.method} ${x.path}${x.query.length > 60 ? `${x.query.slice(0, 57)}...` : x.query} → ${status}${upstream} ${x.durationMs} ms  ${mark}${extra ? ` ${extra}` : ''}`
}

export async function main(argv: string[], { signal }: { signal?: AbortSignal } = {}): Promise<number> {
  let values: Record<string, string | undefined>
  try {
    values = parseArgs({ args: argv, options: { upstream: { type: 'string' }, port: { type: 'string' }, host: { type: 'string' }, 'report-dir': { type: 'string' }, inject: { type: 'string' }, seed: { type: 'string' }, timeout: { type: 'string' }, 'fail-on': { type: 'string' } }, strict: true }).values as Record<string, string | undefined>
  } catch (error) {
    return usage((error as Error).message)
  }
  if (!values.upstream) return usage('--upstream URL is required')
  let upstream: URL
  try {
    upstream = new URL(values.upstream)
    if (upstream.protocol !== 'http:' && upstream.protocol !== 'https:') throw new Error(`${upstream.protocol} is not http: or https:`)
  } catch (error) {
    return usage(`--upstream must be an http(s) URL: ${(error as Error).message}`)
  }
  const port = Number(values.port ?? 4011)
  const seed = Number(values.seed ?? 42)
  const timeout = Number(values.timeout ?? 30)
  const failOn = (values['fail-on'] ?? 'must') as ProxyReport['failOn']
  if (!Number.isInteger(port) || port < 0 || port > 65535) return usage(`--port must be a port number, got ${values.port}`)
  if (!Number.isInteger(seed)) return usage(`--seed must be an integer, got ${values.seed}`)
  if (!(timeout > 0)) return usage(`--timeout must be a number of seconds above 0, got ${values.timeout}`)
  if (!FAIL_ON.includes(failOn)) return usage(`--fail-on must be must, should or never, got ${values['fail-on']}`)
  let inject: Profile | undefined
  try {
    inject = values.inject === undefined ? undefined : loadProfile(values.inject)
  } catch (error) {
    return usage((error as Error).message.replace('--profile', '--inject'))
  }

  const live = Boolean(process.stdout.isTTY)
  const color = live && !process.env.NO_COLOR
  const upstreamUrl = upstream.href.replace(/\/$/, '')
  let proxy
  try {
    proxy = await startProxy({
      upstream: upstreamUrl,
      port,
      host: values.host ?? '127.0.0.1',
      inject,
      seed,
      timeoutMs: timeout * 1000,
      failOn,
      commandLine: `shoptwin proxy ${argv.join(' ')}`,
      onExchange: live ? (graded) => process.stdout.write(`${liveLine(graded, color)}\n`) : undefined,
    })
  } catch (error) {
    return usage(`cannot listen on ${values.host ?? '127.0.0.1'}:${port}: ${(error as Error).message}`)
  }
  console.log(`proxy: ${proxy.url} → ${upstreamUrl}${inject ? ` (--inject ${inject.name}, seed ${seed})` : ''}; Ctrl-C stops and writes the reports`)

  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
    signal?.addEventListener('abort', stop, { once: true })
  })
  const report = await proxy.stop()
  const secrets = proxy.secrets()
  const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('<redacted>'), text)
  const written: string[] = []
  if (values['report-dir']) {
    mkdirSync(values['report-dir'], { recursive: true })
    for (const [name, text] of [['report.json', proxyJson(report)], ['junit.xml', proxyJunit(report)], ['report.html', proxyHtml(report)]] as const) {
      const path = join(values['report-dir'], name)
      // A last pass, as the suites': a key echoed in a body never reaches a file.
      writeFileSync(path, redact(text))
      written.push(path)
    }
  }
  const failing = (o: { level: string; status: string }) => o.status === 'fail'
  const lines = [
    `${report.exchanges} exchanges; ${Object.entries(report.situations).map(([what, seqs]) => `${what} ×${seqs.length}`).join(', ') || 'nothing injected'}${report.upstreamFailureCount ? `; the upstream failed ${report.upstreamFailureCount} time(s)` : ''}`,
    ...report.server.outcomes.filter(failing).map((o) => `server ${o.level === 'MUST' ? 'FAIL' : 'WARN'} ${o.id}: ${o.failures[0]?.message ?? ''}`),
    ...report.client.outcomes.filter(failing).map((o) => `client ${o.level === 'MUST' ? 'FAIL' : 'WARN'} ${o.id}: ${o.failures[0]?.message ?? ''}`),
    ...written.map((p) => `report: ${p}`),
    `server: ${report.server.verdictText}`,
    `client: ${report.client.verdictText}`,
  ]
  console.log(redact(lines.join('\n')))
  return report.exitCode
}
