/**
 * The command line's flags as tables: a subcommand lists each flag once (its value, its help, the
 * check of its value), and parsing (node:util parseArgs, strict), `--help` and the one-line usage
 * errors (exit 2) all come from that table. Adding a flag is one entry; adding a subcommand is one
 * table and one entry in mock/cli.ts's command list.
 */
import { parseArgs } from 'node:util'
import { isCalendarDate } from './clock.ts'
import { makeDir } from './lib/make-dir.ts'

export interface Flag {
  /** The value's placeholder in the help (`N`, `DIR`, `on|off`); none for a switch. */
  value?: string
  help: string
  /** The default, as the help shows it. */
  default?: string
  /** Why a given value is unusable (undefined when it is fine). */
  check?: (raw: string) => string | undefined
  /** How a refused value is shown in the usage error (default: quoted as given); a value holding a secret hides it. */
  shown?: (raw: string) => string
  multiple?: boolean
  short?: string
}

export interface CommandSpec {
  /** `serve`, `fixtures`... as typed after `shoptwin`. */
  name: string
  summary: string
  /** What follows the options in the usage line (`[-- <command>]`). */
  rest?: string
  flags: Record<string, Flag>
  /** Lines after the flags in `--help`. */
  notes?: string[]
}

/** A usage error: the CLI prints its message on one line and exits 2. */
export class UsageError extends Error {}

export type FlagValues = Record<string, string | boolean | string[] | undefined>

/** The `--help` text of a command, from its table. */
export function helpText(spec: CommandSpec): string {
  const rows = Object.entries(spec.flags).map(([name, flag]) => [`--${name}${flag.value ? ` ${flag.value}` : ''}`, `${flag.help}${flag.default !== undefined ? ` (default: ${flag.default})` : ''}`] as const)
  rows.push(['--help', 'this help'])
  const width = Math.max(...rows.map(([left]) => left.length)) + 2
  return [`usage: shoptwin ${spec.name} [options]${spec.rest ? ` ${spec.rest}` : ''}`, '', spec.summary, '', ...rows.map(([left, right]) => `  ${left.padEnd(width)}${right}`), ...(spec.notes?.length ? ['', ...spec.notes] : []), ''].join('\n')
}

/** parseArgs's messages are long and name the API (`Option '--port <value>' argument missing`): one short line instead. */
export function shortMessage(error: Error & { code?: string }, known: readonly string[] = []): string {
  const option = /'(-{1,2}[^' ]+)/.exec(error.message)?.[1]
  switch (error.code) {
    case 'ERR_PARSE_ARGS_UNKNOWN_OPTION': {
      const near = option?.startsWith('--') ? closest(option.slice(2).split('=')[0]!, known) : undefined
      return `unknown option ${option ?? error.message}${near ? ` (did you mean --${near}?)` : ''}`
    }
    case 'ERR_PARSE_ARGS_UNEXPECTED_POSITIONAL':
      return `unexpected argument ${/'([^']*)'/.exec(error.message)?.[1] ?? error.message}`
    case 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE':
      if (/does not take an argument/.test(error.message)) return `${option} takes no value`
      if (/ambiguous/.test(error.message)) return `${option} needs a value (a value starting with - is written ${option}=-...)`
      return `${option} needs a value`
    default:
      return error.message
  }
}

/** The edit distance of two short words (insertions, deletions, substitutions, a swap of neighbours). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array<number>(b.length).fill(0)])
  for (let j = 1; j <= b.length; j++) d[0]![j] = j
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      d[i]![j] = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) d[i]![j] = Math.min(d[i]![j]!, d[i - 2]![j - 2]! + 1)
    }
  }
  return d[a.length]![b.length]!
}

/** The one candidate a mistyped word most likely meant: within two edits (one for a word of up to four letters), or the only one it begins. */
export function closest(word: string, candidates: readonly string[]): string | undefined {
  const lower = word.toLowerCase()
  const scored = candidates.map((c) => ({ c, d: distance(lower, c.toLowerCase()) })).sort((x, y) => x.d - y.d)
  const best = scored[0]
  if (best && best.d <= (lower.length <= 4 ? 1 : 2) && scored[1]?.d !== best.d) return best.c
  const prefixed = lower.length >= 3 ? candidates.filter((c) => c.toLowerCase().startsWith(lower)) : []
  return prefixed.length === 1 ? prefixed[0] : undefined
}

/**
 * Parses `argv` against a command's table; `undefined` when `--help` was asked (the caller prints
 * helpText). Throws a UsageError (one line) on an unknown flag, a missing or unusable value.
 */
export function parseFlags(spec: CommandSpec, argv: string[], { positionals = false } = {}): { values: FlagValues; positionals: string[] } | undefined {
  const options: Record<string, { type: 'string' | 'boolean'; multiple?: boolean; short?: string }> = { help: { type: 'boolean', short: 'h' } }
  for (const [name, flag] of Object.entries(spec.flags)) options[name] = { type: flag.value ? 'string' : 'boolean', ...(flag.multiple ? { multiple: true } : {}), ...(flag.short ? { short: flag.short } : {}) }
  let parsed
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: positionals })
  } catch (error) {
    throw new UsageError(shortMessage(error as Error, Object.keys(spec.flags)))
  }
  if (parsed.values.help) return undefined
  for (const [name, flag] of Object.entries(spec.flags)) {
    const raw = parsed.values[name]
    if (!flag.check || raw === undefined) continue
    for (const value of Array.isArray(raw) ? raw : [raw]) {
      if (typeof value !== 'string') continue
      const problem = flag.check(value)
      if (problem) throw new UsageError(`--${name} ${problem}, got ${flag.shown?.(value) ?? JSON.stringify(value)}`)
    }
  }
  return { values: parsed.values as FlagValues, positionals: parsed.positionals }
}

/** The one line a usage error prints (the caller exits 2). */
export const usageLine = (command: string, message: string): string => `shoptwin ${command}: ${message} (see shoptwin ${command} --help)`

// The value checks the commands share.
export const checks = {
  integer: (raw: string) => (!/^-?\d+$/.test(raw) ? 'must be an integer' : Number.isSafeInteger(Number(raw)) ? undefined : `must be an integer from ${Number.MIN_SAFE_INTEGER} to ${Number.MAX_SAFE_INTEGER}`),
  port: (raw: string) => (/^\d+$/.test(raw) && Number(raw) <= 65535 ? undefined : 'must be a port number from 0 to 65535 (0: any free port)'),
  positive: (raw: string) => (Number.isFinite(Number(raw)) && Number(raw) > 0 ? undefined : 'must be a positive number'),
  onOff: (raw: string) => (['on', 'off', 'true', 'false'].includes(raw) ? undefined : 'must be on or off'),
  /** A real calendar date: 2026-02-30 and 2026-13-45 are refused. */
  date: (raw: string) => (!/^\d{4}-\d{2}-\d{2}$/.test(raw) ? 'must be a date YYYY-MM-DD' : isCalendarDate(raw) ? undefined : 'is not a calendar date'),
  oneOf: (values: readonly string[]) => (raw: string) => (values.includes(raw) ? undefined : `must be one of ${values.join(', ')}`),
  nonEmpty: (raw: string) => (raw.trim() ? undefined : 'must not be empty'),
  positiveInteger: (raw: string) => (/^\d+$/.test(raw) && Number(raw) >= 1 ? undefined : 'must be a whole number of at least 1'),
  storeUrl: (raw: string) => (/^(redis|rediss|valkey):\/\/[^/,]+(,[^/,@]+)*(\/\d+)?\/?$|^unix:\/\/\/.+/.test(raw) ? undefined : 'must be redis://HOST:PORT[/DB], redis://HOST:PORT,HOST:PORT,... (a Redis Cluster\'s nodes) or unix:///path/to/redis.sock'),
  twinName: (raw: string) => (/^[A-Za-z0-9._-]{1,64}$/.test(raw) ? undefined : "must be 1-64 letters, digits, '.', '_' or '-'"),
}

/** Whether an on/off flag is on (`fallback` when not given). */
export const isOn = (raw: string | boolean | string[] | undefined, fallback: boolean): boolean => (typeof raw === 'string' ? raw === 'on' || raw === 'true' : fallback)

/**
 * Makes the directory a command writes to (`--report-dir`, `--out`) before the command's work, so that
 * one it cannot make is said at the start in one line, not after a run or a proxy session: undefined
 * when it is there.
 */
export function outputDirProblem(flag: string, dir: string): string | undefined {
  try {
    makeDir(dir)
    return undefined
  } catch (error) {
    return `${flag} ${dir}: ${(error as Error).message}`
  }
}
