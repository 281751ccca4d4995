#!/usr/bin/env node
// The compiled dist/ when it is there (an installed package always has it; a checkout after `npm run
// build`): it starts faster than the TypeScript sources (npm run bench:startup). Without it, in a
// checkout, the sources run with Node 24's type stripping (`npm start` and `npm run shoptwin` always do).
// node:fs through getBuiltinModule: an ESM import of it would also load its streams (some 10 ms).
const built = process.getBuiltinModule?.('node:fs').existsSync(new URL('../dist/mock/cli.js', import.meta.url)) ?? true
const { main } = await import(built ? '../dist/mock/cli.js' : '../mock/cli.ts')
await main(process.argv.slice(2))
