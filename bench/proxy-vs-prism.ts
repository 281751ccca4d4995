/**
 * `npm run bench:proxy-vs-prism`: `shoptwin proxy` and `prism proxy` on the same traffic, side by side.
 * The chain is client → prism proxy → shoptwin proxy → the suite's mutation proxy → the mock, so both
 * proxies see every exchange, the shoptwin proxy the upstream's bytes as they are (Prism re-serialises
 * the bodies it forwards) and Prism the same answers, unchanged by the shoptwin proxy; Prism reports
 * what it finds in the `sl-violations` header it adds, which the suite's client records. The traffic: the conformance suite against the
 * healthy mock, then each killing mutation (conformance/testing/mutations.ts) with its rule's requests.
 * Prints a markdown table (bench/README.md keeps the last one). Only loopback addresses are used.
 */
import { spawn } from 'node:child_process'
import { createServer } from 'node:net'
import { fileURLToPath } from 'node:url'
import { catalogue } from '../conformance/catalogue.ts'
import { demoOptions, runRules, startMock, startProxy as startMutationProxy } from '../conformance/testing/harness.ts'
import { killingMutations } from '../conformance/testing/mutations.ts'
import { startProxy } from '../proxy/index.ts'
import { NOT_PASSIVE } from '../proxy/judges/index.ts'

const root = fileURLToPath(new URL('..', import.meta.url))

async function freePort(): Promise<number> {
  const server = createServer()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as { port: number }
  await new Promise((resolve) => server.close(resolve))
  return port
}

async function startPrismProxy(upstream: string) {
  const port = await freePort()
  const child = spawn(process.execPath, [`${root}node_modules/@stoplight/prism-cli/dist/index.js`, 'proxy', `${root}openapi/openapi.yaml`, upstream, '-p', String(port), '-h', '127.0.0.1'], { stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  await new Promise<void>((resolve, reject) => {
    const listen = (d: Buffer) => {
      output += d
      if (output.includes('Prism is listening')) resolve()
    }
    child.stdout!.on('data', listen)
    child.stderr!.on('data', listen)
    child.on('exit', (code) => reject(new Error(`prism exited with ${code}: ${output.slice(-1000)}`)))
  })
  child.stdout!.removeAllListeners('data')
  child.stderr!.removeAllListeners('data')
  child.stdout!.resume()
  child.stderr!.resume()
  return { url: `http://127.0.0.1:${port}`, child }
}

/** Runs rules through the chain; what each proxy found (shoptwin: failed rules; Prism: distinct violations). */
async function through(prismUrl: string, port: number, upstream: string, rules: typeof catalogue, shopId: string) {
  const prismFound = new Map<string, number>()
  const proxy = await startProxy({ upstream, port })
  const outcomes = await runRules(rules, demoOptions(prismUrl, shopId))
  const report = await proxy.stop()
  for (const x of outcomes.flatMap((o) => o.exchanges)) {
    let violations: Array<{ location: string[]; message: string }> = []
    try {
      violations = JSON.parse(x.responseHeaders['sl-violations'] ?? '[]')
    } catch {
      violations = []
    }
    for (const v of violations) {
      const key = `${x.method} ${new URL(x.url).pathname}: ${v.location.join('.')} ${v.message}`
      prismFound.set(key, (prismFound.get(key) ?? 0) + 1)
    }
  }
  return { ours: report.server.outcomes.filter((o) => o.status === 'fail').map((o) => o.id), prism: prismFound, exchanges: report.exchanges }
}

const mock = await startMock({ rateLimit: false })
const mutation = await startMutationProxy(mock.url)
const port = await freePort()
const prism = await startPrismProxy(`http://127.0.0.1:${port}`)
const rows: string[] = []
try {
  const fast = catalogue.filter((r) => !killingMutations[r.id]?.rateLimit)
  const healthy = await through(prism.url, port, mutation.url, fast, mock.shopId)
  const baseline = new Set(healthy.prism.keys())
  const responseSide = (found: Map<string, number>) => [...found.keys()].filter((k) => / response\./.test(k) || /: response/.test(k))
  console.log(`healthy mock, the suite's traffic (${healthy.exchanges} exchanges): shoptwin proxy fails ${healthy.ours.join(', ') || 'nothing'}; prism proxy reports ${healthy.prism.size} distinct violations (${responseSide(healthy.prism).length} on responses)`)
  for (const key of [...healthy.prism.keys()].slice(0, 30)) console.log(`  prism: ${key}`)
  let oursCaught = 0
  let prismCaught = 0
  for (const rule of fast) {
    const killer = killingMutations[rule.id]!
    mutation.setMutation(killer.mutation)
    // The schema verdict sends nothing itself: its mutant meets the sweep of every read.
    const traffic = rule.id === 'contract.responses-valid' ? fast.filter((r) => r.id === 'contract.reads-answer') : [rule]
    const run = await through(prism.url, port, mutation.url, traffic, mock.shopId)
    mutation.setMutation(undefined)
    const prismNew = responseSide(run.prism).filter((k) => !baseline.has(k))
    // What the healthy mock already shows (its rate limit is off here) is no catch.
    run.ours = run.ours.filter((id) => !healthy.ours.includes(id))
    if (run.ours.length) oursCaught++
    if (prismNew.length) prismCaught++
    const why = NOT_PASSIVE[rule.id] ? ' (needs requests of its own)' : ''
    rows.push(`| \`${rule.id}\` | ${killer.breaks} | ${run.ours.length ? `✓ ${run.ours.map((r) => `\`${r}\``).join(', ')}` : `—${why}`} | ${prismNew.length ? `✓ ${prismNew[0]!.replace(/\|/g, '\\|').slice(0, 110)}${prismNew.length > 1 ? ` (+${prismNew.length - 1})` : ''}` : '—'} |`)
  }
  console.log(`\n| Mutant's rule | What the server does wrong | shoptwin proxy | prism proxy |\n|---|---|---|---|\n${rows.join('\n')}`)
  console.log(`\ncaught: shoptwin proxy ${oursCaught}/${fast.length}, prism proxy ${prismCaught}/${fast.length}`)
} finally {
  prism.child.kill()
  await mutation.close()
  await mock.close()
}
