#!/usr/bin/env node
// Plain JavaScript that any Node parses: an old Node gets one line before anything is loaded (the same
// line as the package's entry points print, openapi/node-version.ts; a test holds the two together).
const NODE_NEEDED = '22.12'
const [major, minor] = process.versions.node.split('.').map(Number)
const [needMajor, needMinor] = NODE_NEEDED.split('.').map(Number)
if (major < needMajor || (major === needMajor && minor < needMinor)) {
  process.stderr.write(`shoptwin needs Node ${NODE_NEEDED} or newer, this is Node ${process.versions.node}: run \`npm i -D node@22\` in your project (npm scripts and npx then use that Node) or install Node 22+ from https://nodejs.org\n`)
  process.exit(2)
}
// The compiled dist/ when it is there (an installed package always has it; a checkout after `npm run
// build`): it starts faster than the TypeScript sources (npm run bench:startup). Without it, in a
// checkout, the sources run with Node 24's type stripping (`npm start` and `npm run shoptwin` always do).
// node:fs through getBuiltinModule: an ESM import of it would also load its streams (some 10 ms).
const built = process.getBuiltinModule?.('node:fs').existsSync(new URL('../dist/mock/cli.js', import.meta.url)) ?? true
const { main } = await import(built ? '../dist/mock/cli.js' : '../mock/cli.ts')
await main(process.argv.slice(2))
