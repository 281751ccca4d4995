/**
 * shoptwin's command line: `serve` (the standalone mock), `fixtures` (write a world to files),
 * `conformance` (certify a server), `certify-client` (grade a client). `npm start -- --port 5000`
 * passes flags through to `serve`. Every subcommand answers `--help`; a bad flag or value is one
 * line on stderr and exit 2 (the flags' tables: mock/cli-flags.ts).
 */
import module from 'node:module'
import v8 from 'node:v8'
import { fileURLToPath } from 'node:url'
import { SCALES } from '../fixtures/scale.ts'
import { checks, closest, helpText, isOn, outputDirProblem, parseFlags, usageLine, UsageError, type CommandSpec, type FlagValues } from './cli-flags.ts'
import { portInUseMessage } from './port-holder.ts'
import { redactStoreUrl } from './lib/redact-url.ts'
import { shoptwinVersion } from './lib/version.ts'
import { untilStopped } from './lib/orphan.ts'
import { handleOutputErrors, keepServing } from './cli-output.ts'

// Node's on-disk compile cache (os.tmpdir()/node-compile-cache; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off) keeps the type-stripped and compiled modules, so later starts skip that work. It only applies
// to modules loaded after this line: the server is imported below, when a command needs it.
module.enableCompileCache?.()

const SCALE_NAMES = Object.keys(SCALES)

const SERVE: CommandSpec = {
  name: 'serve',
  summary: 'The standalone mock server, in the foreground; Ctrl-C (SIGINT) or SIGTERM let in-flight requests finish.',
  flags: {
    port: { value: 'N', help: 'the port; 0 picks any free port (the first line says which)', default: '4010', check: checks.port },
    host: { value: 'HOST', help: 'the address to listen on', default: '127.0.0.1', check: checks.nonEmpty },
    seed: { value: 'N', help: 'the world\'s seed', default: '42', check: checks.integer },
    scale: { value: SCALE_NAMES.join('|'), help: 'the world\'s size', default: 'default', check: checks.oneOf(SCALE_NAMES) },
    today: { value: 'YYYY-MM-DD', help: 'the world\'s last day', default: 'the clock\'s date', check: checks.date },
    'rate-limit': { value: 'on|off', help: '10 requests/s per key and shop, as the service', default: 'on', check: checks.onOff },
    'response-cache': { value: 'on|off', help: 'answer identical reads again until any write, control-API call or clock move', default: 'on', check: checks.onOff },
    trace: { value: 'on|off', help: 'every answer carries x-shoptwin-trace and its trace is kept (GET /__admin/traces/<id>; the console is /__admin/console)', default: 'on', check: checks.onOff },
    strict: { help: 'freeze the world: a handler editing it in place throws' },
    'remote-admin': { help: 'allow the control API (/__admin/) from other hosts than loopback' },
    store: { value: 'URL', help: 'share the twin between replicas on a Redis-compatible server (Redis 7+, Valkey): redis://HOST:PORT[/DB], unix:///path/redis.sock, or a Redis Cluster by any of its nodes, redis://HOST:PORT or redis://HOST:PORT,HOST:PORT,... (found out on connect; or SHOPTWIN_STORE)', default: 'in memory', check: checks.storeUrl, shown: (raw) => JSON.stringify(redactStoreUrl(raw)) },
    twin: { value: 'NAME', help: 'with --store: the twin the replicas share, 1-64 letters, digits, . _ - (or SHOPTWIN_TWIN)', default: 'default', check: checks.twinName },
    'rate-per-second': { value: 'N', help: 'requests per second per key and shop (the spec\'s 10)', default: '10', check: checks.positiveInteger },
    'rate-per-day': { value: 'N', help: 'requests per day per key and shop (the spec\'s 1,000,000)', default: '1000000', check: checks.positiveInteger },
  },
  notes: [
    'The demo keys, shop ids and the connector\'s users are printed at start. See README.md: Use the mock, As a local server.',
    'With --store, replicas started with the same store and --twin act as one twin (README.md: Several replicas, one twin); the twin\'s settings are fixed when it is created and a replica whose flags differ refuses to start.',
  ],
}

const FIXTURES: CommandSpec = {
  name: 'fixtures',
  summary: 'Writes a seeded world to one JSON file per collection, with a manifest.json.',
  flags: {
    out: { value: 'DIR', help: 'the directory to write (required)', check: checks.nonEmpty },
    seed: { value: 'N', help: 'the world\'s seed', default: '42', check: checks.integer },
    scale: { value: SCALE_NAMES.join('|'), help: 'the world\'s size', default: 'default', check: checks.oneOf(SCALE_NAMES) },
    today: { value: 'YYYY-MM-DD', help: 'the world\'s last day', default: 'today', check: checks.date },
  },
}

/** The subcommands: `shoptwin <name>`; each parses its own flags and resolves to its exit code. */
const COMMANDS: Array<{ name: string; summary: string; run: (argv: string[]) => Promise<number> }> = [
  { name: 'serve', summary: 'the standalone mock server (http://127.0.0.1:4010)', run: serve },
  { name: 'fixtures', summary: 'write a seeded world to JSON files', run: fixtures },
  { name: 'conformance', summary: 'certify a server (or, with --mcp-url, an assistant connector) against the contract and the rules', run: conformance },
  { name: 'certify-client', summary: 'grade a client: the twin records its requests and produces the documented situations', run: certifyClient },
  { name: 'proxy', summary: 'in front of a real server: grade every exchange (server and client) and, with --inject, produce the situations', run: proxy },
]

const USAGE = [
  'usage: shoptwin <command> [options]      shoptwin <command> --help for its options; shoptwin --version',
  '',
  'commands:',
  ...COMMANDS.map((c) => `  ${c.name.padEnd(16)}${c.summary}`),
  '',
  'Docs: README.md in this package (node_modules/shoptwin/README.md).',
  '',
].join('\n')

/** Parses a command's flags; prints the help or the one-line usage error. The values, or the exit code to return. */
function parseOrExit(spec: CommandSpec, args: string[]): FlagValues | number {
  try {
    const parsed = parseFlags(spec, args)
    if (parsed) return parsed.values
    process.stdout.write(helpText(spec))
    return 0
  } catch (error) {
    if (!(error instanceof UsageError)) throw error
    console.error(usageLine(spec.name, error.message))
    return 2
  }
}

const str = (value: FlagValues[string]): string | undefined => (typeof value === 'string' ? value : undefined)

async function serve(args: string[]): Promise<number> {
  const values = parseOrExit(SERVE, args)
  if (typeof values === 'number') return values
  // Memory of a long-running server (measured with npm run bench): by default V8 lets the young
  // generation grow to 2 x 64 MB and the old one to up to 4x its live size between full collections,
  // some 200 MB of RSS under load that the mock never needs. Keeping the young generation at its
  // initial size and growing the old one 1.5x at a time costs a few percent more CPU in collections,
  // with no measurable change in req/s or p99. Both flags are read by V8 at each collection, so
  // setting them once listening takes effect (before, they would cost the start some 60 ms of
  // collections: npm run bench:startup).
  const port = Number(str(values.port) ?? 4010)
  const host = str(values.host) ?? '127.0.0.1'
  const today = str(values.today)
  const storeUrl = str(values.store) ?? process.env.SHOPTWIN_STORE
  const twinName = str(values.twin) ?? process.env.SHOPTWIN_TWIN ?? 'default'
  const twinProblem = checks.twinName(twinName) ?? (storeUrl ? checks.storeUrl(storeUrl) : undefined)
  if (twinProblem) {
    console.error(usageLine('serve', `${storeUrl && checks.storeUrl(storeUrl) ? `--store ${redactStoreUrl(storeUrl)}` : `--twin ${twinName}`} ${twinProblem}`))
    return 2
  }
  const given = (name: string) => (str(values[name]) === undefined ? undefined : Number(str(values[name])))
  const flags = {
    ...(given('seed') !== undefined ? { seed: given('seed')! } : {}),
    ...(str(values.scale) ? { scale: str(values.scale)! } : {}),
    ...(today ? { today } : {}),
    ...(str(values['rate-limit']) ? { rateLimit: isOn(values['rate-limit'], true) } : {}),
    ...(given('rate-per-second') ? { perSecond: given('rate-per-second')! } : {}),
    ...(given('rate-per-day') ? { perDay: given('rate-per-day')! } : {}),
  }
  // The shared store's client is loaded only when --store asks for it.
  const shared = storeUrl ? await openSharedTwin(storeUrl, twinName, flags) : undefined
  if (typeof shared === 'string') {
    console.error(`shoptwin serve: ${shared}`)
    return 2
  }
  const { createServer } = await import('./server.ts')
  const mock = createServer({
    stateOptions: {
      seed: flags.seed ?? 42,
      scale: flags.scale ?? 'default',
      ...(today ? { today } : {}),
      rateLimit: flags.rateLimit ?? true,
      rateLimits: { ...(flags.perSecond ? { perSecond: flags.perSecond } : {}), ...(flags.perDay ? { perDay: flags.perDay } : {}) },
      // Over HTTP every change goes through a request, so the cache is exact: on unless turned off.
      responseCache: isOn(values['response-cache'], true),
      trace: isOn(values.trace, true),
      strict: values.strict === true,
      // On a shared store, the twin's settings (resolved when it was created) win.
      ...(shared
        ? {
            seed: shared.config.seed,
            scale: shared.config.scale,
            today: shared.config.today,
            rateLimit: shared.config.rateLimit,
            rateLimits: { perSecond: shared.config.perSecond, perDay: shared.config.perDay },
            createdAt: shared.config.createdAt,
            twin: shared.attach,
          }
        : {}),
    },
    remoteAdmin: values['remote-admin'] === true,
  })
  if (shared) {
    try {
      await shared.start()
    } catch (error) {
      console.error(`shoptwin serve: cannot replay twin '${twinName}' from ${shared.store}: ${(error as Error).message}`)
      // Its connections would keep the process alive.
      await shared.twin.close().catch(() => {})
      return 2
    }
  }
  const url = await mock.listen(port, host).catch((error: NodeJS.ErrnoException) => {
    if (error.code === 'EADDRINUSE') return new UsageError(portInUseMessage(host, port))
    if (error.code === 'EADDRNOTAVAIL' || error.code === 'ENOTFOUND' || error.code === 'EACCES') return new UsageError(`cannot listen on ${host}:${port} (${error.code})`)
    return error
  })
  if (url instanceof Error) {
    // The shared store's connections (and its lease keeper's thread) would keep the process alive.
    await shared?.twin.close().catch(() => {})
    if (!(url instanceof UsageError)) throw url
    console.error(usageLine('serve', url.message))
    return 2
  }
  // A server serves on when nobody reads its output (mock/cli-output.ts).
  keepServing()
  v8.setFlagsFromString('--semi-space-growth-factor=1')
  v8.setFlagsFromString('--heap-growing-percent=50')
  const { state } = mock
  const lines = [
    `shoptwin mock listening on ${url}  (seed ${state.seed}, scale ${state.scale}, today ${state.today}, rate limit ${state.rateLimit ? 'on' : 'off'}, response cache ${state.responseCache ? 'on' : 'off'}, tracing ${state.traces.enabled ? 'on' : 'off'})`,
    ...(shared ? [`Shared twin '${twinName}' on ${shared.store} (${shared.created ? 'created' : 'joined'}; log head ${state.twin.head}; metrics: ${url}/__admin/metrics)`] : []),
    '',
    'API keys (x-api-key):',
    ...state.world.apiKeys.map((k) => `  ${k.key.padEnd(22)} ${k.label}`),
    '',
    'Shops (x-shop-id):',
    ...state.world.shops.map((s) => `  ${s.shop_id}  ${s.shop_name} (${s.plan}${s.is_active ? '' : ', inactive'})`),
    '',
    `Try: curl -s ${url}/shop/sps -H 'x-api-key: ${state.world.apiKeys[0]?.key}' -H 'x-shop-id: ${state.world.shops[0]?.shop_id}'`,
    `Control API: ${url}/__admin/  (reset, clock, faults, requests, world, traces, metrics)`,
    `Console:     ${url}/__admin/console  (live exchanges and their traces, clock, faults, limits, state)`,
    '',
    'Assistant connector (OAuth 2.1 + MCP, same world; mock/connector/README.md):',
    `  MCP endpoint  ${url}/mcp`,
    `  Connections   ${url}/oauth/connections`,
    ...state.connector.data.users.map((u) => `  Sign in as    ${u.email} / ${u.password}`),
  ]
  // Listening before the banner says so: a SIGTERM sent the moment it is read stops the server as any other.
  const stopped = untilStopped()
  console.log(lines.join('\n'))

  const shutdown = (why: string) => {
    console.log(`\nshoptwin: ${why}, finishing in-flight requests...`)
    mock.close().then(
      async () => {
        await mock.state.twin.close()
        process.exit(0)
      },
      (error: unknown) => {
        console.error(error)
        process.exit(1)
      },
    )
  }
  void stopped.then(shutdown)
  return 0
}

/** Connects to the shared store and adopts (or creates) the twin's settings; the one-line reason when it cannot. */
async function openSharedTwin(url: string, name: string, flags: { seed?: number; scale?: string; today?: string; rateLimit?: boolean; perSecond?: number; perDay?: number }) {
  const { openRedisTwin } = await import('./twin/redis/index.ts')
  // For the fencing proofs (test/replicas): a shorter lease, and writes held under it.
  const leaseMs = process.env.SHOPTWIN_LEASE_MS ? Number(process.env.SHOPTWIN_LEASE_MS) : undefined
  const holdWriteMs = process.env.SHOPTWIN_HOLD_WRITE_MS ? Number(process.env.SHOPTWIN_HOLD_WRITE_MS) : undefined
  // For the proof that a replica stopped while it kept the lease idle answers nothing from what it held.
  const leaseIdleMs = process.env.SHOPTWIN_LEASE_IDLE_MS ? Number(process.env.SHOPTWIN_LEASE_IDLE_MS) : undefined
  // For the barrier's proof: appended entries held until a reader asks for them.
  const appendDelayMs = process.env.SHOPTWIN_APPEND_DELAY_MS ? Number(process.env.SHOPTWIN_APPEND_DELAY_MS) : undefined
  // For the tests on a loaded machine: how long a reader waits for the other replicas' flushes.
  const barrierWaitMs = process.env.SHOPTWIN_BARRIER_WAIT_MS ? Number(process.env.SHOPTWIN_BARRIER_WAIT_MS) : undefined
  // For operators: the lag (operations) at which a replica says it fell behind.
  const lagWarnOps = process.env.SHOPTWIN_LAG_WARN ? Number(process.env.SHOPTWIN_LAG_WARN) : undefined
  // For operators: the bound of each replica's copy of the log (which restores a twin the store lost).
  const keptMaxBytes = process.env.SHOPTWIN_RESTORE_MAX_MB ? Number(process.env.SHOPTWIN_RESTORE_MAX_MB) * 1048576 : undefined
  try {
    const twin = await openRedisTwin(url, name, { ...flags, createdAt: Date.now(), clock: { frozenAt: null, offset: 0 } }, { ...(leaseMs ? { leaseMs } : {}), ...(holdWriteMs ? { holdWriteMs } : {}), ...(leaseIdleMs ? { leaseIdleMs } : {}), ...(appendDelayMs ? { appendDelayMs } : {}), ...(barrierWaitMs ? { barrierWaitMs } : {}), ...(lagWarnOps ? { lagWarnOps } : {}), ...(keptMaxBytes !== undefined ? { keptMaxBytes } : {}) })
    return { ...twin, store: redactStoreUrl(url) }
  } catch (error) {
    return (error as Error).message
  }
}

async function fixtures(args: string[]): Promise<number> {
  const values = parseOrExit(FIXTURES, args)
  if (typeof values === 'number') return values
  const out = str(values.out)
  if (!out) {
    console.error(usageLine('fixtures', '--out DIR is required'))
    return 2
  }
  const unwritable = outputDirProblem('--out', out)
  if (unwritable) {
    console.error(usageLine('fixtures', unwritable))
    return 2
  }
  const exportPath = ownModule('..', 'fixtures', 'export')
  const mod = (await import(exportPath)) as { writeWorldFiles: (o: { seed: number; scale: string; today: string; out: string }) => unknown }
  const today = str(values.today) ?? new Date().toISOString().slice(0, 10)
  const result = await mod.writeWorldFiles({ seed: Number(str(values.seed) ?? 42), scale: str(values.scale) ?? 'default', today, out })
  if (result !== undefined) console.log(typeof result === 'string' ? result : JSON.stringify(result, null, 2))
  return 0
}

async function conformance(args: string[]): Promise<number> {
  // Loaded on demand: `serve` never loads the suite's runner.
  const { main } = await import('../conformance/cli.ts')
  return main(args)
}

/** A module loaded by a computed path, only for its command: .ts in the repository, .js in the package's dist/. */
const ownModule = (...path: string[]) => [...path.slice(0, -1), `${path.at(-1)}.${import.meta.url.endsWith('.ts') ? 'ts' : 'js'}`].join('/')

async function certifyClient(args: string[]): Promise<number> {
  const { main } = (await import(ownModule('..', 'conformance', 'certify-client', 'cli'))) as { main: (argv: string[]) => Promise<number> }
  return main(args)
}

async function proxy(args: string[]): Promise<number> {
  const { main } = (await import(ownModule('..', 'proxy', 'cli'))) as { main: (argv: string[]) => Promise<number> }
  return main(args)
}

/** Runs the CLI with `argv` (without node and the script); sets process.exitCode. */
export async function main(argv: string[]): Promise<void> {
  // A reader that leaves early (`| head -1`): no stack trace (mock/cli-output.ts).
  handleOutputErrors()
  const [name, ...rest] = argv
  if (name === undefined || name === '-h' || name === '--help' || name === 'help') {
    process.stdout.write(USAGE)
    return
  }
  if (name === '--version' || name === '-v' || name === 'version') {
    process.stdout.write(`${shoptwinVersion()}\n`)
    return
  }
  const command = COMMANDS.find((c) => c.name === name)
  if (!command) {
    const near = closest(name.replace(/^-+/, ''), COMMANDS.map((c) => c.name))
    console.error(`shoptwin: unknown command ${name}${near ? ` (did you mean ${near}?)` : ''} (commands: ${COMMANDS.map((c) => c.name).join(', ')}; see shoptwin --help)`)
    process.exitCode = 2
    return
  }
  process.exitCode = await command.run(rest)
}

// `node mock/cli.ts ...` (npm start); bin/shoptwin.mjs calls main() itself.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
