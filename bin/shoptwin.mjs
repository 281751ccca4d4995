#!/usr/bin/env node
// In the repository the CLI is TypeScript run by Node 24's type stripping (the project's own Node);
// installed as a package (Node strips no types under node_modules) it is the compiled dist/.
const installed = import.meta.url.includes('/node_modules/')
const { main } = await import(installed ? '../dist/mock/cli.js' : '../mock/cli.ts')
await main(process.argv.slice(2))
