/**
 * Writes the bundled contract (openapi/openapi.yaml) and the TypeScript types generated from it
 * (openapi/types.ts, by openapi-typescript). Run with `npm run build:openapi`; both outputs are
 * committed and a test fails when they are stale.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { parse } from 'yaml'
import { renderDocument, renderDocumentJson } from './render.ts'

const here = (p: string) => fileURLToPath(new URL(p, import.meta.url))

/** True for a schema that only says which properties must be present (no type of its own). */
function isPresenceOnly(schema: unknown): boolean {
  if (!schema || typeof schema !== 'object' || Array.isArray(schema)) return false
  return Object.entries(schema).every(([key, value]) => {
    if (key === 'required' || key === 'description') return true
    if (key === 'properties') return Object.values(value as object).every(isPresenceOnly)
    return false
  })
}

/**
 * The document as the type generator should read it: an `anyOf`/`oneOf` whose branches only require
 * properties ("date_range or dateRange", "creator_id or handle") says nothing about types, but
 * openapi-typescript turns it into `| unknown`, which swallows the whole schema
 * (openapi-ts/openapi-typescript#1441). Such branches are left out of the generator's input only; the
 * published document keeps them, and the mock and the conformance suite validate with them.
 */
export function typeView<T>(node: T): T {
  if (Array.isArray(node)) return node.map(typeView) as T
  if (!node || typeof node !== 'object') return node
  const out: Record<string, unknown> = {}
  for (const [key, value] of Object.entries(node)) {
    if ((key === 'anyOf' || key === 'oneOf') && Array.isArray(value) && value.every(isPresenceOnly)) continue
    out[key] = typeView(value)
  }
  return out as T
}

export function generateTypes(yamlPath: string): string {
  // openapi-typescript needs the TypeScript 5 compiler API, so it lives in its own workspace.
  const bin = here('../tools/openapi-codegen/node_modules/.bin/openapi-typescript')
  const dir = mkdtempSync(join(tmpdir(), 'shoptwin-types-'))
  try {
    const input = join(dir, 'openapi.json')
    const document = parse(readFileSync(yamlPath, 'utf8'))
    writeFileSync(input, JSON.stringify(typeView(document)))
    return execFileSync(bin, [input], { encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }) + pagedOperations(document)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * The operations with `x-paging`, as a union type after openapi-typescript's output: it keeps no
 * extension, and the mock types a handler's page window from it (mock/context.ts, HandlerContext).
 */
function pagedOperations(document: { paths?: Record<string, Record<string, { operationId?: string; 'x-paging'?: unknown }>> }): string {
  const ids = Object.values(document.paths ?? {})
    .flatMap((item) => Object.values(item))
    .filter((op) => op && typeof op === 'object' && op['x-paging'] !== undefined && op.operationId)
    .map((op) => op.operationId!)
    .sort()
  return `/** Operations with \`x-paging\` (written by openapi/build.ts: openapi-typescript keeps no extension). */\nexport type PagedOperationId = ${ids.map((id) => JSON.stringify(id)).join(' | ') || 'never'};\n`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const yamlPath = here('./openapi.yaml')
  writeFileSync(yamlPath, renderDocument())
  writeFileSync(here('./openapi.json'), renderDocumentJson())
  writeFileSync(here('./types.ts'), generateTypes(yamlPath))
  console.log('wrote openapi/openapi.yaml, openapi/openapi.json and openapi/types.ts')
}
