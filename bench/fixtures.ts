/**
 * Generation time and memory of createWorld per scale (npm run bench:fixtures [small,default,large]).
 * Targets (issue 3): default under 1 s; large under 15 s and 1.5 GB heap, on a 2-core machine.
 * Each scale runs in its own child process (with --expose-gc) so heap figures do not mix.
 */
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { createWorld } from '../fixtures/index.ts'
import type { Scale, World } from '../fixtures/index.ts'

const TODAY = '2026-11-20'
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

function counts(world: World) {
  const shops = Object.values(world.shopData)
  let factRows = 0
  for (const data of shops) for (const table of Object.values(data.facts)) factRows += table.rowCount
  return {
    creators: world.creators.length,
    affiliates: shops.reduce((n, d) => n + d.affiliates.length, 0),
    videos: shops.reduce((n, d) => n + d.videos.length + d.slideshows.length, 0),
    samples: shops.reduce((n, d) => n + d.sampleRequests.length, 0),
    factRows,
  }
}

function measure(scale: Scale): void {
  globalThis.gc?.()
  const before = process.memoryUsage()
  const started = performance.now()
  const world = createWorld({ seed: 42, scale, today: TODAY })
  const ms = performance.now() - started
  const afterBuild = process.memoryUsage()
  globalThis.gc?.()
  const retained = process.memoryUsage()
  const c = counts(world)
  console.log(
    `${scale.padEnd(8)} ${ms.toFixed(0).padStart(6)} ms | heap after build ${mb(afterBuild.heapUsed)}, retained ${mb(retained.heapUsed - before.heapUsed)} + typed arrays ${mb(retained.arrayBuffers)} | max RSS ${mb(process.resourceUsage().maxRSS * 1024)}` +
      ` | creators ${c.creators}, affiliates ${c.affiliates}, videos+slideshows ${c.videos}, sample requests ${c.samples}, fact rows ${c.factRows}`,
  )
}

const [arg, child] = process.argv.slice(2)
const scales = (arg?.split(',') ?? ['small', 'default', 'large']) as Scale[]
if (child === '--child') {
  measure(scales[0]!)
} else {
  console.log(`createWorld({ seed: 42, today: '${TODAY}' }) on Node ${process.version}`)
  for (const scale of scales) {
    const run = spawnSync(process.execPath, ['--expose-gc', fileURLToPath(import.meta.url), scale, '--child'], { stdio: 'inherit' })
    if (run.status !== 0) process.exitCode = 1
  }
}
