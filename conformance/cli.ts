/**
 * `shoptwin conformance`: certifies a target server against the contract and the behavioural rules.
 * Exit codes: 0 every MUST rule passed; 1 one failed; 2 bad usage or an unreachable target. The rules
 * run in this process (runner/run-rules.ts).
 */
import { writeFile } from 'node:fs/promises'
import { makeDir } from '../mock/lib/make-dir.ts'
import { networkErrorText } from '../mock/lib/network-errors.ts'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { outputDirProblem, shortMessage } from '../mock/cli-flags.ts'
import { loadContract } from '../openapi/index.ts'
import { catalogue, selectRules } from './catalogue.ts'
import { redactText } from './client.ts'
import { buildReport, type RunReport } from './report.ts'
import { htmlReport } from './reporters/html.ts'
import { jsonReport } from './reporters/json.ts'
import { junitReport } from './reporters/junit.ts'
import { createTerminalReporter } from './reporters/terminal.ts'
import { runSelectedRules } from './runner/run-rules.ts'
import type { RunOptions } from './types.ts'

export const USAGE = `usage: shoptwin conformance --base-url URL --api-key KEY --shop-id ID [options]

  --base-url URL             the server to certify
  --api-key KEY              a standard key (or env CONFORMANCE_API_KEY)
  --shop-id ID               the shop the rules read and write (shop_id of GET /account/shops)
  --enterprise-api-key KEY   an Enterprise key (or env CONFORMANCE_ENTERPRISE_API_KEY)
  --limited-api-key KEY      a key limited to some routes and shops (or env CONFORMANCE_LIMITED_API_KEY)
  --allow-writes             run the writing rules (they create conformance-… resources and delete them)
  --rules PATTERN            rule ids, areas or globs, comma-separated or repeated (default: all)
  --report-dir DIR           write junit.xml, report.json and report.html there
  --rps N                    requests per second to stay under (default 8)
  --halo-bound SECONDS       how long the halo report may stay refreshing (default 60)
  --rule-timeout SECONDS     longest run of one rule (default 120)
  --require-certified        exit 1 for anything short of CERTIFIED (a partial run too)
  --list                     print the rule catalogue and exit
  --mcp-url URL              check an assistant connector instead (its rules: conformance/README.md);
                             with it: --mcp-user EMAIL, --mcp-password PW (or env CONFORMANCE_MCP_PASSWORD)
                             for the rules past sign-in, --base-url and --api-key for the activity log,
                             --report-dir and --require-certified as above
`

/** Parses the command line; returns options or the one-line reason they are unusable. */
export function parseOptions(argv: string[], env: NodeJS.ProcessEnv = process.env): { options: RunOptions; list: boolean; help: boolean } | { error: string } {
  let parsed
  const flags = {
    'base-url': { type: 'string' },
    'api-key': { type: 'string' },
    'shop-id': { type: 'string' },
    'enterprise-api-key': { type: 'string' },
    'limited-api-key': { type: 'string' },
    'allow-writes': { type: 'boolean', default: false },
    rules: { type: 'string', multiple: true },
    'report-dir': { type: 'string' },
    rps: { type: 'string' },
    'halo-bound': { type: 'string' },
    'rule-timeout': { type: 'string' },
    'require-certified': { type: 'boolean', default: false },
    list: { type: 'boolean', default: false },
    help: { type: 'boolean', short: 'h', default: false },
  } as const
  try {
    parsed = parseArgs({ args: argv, strict: true, options: flags })
  } catch (error) {
    return { error: shortMessage(error as Error, Object.keys(flags)) }
  }
  const v = parsed.values
  const help = Boolean(v.help)
  const list = Boolean(v.list)
  const number = (name: string, raw: string | undefined, fallback: number) => {
    if (raw === undefined) return fallback
    const n = Number(raw)
    return Number.isFinite(n) && n > 0 ? n : Number.NaN
  }
  const rps = number('rps', v.rps, 8)
  const haloBoundSeconds = number('halo-bound', v['halo-bound'], 60)
  const ruleTimeoutSeconds = number('rule-timeout', v['rule-timeout'], 120)
  const options: RunOptions = {
    baseUrl: v['base-url'] ?? '',
    apiKey: v['api-key'] ?? env.CONFORMANCE_API_KEY ?? '',
    shopId: v['shop-id'] ?? '',
    enterpriseApiKey: v['enterprise-api-key'] ?? env.CONFORMANCE_ENTERPRISE_API_KEY,
    limitedApiKey: v['limited-api-key'] ?? env.CONFORMANCE_LIMITED_API_KEY,
    allowWrites: Boolean(v['allow-writes']),
    rules: (v.rules ?? []).flatMap((r) => r.split(',')).map((r) => r.trim()).filter(Boolean),
    reportDir: v['report-dir'],
    rps,
    haloBoundSeconds,
    ruleTimeoutSeconds,
    requireCertified: Boolean(v['require-certified']),
  }
  if (help || list) return { options, list, help }
  if (!options.baseUrl) return { error: '--base-url is required' }
  try {
    const url = new URL(options.baseUrl)
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return { error: `--base-url must be http or https: ${options.baseUrl}` }
  } catch {
    return { error: `--base-url is not a URL: ${options.baseUrl}` }
  }
  if (!options.apiKey) return { error: '--api-key is required (or set CONFORMANCE_API_KEY)' }
  if (!options.shopId) return { error: '--shop-id is required' }
  if (Number.isNaN(rps)) return { error: '--rps must be a positive number' }
  if (Number.isNaN(haloBoundSeconds)) return { error: '--halo-bound must be a positive number of seconds' }
  if (Number.isNaN(ruleTimeoutSeconds)) return { error: '--rule-timeout must be a positive number of seconds' }
  if (options.rules.length && !selectRules(options.rules).length) return { error: `--rules ${options.rules.join(',')} matches no rule (see --list)` }
  return { options, list, help }
}

/**
 * One request to see whether the target answers at all, takes the key, and has the shop on the key's
 * account (spec: Authentication 1, x-shop-id is a shop_id of GET /account/shops); the reason when not.
 */
export async function probeTarget(options: RunOptions): Promise<string | undefined> {
  const url = `${options.baseUrl.replace(/\/+$/, '')}/account/shops`
  try {
    const response = await fetch(url, { headers: { 'x-api-key': options.apiKey, accept: 'application/json' }, signal: AbortSignal.timeout(15_000) })
    const text = await response.text()
    if (response.status === 401) return `${options.baseUrl} refused the API key (HTTP 401 on GET /account/shops)`
    const type = response.headers.get('content-type') ?? ''
    if (!/json/i.test(type)) return `${options.baseUrl} does not look like the API: GET /account/shops answered HTTP ${response.status} ${type || 'without a content type'}`
    return response.ok ? shopNotOnAccount(text, options.shopId) : undefined
  } catch (error) {
    const cause = (error as { cause?: { code?: string; message?: string; errors?: Array<{ code?: string }> } }).cause
    const reason = cause?.code ?? cause?.errors?.[0]?.code ?? cause?.message ?? ((error as Error).name === 'TimeoutError' ? 'timed out' : (error as Error).message)
    return `cannot reach ${options.baseUrl}: ${networkErrorText(reason)}`
  }
}

/**
 * Why --shop-id cannot be used: not one of the shops GET /account/shops listed. Only a well-formed
 * list is judged: a malformed answer is left to the rules (contract.responses-valid reports it).
 */
function shopNotOnAccount(body: string, shopId: string): string | undefined {
  let shops: unknown
  try {
    shops = (JSON.parse(body) as { data?: unknown }).data
  } catch {
    return undefined
  }
  if (!Array.isArray(shops)) return undefined
  const ids = shops.map((shop: unknown) => (shop && typeof shop === 'object' ? (shop as { shop_id?: unknown }).shop_id : undefined)).filter((id): id is string => typeof id === 'string')
  if (ids.length !== shops.length || ids.includes(shopId)) return undefined
  const listed = ids.length > 6 ? `${ids.slice(0, 6).join(', ')} and ${ids.length - 6} more` : ids.join(', ')
  return `--shop-id ${shopId} is not a shop of this key's account (GET /account/shops lists ${listed || 'no shop'})`
}

/** Writes the three reports with every secret redacted once more; returns their paths. */
export async function writeReports(report: RunReport, dir: string, secrets: readonly string[]): Promise<string[]> {
  makeDir(dir)
  const files: Array<[string, string]> = [
    ['junit.xml', junitReport(report)],
    ['report.json', jsonReport(report)],
    ['report.html', htmlReport(report)],
  ]
  const written: string[] = []
  for (const [name, text] of files) {
    const path = join(dir, name)
    await writeFile(path, redactText(text, secrets))
    written.push(path)
  }
  return written
}

/** The command line as the certificate shows it: shell-quoted, every secret redacted. */
export const commandLineOf = (argv: readonly string[], secrets: readonly string[]): string =>
  redactText(['shoptwin conformance', ...argv.map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`))].join(' '), secrets)

/** Entry point of `shoptwin conformance`; resolves to the exit code. */
export async function main(argv: string[]): Promise<number> {
  if (argv.some((a) => a === '--mcp-url' || a.startsWith('--mcp-url='))) return (await import('./rules/connector/run.ts')).runConnectorCli(argv)
  const parsed = parseOptions(argv)
  if ('error' in parsed) {
    process.stderr.write(`conformance: ${parsed.error} (see shoptwin conformance --help)\n`)
    return 2
  }
  const { options, list, help } = parsed
  if (help) {
    process.stdout.write(USAGE)
    return 0
  }
  if (list) {
    for (const rule of selectRules(options.rules)) process.stdout.write(`${rule.id.padEnd(38)} ${rule.level.padEnd(6)} ${rule.writes ? 'writes' : 'reads '} ${rule.title}${rule.inferred ? ` (inferred: ${rule.inferred})` : ''}\n`)
    return 0
  }
  const unwritable = options.reportDir ? outputDirProblem('--report-dir', options.reportDir) : undefined
  if (unwritable) {
    process.stderr.write(`conformance: ${unwritable}\n`)
    return 2
  }
  const unreachable = await probeTarget(options)
  if (unreachable) {
    process.stderr.write(`conformance: ${unreachable}\n`)
    return 2
  }
  const secrets = [options.apiKey, options.enterpriseApiKey, options.limitedApiKey].filter((s): s is string => Boolean(s))
  const terminal = createTerminalReporter()
  const startedAt = new Date()
  terminal.start(redactText(options.baseUrl, secrets), selectRules(options.rules).length)
  const { outcomes, runErrors } = await runSelectedRules(options, { onOutcome: (o) => terminal.outcome(o), onProgress: (ruleId, message) => terminal.waiting(ruleId, message) })
  const report = buildReport(loadContract(), options, outcomes, runErrors.map((e) => redactText(e, secrets)), startedAt)
  report.commandLine = commandLineOf(argv, secrets)
  const written = options.reportDir ? await writeReports(report, resolve(options.reportDir), secrets) : []
  terminal.summary(report, written)
  return report.exitCode
}

export { catalogue }
