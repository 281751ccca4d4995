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
// serve and certify-client run the twin's server, whose control API (/__admin/) answers through msw,
// shoptwin's peer dependency. npm and pnpm install a missing peer; Yarn does not (`yarn add shoptwin`
// alone, `yarn dlx`), nor npm with legacy-peer-deps: then the server started and its control API
// answered 500 (Yarn: "shoptwin tried to access msw (a peer dependency) but it isn't provided").
// One line instead, before the server starts (a resolve, not a load: msw loads on first use).
const [command, ...flags] = process.argv.slice(2)
const ownFlags = flags.includes('--') ? flags.slice(0, flags.indexOf('--')) : flags
if ((command === 'serve' || command === 'certify-client') && !ownFlags.some((flag) => flag === '--help' || flag === '-h')) {
  try {
    process.getBuiltinModule('node:module').createRequire(import.meta.url).resolve('msw')
  } catch {
    process.stderr.write(`shoptwin ${command} needs msw, its peer dependency, and it is not installed beside shoptwin: add it (npm i -D msw, pnpm add -D msw, yarn add -D msw), or with yarn dlx name both: yarn dlx -p shoptwin -p msw shoptwin ${command}\n`)
    process.exit(2)
  }
}
// The compiled dist/ when it is there (an installed package always has it; a checkout after `npm run
// build`): it starts faster than the TypeScript sources (npm run bench:startup). Without it, in a
// checkout, the sources run with Node 24's type stripping (`npm start` and `npm run shoptwin` always do).
// node:fs through getBuiltinModule: an ESM import of it would also load its streams (some 10 ms).
const built = process.getBuiltinModule?.('node:fs').existsSync(new URL('../dist/mock/cli.js', import.meta.url)) ?? true
const { main } = await import(built ? '../dist/mock/cli.js' : '../mock/cli.ts')
await main(process.argv.slice(2))
