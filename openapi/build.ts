/**
 * Writes the bundled contract (openapi/openapi.yaml) and the TypeScript types generated from it
 * (openapi/types.ts, by openapi-typescript). Run with `npm run build:openapi`; both outputs are
 * committed and a test fails when they are stale.
 */
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { renderDocument, renderDocumentJson } from './render.ts'

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

export function generateTypes(yamlPath: string): string {
  // openapi-typescript needs the TypeScript 5 compiler API, so it lives in its own workspace.
  const bin = here('../tools/openapi-codegen/node_modules/.bin/openapi-typescript')
  const out = execFileSync(bin, [yamlPath], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] })
  return out
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const yamlPath = here('./openapi.yaml')
  writeFileSync(yamlPath, renderDocument())
  writeFileSync(here('./openapi.json'), renderDocumentJson())
  writeFileSync(here('./types.ts'), generateTypes(yamlPath))
  console.log('wrote openapi/openapi.yaml, openapi/openapi.json and openapi/types.ts')
}
