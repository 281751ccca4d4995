/**
 * The architecture rules of shoptwin, checked by test/architecture.test.ts (so by `npm test`).
 * Run by hand: npx depcruise mock openapi fixtures conformance test bench
 *
 * No `no-circular` rule: the swc parser (TypeScript 7 has no JS API dependency-cruiser can use) does
 * not tell `import type` from a value import, so the pipeline's type-only cycles through state.ts and
 * context.ts would all count.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'areas-do-not-import-areas',
      comment:
        'An area (mock/areas/<area>.ts and the files of mock/areas/<area>/) imports the shared layer (mock/lib/), the pipeline and the state, never another area: what two areas need lives in mock/lib/. Only the registry (mock/areas/index.ts) imports every area.',
      severity: 'error',
      from: { path: '^mock/areas/([^/.]+)', pathNot: '^mock/areas/index\\.ts$' },
      to: { path: '^mock/areas/', pathNot: '^mock/areas/$1(\\.ts$|/)' },
    },
    {
      name: 'lib-does-not-import-areas',
      comment: 'The shared layer is below the areas: it must not reach back into one.',
      severity: 'error',
      from: { path: '^mock/lib/' },
      to: { path: '^mock/areas/' },
    },
    {
      name: 'contract-source-stays-in-openapi',
      comment:
        'openapi/src is the source the contract document is built from; everything outside openapi/ reads the contract through openapi/index.ts (or the generated types), so the source can be reorganised freely.',
      severity: 'error',
      from: { pathNot: '^openapi/' },
      to: { path: '^openapi/src/' },
    },
    {
      name: 'redis-client-stays-in-its-folder',
      comment:
        'The Redis client is imported in one folder (mock/twin/redis/, the shared store), which is loaded only when `serve --store` asks for it: the in-memory twin, MSW and the browser build never load it.',
      severity: 'error',
      from: { pathNot: '^mock/twin/redis/' },
      to: { path: '^(ioredis|redis|@redis/.+)$|node_modules/(ioredis|redis|@redis)/' },
    },
    {
      name: 'shared-store-loaded-on-demand',
      comment: 'Nothing but the CLI (a dynamic import for --store) and tests reach the shared store: the package entry points stay free of it.',
      severity: 'error',
      from: { path: '^mock/', pathNot: '^mock/(twin/redis/|cli\\.ts$)' },
      to: { path: '^mock/twin/redis/' },
    },
    {
      name: 'spec-server-stands-alone',
      comment:
        'test/spec-server is a second implementation written from the service document alone, so the conformance suite can be judged against a server it did not grow up with: it shares no code with the mock, the fixtures, the contract or the suite.',
      severity: 'error',
      from: { path: '^test/spec-server/' },
      to: { path: '^(mock|fixtures|openapi|conformance)/' },
    },
    {
      name: 'nothing-below-imports-the-proxy',
      comment:
        'proxy/ (shoptwin proxy) sits on top: it reuses the contract, the mock\'s messages and pipeline helpers, and the conformance rules, reporters and certify-client schedule. Nothing of openapi/, fixtures/, mock/ or conformance/ imports it back (the CLI loads it by a computed path, on demand).',
      severity: 'error',
      from: { path: '^(openapi|fixtures|mock|conformance)/' },
      to: { path: '^proxy/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '(^|/)node_modules/|^dist/' },
    // TypeScript 7 (the project's compiler) has no JS API dependency-cruiser can use: swc parses the sources.
    parser: 'swc',
    // Type-only imports count too: an area may not borrow another area's types either.
    tsPreCompilationDeps: true,
    enhancedResolveOptions: { exportsFields: ['exports'], conditionNames: ['import', 'require', 'node', 'default'], extensions: ['.ts', '.js', '.mjs', '.cjs', '.json'] },
  },
}
