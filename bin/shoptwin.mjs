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
// In the repository the CLI is TypeScript run by Node 24's type stripping (the project's own Node);
// installed as a package (Node strips no types under node_modules) it is the compiled dist/.
const installed = import.meta.url.includes('/node_modules/')
const { main } = await import(installed ? '../dist/mock/cli.js' : '../mock/cli.ts')
await main(process.argv.slice(2))
