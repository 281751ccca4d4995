/**
 * Stops an old Node at the door: every entry point of the package imports this first, so on a Node
 * older than package.json's `engines` the process ends with one line (the version found, the one
 * needed, how to get it) instead of a crash deep inside msw or vitest. bin/shoptwin.mjs prints the
 * same line before it loads anything. In a browser (no `process`) it does nothing.
 */
/** package.json `engines.node` (>=22.12): msw 3 needs Node 22; 22.12 loads ESM from CommonJS unflagged. */
export const NODE_NEEDED = '22.12'

/** The one line for an unsupported Node, or undefined when `version` (`20.20.2`) is new enough. */
export function oldNodeMessage(version: string): string | undefined {
  const [major = 0, minor = 0] = version.split('.').map(Number)
  const [needMajor = 0, needMinor = 0] = NODE_NEEDED.split('.').map(Number)
  if (major > needMajor || (major === needMajor && minor >= needMinor)) return undefined
  return `shoptwin needs Node ${NODE_NEEDED} or newer, this is Node ${version}: run \`npm i -D node@22\` in your project (npm scripts and npx then use that Node) or install Node 22+ from https://nodejs.org`
}

const proc = (globalThis as { process?: { versions?: { node?: string }; stderr?: { write(text: string): unknown }; exit?(code: number): never } }).process
const found = proc?.versions?.node
const message = found ? oldNodeMessage(found) : undefined
if (message && proc?.exit) {
  proc.stderr?.write(`${message}\n`)
  proc.exit(1)
}
