/**
 * Bundles the console page (mock/console/ui/console.ts, Preact + htm) into one minified script,
 * mock/console/assets/console.js, committed beside the hand-written console.css: `npm start` and the
 * tests serve it with no build step, and test/trace-console.test.ts fails when the bundle is older
 * than its source. `npm run build` (prepack) runs this, then copies the assets next to the compiled
 * server in dist/.
 *
 *   node mock/console/build.ts            rebuild the bundle
 *   node mock/console/build.ts --dist     rebuild, and copy the assets into dist/mock/console/assets
 */
import { build } from 'esbuild'
import { cpSync, existsSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'

const here = (path: string) => fileURLToPath(new URL(path, import.meta.url))

/** The bundle's text (esbuild is deterministic for the same input and version). */
export async function bundleConsole(): Promise<string> {
  const result = await build({
    entryPoints: [here('./ui/console.ts')],
    bundle: true,
    format: 'esm',
    minify: true,
    target: ['es2022'],
    platform: 'browser',
    legalComments: 'none',
    write: false,
  })
  return result.outputFiles[0]!.text
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  mkdirSync(here('./assets'), { recursive: true })
  // `npm pack` (prepare) runs this while other test files may read the bundle: an unchanged bundle is
  // left alone, a changed one replaces the old by a rename, so no reader sees a half-written file.
  const bundle = await bundleConsole()
  const file = here('./assets/console.js')
  if (!existsSync(file) || readFileSync(file, 'utf8') !== bundle) {
    writeFileSync(`${file}.${process.pid}.tmp`, bundle)
    renameSync(`${file}.${process.pid}.tmp`, file)
  }
  if (process.argv.includes('--dist')) {
    const target = fileURLToPath(new URL('../../dist/mock/console/assets', import.meta.url))
    mkdirSync(target, { recursive: true })
    cpSync(here('./assets'), target, { recursive: true })
  }
}
