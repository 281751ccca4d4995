import { readFileSync } from 'node:fs'

/**
 * shoptwin's own version (its package.json): `shoptwin --version`, and the run metadata of every
 * report. mock/lib/version.ts in the repository, dist/mock/lib/version.js in the package.
 */
export function shoptwinVersion(): string {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      const pkg = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { name?: string; version: string }
      if (pkg.name === 'shoptwin') return pkg.version
    } catch {}
  }
  return 'unknown'
}
