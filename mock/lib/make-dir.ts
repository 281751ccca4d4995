/**
 * `mkdir -p` that ends. Node's `mkdir(path, { recursive: true })` never returns for a path whose parent
 * exists but cannot hold it: a dangling symlink (a volume not mounted), anything under /proc. mkdir
 * answers ENOENT, Node makes the parent (EEXIST) and tries the child again, forever, at full CPU (the
 * same walk hung bun: oven-sh/bun#36162). Here each component is made once, from the root down, and
 * the first refusal is thrown: `shoptwin fixtures --out /proc/x` hung, it now says ENOENT.
 */
import { mkdirSync, statSync } from 'node:fs'
import { dirname, resolve } from 'node:path'

/** Makes `path` and its missing parents; throws the first error that is not EEXIST, or ENOTDIR when `path` is not a directory. */
export function makeDir(path: string): void {
  const chain: string[] = []
  for (let dir = resolve(path); dirname(dir) !== dir; dir = dirname(dir)) chain.unshift(dir)
  for (const dir of chain) {
    try {
      mkdirSync(dir)
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
  }
  // EEXIST said something is there: a directory, or a file, or a symlink to nothing (stat throws ENOENT).
  if (!statSync(path).isDirectory()) throw Object.assign(new Error(`ENOTDIR: not a directory, mkdir '${path}'`), { code: 'ENOTDIR' })
}
