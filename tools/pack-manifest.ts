/**
 * The package.json `npm pack` (and `npm publish`) puts in the tarball: this repository's, without what
 * only its own development reads (`scripts`, `devDependencies`, and the `allowScripts` and `workspaces`
 * of its own installs), which a consumer neither runs nor installs. npm 11 lists a
 * dependency's `prepare` among the "install scripts not yet covered by allowScripts" even for a tarball,
 * where it never runs: a newcomer's first install warned about shoptwin. A git or folder install still
 * runs `prepare` (the build of dist/) from the repository's own manifest, which keeps it.
 *
 * `prepack` builds dist/, then strips: npm's packer reads the manifest again after prepack, so it runs
 * no `prepare` of its own. `postpack` restores the manifest. A pack that failed between the two left
 * the original beside it (.package.json.unpacked): the next strip or restore puts it back first.
 * Usage: node tools/pack-manifest.ts strip|restore
 */
import { copyFileSync, existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs'

const manifest = new URL('../package.json', import.meta.url)
const original = new URL('../.package.json.unpacked', import.meta.url)
const DEVELOPMENT_ONLY = ['scripts', 'devDependencies', 'allowScripts', 'workspaces']
const [command] = process.argv.slice(2)

if (command !== 'strip' && command !== 'restore') {
  console.error('usage: node tools/pack-manifest.ts strip|restore')
  process.exit(2)
}
if (existsSync(original)) renameSync(original, manifest)
if (command === 'strip') {
  const packed = JSON.parse(readFileSync(manifest, 'utf8')) as Record<string, unknown>
  for (const field of DEVELOPMENT_ONLY) delete packed[field]
  copyFileSync(manifest, original)
  writeFileSync(manifest, `${JSON.stringify(packed, null, 2)}\n`)
}
