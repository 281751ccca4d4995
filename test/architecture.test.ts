/**
 * The architecture rules of .dependency-cruiser.cjs hold over the whole tree: areas do not import
 * other areas (what two areas share lives in mock/lib/), mock/lib/ does not reach into an area,
 * nothing outside openapi/ imports the contract's source (openapi/src), the spec server (test/spec-server)
 * imports nothing of mock/, fixtures/, openapi/ or conformance/, only mock/twin/redis/ imports the Redis
 * client, and nothing below proxy/ imports it. Each rule is also shown to fire, on a small tree written
 * for the purpose, so a rule that matches nothing cannot pass silently.
 */
import { execFile } from 'node:child_process'
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

const root = resolve(import.meta.dirname, '..')
const config = join(root, '.dependency-cruiser.cjs')
const cli = join(root, 'node_modules/dependency-cruiser/bin/dependency-cruise.mjs')

interface Violation {
  rule: { name: string }
  from: string
  to: string
}

/** The violations dependency-cruiser finds below `cwd` in `dirs`, with the project's rules. */
async function violations(cwd: string, dirs: string[]): Promise<Violation[]> {
  const args = [cli, ...dirs, '--config', config, '--output-type', 'json']
  // Exit code 1+ is the number of errors; the JSON report is written either way.
  const { stdout } = await promisify(execFile)(process.execPath, args, { cwd, maxBuffer: 64 * 1024 * 1024 }).catch((error: { stdout?: string }) => ({ stdout: error.stdout ?? '' }))
  return (JSON.parse(stdout) as { summary: { violations: Violation[] } }).summary.violations
}

const scratch = mkdtempSync(join(tmpdir(), 'shoptwin-architecture-'))
afterAll(() => rmSync(scratch, { recursive: true, force: true }))

function writeTree(files: Record<string, string>): void {
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(scratch, path)), { recursive: true })
    writeFileSync(join(scratch, path), text)
  }
}

describe('architecture (.dependency-cruiser.cjs)', () => {
  it('the tree breaks none of the rules: areas import mock/lib and the pipeline, never another area; only openapi/ reads openapi/src; only mock/twin/redis/ imports the Redis client', async () => {
    const found = await violations(root, ['mock', 'openapi', 'fixtures', 'conformance', 'proxy', 'test', 'bench'])
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`)).toEqual([])
  }, 60_000)

  it('each rule fires on a tree that breaks it (and files of one area may import each other)', async () => {
    writeTree({
      'mock/areas/index.ts': "import { a } from './ads.ts'\nimport { o } from './outreach.ts'\nexport const all = [a, o]\n",
      'mock/areas/ads.ts': "import { s } from './social.ts'\nexport const a = s\n",
      'mock/areas/social.ts': "import { shared } from '../lib/shared.ts'\nexport const s = shared\n",
      'mock/areas/outreach.ts': "import { c } from './outreach/common.ts'\nexport const o = c\n",
      'mock/areas/outreach/common.ts': "import { s } from '../social.ts'\nexport const c = s\n",
      'mock/lib/shared.ts': "import { KEYS } from '../../openapi/src/keys.ts'\nimport { a } from '../areas/ads.ts'\nexport const shared = [KEYS, a]\n",
      'openapi/src/keys.ts': 'export const KEYS = [1]\n',
      'openapi/index.ts': "export { KEYS } from './src/keys.ts'\n",
      'mock/twin/redis/index.ts': "import { Redis } from 'ioredis'\nexport const R = Redis\n",
      'mock/stores/shared.ts': "import { Redis } from 'ioredis'\nexport const R = Redis\n",
      'mock/state.ts': "import { R } from './twin/redis/index.ts'\nexport const S = R\n",
      'mock/cli.ts': "export const load = () => import('./twin/redis/index.ts')\n",
      'test/spec-server/index.ts': "import { shared } from '../../mock/lib/shared.ts'\nimport { KEYS } from '../../openapi/index.ts'\nexport const own = [shared, KEYS]\n",
      'proxy/index.ts': "import { all } from '../mock/areas/index.ts'\nexport const proxy = all\n",
      'conformance/report.ts': "import { proxy } from '../proxy/index.ts'\nexport const report = proxy\n",
    })
    const found = await violations(scratch, ['mock', 'openapi', 'proxy', 'conformance', 'test'])
    expect(found.map((v) => `${v.rule.name}: ${v.from} → ${v.to}`).sort()).toEqual([
      'areas-do-not-import-areas: mock/areas/ads.ts → mock/areas/social.ts',
      'areas-do-not-import-areas: mock/areas/outreach/common.ts → mock/areas/social.ts',
      'contract-source-stays-in-openapi: mock/lib/shared.ts → openapi/src/keys.ts',
      'lib-does-not-import-areas: mock/lib/shared.ts → mock/areas/ads.ts',
      'nothing-below-imports-the-proxy: conformance/report.ts → proxy/index.ts',
      'redis-client-stays-in-its-folder: mock/stores/shared.ts → ioredis',
      'shared-store-loaded-on-demand: mock/state.ts → mock/twin/redis/index.ts',
      'spec-server-stands-alone: test/spec-server/index.ts → mock/lib/shared.ts',
      'spec-server-stands-alone: test/spec-server/index.ts → openapi/index.ts',
    ])
  }, 60_000)
})
