#!/usr/bin/env node
// The CLI is TypeScript run by Node 24's type stripping (the project's own Node, see package.json).
const { main } = await import('../mock/cli.ts')
await main(process.argv.slice(2))
