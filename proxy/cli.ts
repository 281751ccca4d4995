/**
 * `shoptwin proxy --upstream URL [options] [-- <command>]` (`--help`: the flags' table below): runs in
 * the foreground until SIGINT or SIGTERM, or, given a command, runs it with the proxy's URL in its
 * environment and stops when it ends (mock/lib/run-command.ts); a live line per exchange on a terminal
 * (quiet when piped), then the reports and the exit code: 0 unless a rule at the --fail-on level
 * failed or the command failed (1); 2 on bad usage, a port in use or a command that cannot start, in one line.
 */
import { writeFileSync } from 'node:fs'
import { makeDir } from '../mock/lib/make-dir.ts'
import { join } from 'node:path'
import { loadProfile, type Profile } from '../conformance/certify-client/profile.ts'
import { checks, helpText, outputDirProblem, parseFlags, usageLine, UsageError, type CommandSpec } from '../mock/cli-flags.ts'
import { keepServing } from '../mock/cli-output.ts'
import { untilStopped } from '../mock/lib/orphan.ts'
import { commandFailure, runCommand } from '../mock/lib/run-command.ts'
import { portInUseMessage } from '../mock/port-holder.ts'
import type { Graded } from './grade.ts'
import { startProxy, type ProxyReport } from './index.ts'
import { LIVE_MS } from './backlog.ts'
import { proxyHtml, proxyJson, proxyJunit } from './reporters.ts'

const FAIL_ON = ['must', 'should', 'never'] as const

const SPEC: CommandSpec = {
  name: 'proxy',
  summary: 'In front of a real server: forwards every exchange, grades it (the server\'s answers and the client\'s requests) and, with --inject, produces the documented situations on the way. Runs in the foreground until Ctrl-C (SIGINT) or SIGTERM, or, given `-- <command>`, runs the command with SHOPTWIN_BASE_URL set to the proxy and stops when it ends; a live line per exchange on a terminal (quiet when piped), then writes the reports.',
  flags: {
    upstream: { value: 'URL', help: 'the server to forward to, http:// or https:// (required)', check: (raw) => (/^https?:\/\/[^/]/i.test(raw) && URL.canParse(raw) ? undefined : 'must be an http(s) URL') },
    port: { value: 'N', help: 'the port; 0 picks any free port (the first line says which)', default: '4011', check: checks.port },
    host: { value: 'HOST', help: 'the address to listen on', default: '127.0.0.1', check: checks.nonEmpty },
    'report-dir': { value: 'DIR', help: 'write report.json, junit.xml and report.html there', check: checks.nonEmpty },
    inject: { value: 'standard|strict|FILE', help: 'produce the situations of this certify-client profile (429, 409, faults) on the way through', check: checks.nonEmpty },
    seed: { value: 'N', help: 'orders the injected situations', default: '42', check: checks.integer },
    timeout: { value: 'SECONDS', help: 'the upstream\'s time limit per request', default: '30', check: checks.positive },
    'fail-on': { value: FAIL_ON.join('|'), help: 'the level of a failed rule that makes the exit code 1', default: 'must', check: (raw) => ((FAIL_ON as readonly string[]).includes(raw) ? undefined : 'must be must, should or never') },
  },
  notes: [
    '-- <command>: your integration, run with SHOPTWIN_BASE_URL (and SHOPTWIN_PROXY_URL) set to the proxy and SHOPTWIN_UPSTREAM_URL to the server; one argument with spaces is a shell line (-- "npm run e2e").',
    'Exit 0 unless a rule at the --fail-on level failed or the command failed (1); 2 on bad usage, a port in use or a command that cannot start. See README.md: the proxy.',
  ],
}

const usage = (message: string): 2 => {
  console.error(usageLine('proxy', message))
  return 2
}

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
  const dash = argv.indexOf('--')
  const command = dash >= 0 ? argv.slice(dash + 1) : undefined
  let values: Record<string, string | undefined>
  try {
    const parsed = parseFlags(SPEC, dash >= 0 ? argv.slice(0, dash) : argv)
    if (!parsed) {
      process.stdout.write(helpText(SPEC))
      return 0
    }
    values = parsed.values as typeof values
  } catch (error) {
    if (error instanceof UsageError) return usage(error.message)
    throw error
  }
  if (!values.upstream) return usage('--upstream URL is required')
  if (command && !command.length) return usage('nothing after --')
  const upstream = new URL(values.upstream)
  const port = Number(values.port ?? 4011)
  const seed = Number(values.seed ?? 42)
  const timeout = Number(values.timeout ?? 30)
  const failOn = (values['fail-on'] ?? 'must') as ProxyReport['failOn']
  let inject: Profile | undefined
  try {
    inject = values.inject === undefined ? undefined : loadProfile(values.inject)
  } catch (error) {
    return usage((error as Error).message.replace('--profile', '--inject'))
  }
  // shoptwin proxy does not send a user and password of --upstream (the client's own Authorization goes on as it came), and would print them.
  if (upstream.username || upstream.password) return usage('--upstream must not carry a user or password: the proxy does not send them (the client\'s own Authorization header is forwarded)')
  const unwritable = values['report-dir'] ? outputDirProblem('--report-dir', values['report-dir']) : undefined
  if (unwritable) return usage(unwritable)

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
      // A person reads the lines: they follow the traffic within LIVE_MS, not at its next pause.
      liveMs: live ? LIVE_MS : undefined,
    })
  } catch (error) {
    const host = values.host ?? '127.0.0.1'
    return usage((error as NodeJS.ErrnoException).code === 'EADDRINUSE' ? portInUseMessage(host, port) : `cannot listen on ${host}:${port}: ${(error as Error).message}`)
  }
  // Serving: a reader gone no longer stops it (mock/cli-output.ts).
  keepServing()
  const banner = `proxy: ${proxy.url} → ${upstreamUrl}${inject ? ` (--inject ${inject.name}, seed ${seed})` : ''}`
  let ran: ProxyReport['command']
  // From here a SIGINT or SIGTERM stops the proxy (without a command) or is passed on to the command; a repeat never ends it before its reports.
  const stopped = untilStopped(signal)
  if (command) {
    console.log(`${banner}; running ${command.join(' ')}`)
    const outcome = await runCommand(command, { ...process.env, SHOPTWIN_BASE_URL: proxy.url, SHOPTWIN_PROXY_URL: proxy.url, SHOPTWIN_UPSTREAM_URL: upstreamUrl })
    if (typeof outcome === 'string' && outcome.startsWith('cannot run')) {
      await proxy.stop()
      return usage(outcome)
    }
    ran = { line: command.join(' '), outcome: commandFailure(outcome) ?? 'the command exited with 0', failed: outcome !== 0 }
  } else {
    console.log(`${banner}; Ctrl-C stops and writes the reports`)
    await stopped
  }
  const report = await proxy.stop()
  if (ran) {
    report.command = ran
    // A failed integration fails the run whatever --fail-on says of the findings.
    if (ran.failed) report.exitCode = 1
  }
  const secrets = proxy.secrets()
  const redact = (text: string) => secrets.reduce((out, secret) => out.split(secret).join('<redacted>'), text)
  const written: string[] = []
  if (values['report-dir']) {
    makeDir(values['report-dir'])
    for (const [name, text] of [['report.json', proxyJson(report)], ['junit.xml', proxyJunit(report)], ['report.html', proxyHtml(report)]] as const) {
      const path = join(values['report-dir'], name)
      // A last pass, as the suites': a key echoed in a body never reaches a file.
      writeFileSync(path, redact(text))
      written.push(path)
    }
  }
  const failing = (o: { level: string; status: string }) => o.status === 'fail'
  const lines = [
    ...(ran ? [`${ran.line}: ${ran.outcome}`] : []),
    `${report.exchanges} exchange${report.exchanges === 1 ? '' : 's'}; ${Object.entries(report.situations).map(([what, seqs]) => `${what} ×${seqs.length}`).join(', ') || 'nothing injected'}${report.upstreamFailureCount ? `; the upstream failed ${report.upstreamFailureCount} time(s)` : ''}`,
    ...report.server.outcomes.filter(failing).map((o) => `server ${o.level === 'MUST' ? 'FAIL' : 'WARN'} ${o.id}: ${o.failures[0]?.message ?? ''}`),
    ...report.client.outcomes.filter(failing).map((o) => `client ${o.level === 'MUST' ? 'FAIL' : 'WARN'} ${o.id}: ${o.failures[0]?.message ?? ''}`),
    ...written.map((p) => `report: ${p}`),
    `server: ${report.server.verdictText}`,
    `client: ${report.client.verdictText}`,
  ]
  console.log(redact(lines.join('\n')))
  return report.exitCode
}
