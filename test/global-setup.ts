/**
 * Prints the runtime once, so CI logs show that `npm test` really runs on the project's Node 24; and
 * fails the run when a test changed the repository it runs in. A test that packs, builds or writes
 * does it in a directory of its own (test/support/working-tree.ts): the other test files run the
 * repository's CLI and read its files at the same time (CI, stop 43: a pack in the repository rebuilt
 * dist/ under a CLI test, which loaded half of it).
 */
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { repositoryRoot } from './support/working-tree.ts'

/**
 * What the repository's own scripts write and a test must never: the build (dist/), the manifest a
 * pack strips and restores, the lock file, and the generated files the build scripts commit
 * (openapi/openapi.yaml and types.ts, the console's bundle). Sources are not watched: a person may edit
 * them while the suite runs.
 */
const WATCHED = ['dist', '.package.json.unpacked', 'package.json', 'package-lock.json', 'openapi/openapi.yaml', 'openapi/types.ts', 'mock/console/assets/console.js']

/** Each watched path's size and modification time, or that it is absent (dist/: its own, what a build changes). */
async function snapshot(): Promise<Map<string, string>> {
  const seen = new Map<string, string>()
  for (const path of WATCHED) {
    const s = await stat(join(repositoryRoot, path)).catch(() => undefined)
    seen.set(path, s ? `${s.size} ${s.mtimeMs}` : 'absent')
  }
  return seen
}

export default async function setup() {
  console.log(`shoptwin tests on Node ${process.version}`)
  if (Number(process.versions.node.split('.')[0]) < 24) {
    throw new Error(`npm test must run on Node 24 (the project's devDependency "node"); got ${process.version}`)
  }
  const before = await snapshot()
  return async function teardown() {
    const after = await snapshot()
    const changed = WATCHED.filter((path) => before.get(path) !== after.get(path))
    if (changed.length > 0) {
      throw new Error(`a test changed the repository it runs in (write in a temp dir, test/support/working-tree.ts): ${changed.join(', ')}`)
    }
  }
}
