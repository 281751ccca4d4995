/**
 * shoptwin's command line: `serve` (the standalone mock), `fixtures` (write a world to files),
 * `conformance` (certify a server). `npm start -- --port 5000` passes flags through to `serve`.
 */
import module from 'node:module'
import { parseArgs } from 'node:util'
import v8 from 'node:v8'
import { fileURLToPath } from 'node:url'

// Node's on-disk compile cache (os.tmpdir()/node-compile-cache; NODE_DISABLE_COMPILE_CACHE=1 turns
// it off) keeps the type-stripped and compiled modules, so later starts skip that work. It only applies
// to modules loaded after this line: the server is imported below, when a command needs it.
module.enableCompileCache?.()

const USAGE = `usage: shoptwin <command> [options]

commands:
  serve        the standalone mock server
               --port 4010  --host 127.0.0.1  --seed 42  --scale default|small|large
               --today YYYY-MM-DD  --rate-limit on|off  --strict  --remote-admin
               --response-cache on|off  (default on: identical reads answered again until
               any write, control-API call or clock move)
  fixtures     write a seeded world to files: --seed 42 --scale small --today YYYY-MM-DD --out DIR
  conformance  run the conformance suite against a server (see conformance/)
  certify-client  grade a client: the twin records its requests and produces the documented
               situations: [--profile standard|strict|FILE] [--report-dir DIR] [--port N]
               [--seed N] [-- <command>]  (see README: Certify a client)
`

function fail(message: string): never {
  console.error(`shoptwin: ${message}\n\n${USAGE}`)
  process.exit(2)
}

function integer(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback
  const n = Number(value)
  if (!Number.isInteger(n)) fail(`--${name} must be an integer, got ${value}`)
  return n
}

function onOff(value: string | undefined, name: string, fallback: boolean): boolean {
  if (value === undefined) return fallback
  if (value === 'on' || value === 'true') return true
  if (value === 'off' || value === 'false') return false
  fail(`--${name} must be on or off, got ${value}`)
}

async function serve(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: {
      port: { type: 'string' },
      host: { type: 'string' },
      seed: { type: 'string' },
      scale: { type: 'string' },
      today: { type: 'string' },
      'rate-limit': { type: 'string' },
      'response-cache': { type: 'string' },
      strict: { type: 'boolean' },
      'remote-admin': { type: 'boolean' },
    },
    strict: true,
  })
  // Memory of a long-running server (measured with npm run bench): by default V8 lets the young
  // generation grow to 2 x 64 MB and the old one to up to 4x its live size between full collections,
  // some 200 MB of RSS under load that the mock never needs. Keeping the young generation at its
  // initial size and growing the old one 1.5x at a time costs a few percent more CPU in collections,
  // with no measurable change in req/s or p99. Both flags are read by V8 at each collection, so
  // setting them once listening takes effect (before, they would cost the start some 60 ms of
  // collections: npm run bench:startup).
  const port = integer(values.port, 'port', 4010)
  const host = values.host ?? '127.0.0.1'
  const { createServer } = await import('./server.ts')
  const mock = createServer({
    stateOptions: {
      seed: integer(values.seed, 'seed', 42),
      scale: values.scale ?? 'default',
      ...(values.today ? { today: values.today } : {}),
      rateLimit: onOff(values['rate-limit'], 'rate-limit', true),
      // Over HTTP every change goes through a request, so the cache is exact: on unless turned off.
      responseCache: onOff(values['response-cache'], 'response-cache', true),
      strict: values.strict ?? false,
    },
    remoteAdmin: values['remote-admin'] ?? false,
  })
  const url = await mock.listen(port, host)
  v8.setFlagsFromString('--semi-space-growth-factor=1')
  v8.setFlagsFromString('--heap-growing-percent=50')
  const { state } = mock
  const lines = [
    `shoptwin mock listening on ${url}  (seed ${state.seed}, scale ${state.scale}, today ${state.today}, rate limit ${state.rateLimit ? 'on' : 'off'}, response cache ${state.responseCache ? 'on' : 'off'})`,
    '',
    'API keys (x-api-key):',
    ...state.world.apiKeys.map((k) => `  ${k.key.padEnd(22)} ${k.label}`),
    '',
    'Shops (x-shop-id):',
    ...state.world.shops.map((s) => `  ${s.shop_id}  ${s.shop_name} (${s.plan}${s.is_active ? '' : ', inactive'})`),
    '',
    `Try: curl -s ${url}/shop/sps -H 'x-api-key: ${state.world.apiKeys[0]?.key}' -H 'x-shop-id: ${state.world.shops[0]?.shop_id}'`,
    `Control API: ${url}/__admin/  (reset, clock, faults, requests, world)`,
    '',
    'Assistant connector (OAuth 2.1 + MCP, same world; mock/connector/README.md):',
    `  MCP endpoint  ${url}/mcp`,
    `  Connections   ${url}/oauth/connections`,
    ...state.connector.data.users.map((u) => `  Sign in as    ${u.email} / ${u.password}`),
  ]
  console.log(lines.join('\n'))

  let closing = false
  const shutdown = (signal: string) => {
    if (closing) return
    closing = true
    console.log(`\nshoptwin: ${signal} received, finishing in-flight requests...`)
    mock.close().then(
      () => process.exit(0),
      (error: unknown) => {
        console.error(error)
        process.exit(1)
      },
    )
  }
  process.on('SIGINT', () => shutdown('SIGINT'))
  process.on('SIGTERM', () => shutdown('SIGTERM'))
}

async function fixtures(args: string[]): Promise<void> {
  const { values } = parseArgs({
    args,
    options: { seed: { type: 'string' }, scale: { type: 'string' }, today: { type: 'string' }, out: { type: 'string' } },
    strict: true,
  })
  if (!values.out) fail('fixtures needs --out DIR')
  const exportPath = ['..', 'fixtures', 'export.ts'].join('/')
  const mod = (await import(exportPath)) as { writeWorldFiles: (o: { seed: number; scale: string; today: string; out: string }) => unknown }
  const today = values.today ?? new Date().toISOString().slice(0, 10)
  const result = await mod.writeWorldFiles({ seed: integer(values.seed, 'seed', 42), scale: values.scale ?? 'default', today, out: values.out })
  if (result !== undefined) console.log(typeof result === 'string' ? result : JSON.stringify(result, null, 2))
}

async function conformance(args: string[]): Promise<void> {
  // Loaded on demand: `serve` never loads the suite's runner.
  const { main } = await import('../conformance/cli.ts')
  process.exitCode = await main(args)
}

/** Runs the CLI with `argv` (without node and the script). */
export async function main(argv: string[]): Promise<void> {
  const [command, ...rest] = argv
  switch (command) {
    case 'serve':
      return serve(rest)
    case 'fixtures':
      return fixtures(rest)
    case 'conformance':
      return conformance(rest)
    case 'certify-client': {
      const { main: certifyClient } = (await import(['..', 'conformance', 'certify-client', 'cli.ts'].join('/'))) as { main: (argv: string[]) => Promise<number> }
      process.exitCode = await certifyClient(rest)
      return
    }
    case undefined:
    case '-h':
    case '--help':
    case 'help':
      console.log(USAGE)
      return
    default:
      fail(`unknown command ${command}`)
  }
}

// `node mock/cli.ts ...` (npm start); bin/shoptwin.mjs calls main() itself.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  main(process.argv.slice(2)).catch((error: unknown) => {
    console.error(error)
    process.exit(1)
  })
}
