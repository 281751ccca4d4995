/**
 * A copy of this repository's working tree (tracked and new files, not ignored ones) in a directory of
 * the test's own. A test that builds or packs the package does it there: `npm pack` in the repository
 * itself rebuilds dist/ (`rm -rf dist && tsc`) and strips package.json while the other test files run,
 * and bin/shoptwin.mjs in those picks up a half-built dist/ (CI, stop 43: "Cannot find module
 * dist/mock/cli-flags.js"). test/global-setup.ts fails the run when a test changed the repository.
 */
import { execFile } from 'node:child_process'
import { cp, mkdir, stat, symlink } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'

export const repositoryRoot = fileURLToPath(new URL('../..', import.meta.url))

/** The files of the working tree, relative to its root: what a clone of it with these changes committed would hold. */
async function workingTreeFiles(): Promise<string[]> {
  const { stdout } = await promisify(execFile)('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], { cwd: repositoryRoot, maxBuffer: 64 * 1024 * 1024 })
  const files: string[] = []
  for (const file of stdout.split('\0').filter(Boolean)) {
    // A file deleted and not yet committed is still listed by --cached.
    if (await stat(join(repositoryRoot, file)).then((s) => s.isFile(), () => false)) files.push(file)
  }
  return files
}

/**
 * Copies the working tree to `dest`. With `nodeModules`, dest/node_modules is a link to the
 * repository's own (a build or a pack there needs the toolchain, not an install of its own).
 */
export async function copyWorkingTree(dest: string, options: { nodeModules?: boolean } = {}): Promise<void> {
  for (const file of await workingTreeFiles()) {
    await mkdir(dirname(join(dest, file)), { recursive: true })
    await cp(join(repositoryRoot, file), join(dest, file))
  }
  if (options.nodeModules) await symlink(join(repositoryRoot, 'node_modules'), join(dest, 'node_modules'), 'dir')
}
