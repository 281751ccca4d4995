/**
 * `shoptwin certify-client [--profile standard|strict|FILE] [--report-dir DIR] [--port N] [--seed N]
 * [--scale S] [--require-certified] [--require-operations A,B] [-- <command>]`: starts the twin on 127.0.0.1, runs the command with the twin's URL,
 * keys and shop ids in its environment (or, without a command, serves until SIGINT or
 * `POST /__admin/certification/finish`), records every request, grades, writes the reports.
 * Exit 0 when no MUST rule failed, 1 when one did (or the command failed; with --require-certified,
 * anything short of CERTIFIED; with --require-operations, a client that did not call one of them), 2 on bad usage.
 */
import { writeFileSync } from 'node:fs'
import { makeDir } from '../../mock/lib/make-dir.ts'
import { join } from 'node:path'
import { checks, helpText, outputDirProblem, parseFlags, usageLine, UsageError, type CommandSpec } from '../../mock/cli-flags.ts'
import { portInUseMessage } from '../../mock/port-holder.ts'
import { keepServing } from '../../mock/cli-output.ts'
import { untilStopped } from '../../mock/lib/orphan.ts'
import { commandFailure, runCommand } from '../../mock/lib/run-command.ts'
import { loadContract } from '../../openapi/index.ts'
import { createServer } from '../../mock/server.ts'
import { gradeRecording, type ClientReport } from './grade.ts'
import { loadProfile, type Profile } from './profile.ts'
import { clientHtml, clientJson, clientJunit } from './reporters.ts'
import { startCertification } from './session.ts'

const SPEC: CommandSpec = {
  name: 'certify-client',
  summary: 'Grades a client: the twin (on 127.0.0.1) runs the command with its URL, keys and shop ids in the environment, records every request, produces the documented situations and grades the client rule by rule. Without a command it records until Ctrl-C or POST /__admin/certification/finish.',
  rest: '[-- <command>]',
  flags: {
    profile: { value: 'standard|strict|FILE', help: 'the situations produced (a JSON file overrides fields of standard)', default: 'standard', check: checks.nonEmpty },
    'report-dir': { value: 'DIR', help: 'write junit.xml, report.json and report.html there', check: checks.nonEmpty },
    port: { value: 'N', help: 'the twin\'s port', default: '0, any free port', check: checks.port },
    seed: { value: 'N', help: 'orders the faults and places the 429', default: '42', check: checks.integer },
    scale: { value: 'certification|small|default|large', help: 'the world\'s size (certification: the default world with a main shop whose listings are deeper than their depth caps)', default: 'certification', check: checks.oneOf(['certification', 'small', 'default', 'large']) },
    'require-certified': { help: 'exit 1 for anything short of CERTIFIED' },
    'require-operations': { value: 'OP,OP', help: 'exit 1 unless the client called each of these operations (POST /automations/create or operationId; comma-separated or repeated)', multiple: true, check: checks.nonEmpty },
  },
  notes: ['Exit 0 when no MUST rule failed, 1 when one did or the command failed, 2 on bad usage. See README.md: Certify a client.'],
}

const usage = (message: string): 2 => {
  console.error(usageLine('certify-client', message))
  return 2
}

export async function main(argv: string[]): Promise<number> {
  const dash = argv.indexOf('--')
  const command = dash >= 0 ? argv.slice(dash + 1) : undefined
  let values: Record<string, string | undefined> & { 'require-operations'?: string[] }
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
  if (command && !command.length) return usage('nothing after --')
  const seed = Number(values.seed ?? 42)
  const port = Number(values.port ?? 0)
  // Operations by permission (`POST /automations/create`) or operationId, comma-separated or repeated.
  const requireOperations = (values['require-operations'] ?? []).flatMap((list) => list.split(',')).map((s) => s.trim()).filter(Boolean)
  const contract = loadContract()
  const unknown = requireOperations.filter((name) => !contract.byId.has(name) && !contract.operations.some((o) => o.permission === name))
  if (unknown.length) return usage(`--require-operations: no operation ${unknown.join(', ')} in the contract (name them as POST /automations/create or by operationId)`)
  const unwritable = values['report-dir'] ? outputDirProblem('--report-dir', values['report-dir']) : undefined
  if (unwritable) return usage(unwritable)
  let profile: Profile
  try {
    profile = loadProfile(values.profile ?? 'standard')
  } catch (error) {
    return usage((error as Error).message)
  }

  let mock
  try {
    mock = createServer({ stateOptions: { seed, scale: values.scale ?? String(SPEC.flags.scale!.default), responseCache: true } })
  } catch (error) {
    return usage((error as Error).message)
  }
  const url = await mock.listen(port, '127.0.0.1').catch((error: NodeJS.ErrnoException) => error)
  if (url instanceof Error) return usage(url.code === 'EADDRINUSE' ? portInUseMessage('127.0.0.1', port) : `cannot listen on 127.0.0.1:${port}: ${url.message}`)
  const { state } = mock
  const session = await startCertification(state, profile, seed)
  const key = (tier: string, label?: RegExp) => state.world.apiKeys.find((k) => k.tier === tier && (!label || label.test(k.label)))?.key ?? ''
  const env = {
    SHOPTWIN_BASE_URL: url,
    SHOPTWIN_API_KEY: key('standard', /every route/),
    SHOPTWIN_ENTERPRISE_API_KEY: key('enterprise'),
    SHOPTWIN_LIMITED_API_KEY: key('standard', /limited/),
    SHOPTWIN_SHOP_ID: state.world.shops[0]!.shop_id,
    SHOPTWIN_SHOP_IDS: state.world.shops.map((s) => s.shop_id).join(','),
    SHOPTWIN_ADMIN_URL: `${url}/__admin`,
  }

  const runErrors: string[] = []
  // A SIGINT or SIGTERM stops the recording (without a command) or is passed on to the command; a repeat never ends it before its reports.
  const stopped = untilStopped()
  if (command) {
    console.log(`certify-client: twin at ${url} (profile ${profile.name}, seed ${seed}); running ${command.join(' ')}`)
    const outcome = await runCommand(command, { ...process.env, ...env })
    if (typeof outcome === 'string' && outcome.startsWith('cannot run')) {
      await mock.close()
      return usage(outcome)
    }
    const failure = commandFailure(outcome)
    if (failure) runErrors.push(failure)
  } else {
    // Serving: a reader gone no longer stops the recording (mock/cli-output.ts).
    keepServing()
    console.log([`certify-client: twin at ${url} (profile ${profile.name}, seed ${seed}); recording until Ctrl-C or POST ${url}/__admin/certification/finish`, 'Environment for your integration:', ...Object.entries(env).map(([k, v]) => `  ${k}=${v}`)].join('\n'))
    await Promise.race([
      stopped,
      new Promise<void>((resolve) => {
        state.admin.register('certification/finish', () => {
          setImmediate(resolve)
          return { finishing: true }
        })
      }),
    ])
  }
  const report = gradeRecording(session.finish(), { runErrors, requireOperations })
  report.commandLine = `shoptwin certify-client ${argv.join(' ')}`
  await mock.close()
  write(report, values['report-dir'], state.world.apiKeys.map((k) => k.key))
  // As the server suite's --require-certified: a gate that must not pass a partial run.
  return values['require-certified'] && report.verdict !== 'certified' ? 1 : report.exitCode
}

/** One line per rule on the terminal, with its first finding and how many more the reports hold. */
const mark = (o: ClientReport['outcomes'][number]) => (o.status === 'pass' ? 'PASS' : o.status === 'not exercised' ? 'N/E ' : o.status === 'not applicable' ? 'N/A ' : o.level === 'MUST' ? 'FAIL' : 'WARN')

export const outcomeLines = (report: Pick<ClientReport, 'outcomes'>): string[] =>
  report.outcomes.map(
    (o) =>
      `${mark(o)} ${o.id} [${o.level}${o.inferred ? ', inferred' : ''}]${o.reason ? `  (${o.status}: ${o.reason})` : ''}${o.failures.length ? `\n     ${o.failures[0]!.message}` : ''}${o.failures.length > 1 ? `\n     +${o.failures.length - 1} more (report.json, report.html)` : ''}${o.failures.length && o.inferred ? `\n     inferred: ${o.inferred}` : ''}`,
  )

function write(report: ClientReport, dir: string | undefined, secrets: string[]): void {
  // A last pass, as the server suite's: a key a client echoed in a body never reaches a file.
  const redact = (text: string) => secrets.reduce((out, secret) => (secret ? out.split(secret).join('<redacted>') : out), text)
  const lines = outcomeLines(report)
  const written: string[] = []
  if (dir) {
    makeDir(dir)
    for (const [name, text] of [['junit.xml', clientJunit(report)], ['report.json', clientJson(report)], ['report.html', clientHtml(report)]] as const) {
      writeFileSync(join(dir, name), redact(text))
      written.push(join(dir, name))
    }
  }
  console.log(redact([...lines, '', `operations called (${report.operations.length}): ${report.operations.join(', ') || 'none'}`, `${report.summary.requests} requests; produced: ${Object.entries(report.situations).map(([k, v]) => `${k} x${v.length}`).join(', ') || 'nothing'}`, ...report.runErrors.map((e) => `run error: ${e}`), ...written.map((p) => `report: ${p}`), report.verdictText].join('\n')))
}
