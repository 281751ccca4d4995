/**
 * Checks the contract built from openapi/src/ without writing anything: valid OpenAPI 3.1 by an
 * independent validator, every schema compiles with ajv 2020-12, operationIds unique and each
 * operation's x-permission its own `METHOD path`. `npx tsx openapi/check.ts` prints the problems.
 */
import { fileURLToPath } from 'node:url'
import { Validator } from '@seriousme/openapi-schema-validator'
import { buildDocument } from './src/document.ts'
import { ContractValidators, indexConnectorOperations, indexOperations, type JsonSchema, type OpenApiDocument } from './index.ts'

export async function checkDocument(doc: OpenApiDocument): Promise<string[]> {
  const problems: string[] = []
  const validator = new Validator()
  const result = await validator.validate(structuredClone(doc) as never)
  if (!result.valid) problems.push(...(result.errors as unknown as Array<Record<string, unknown>>).map((e) => `openapi: ${JSON.stringify(e)}`))

  const ops = indexOperations(doc)
  const ids = new Set<string>()
  const validators = new ContractValidators(doc)
  for (const op of ops) {
    if (ids.has(op.operationId)) problems.push(`duplicate operationId ${op.operationId}`)
    ids.add(op.operationId)
    if (op.permission !== `${op.method} ${op.path}`) problems.push(`${op.operationId}: x-permission ${op.permission} is not ${op.method} ${op.path}`)
    try {
      validators.requestBody(op)
      for (const status of op.statuses) validators.response(op, status)
      for (const p of [...op.query, ...op.pathParams]) validators.compile(`${op.operationId}:param:${p.name}`, p.schema)
    } catch (error) {
      problems.push(`${op.operationId}: schema does not compile: ${(error as Error).message}`)
    }
  }
  // The connector's operations (forms, HTML, JSON-RPC): every schema of theirs compiles too.
  for (const op of indexConnectorOperations(doc)) {
    if (ids.has(op.operationId)) problems.push(`duplicate operationId ${op.operationId}`)
    ids.add(op.operationId)
    if (op.operation['x-inferred'] !== true) problems.push(`${op.operationId}: a connector operation the spec does not show is not marked x-inferred`)
    const bodies = Object.values((op.operation.requestBody?.content ?? {}) as Record<string, { schema: JsonSchema }>)
    const answers = Object.values(op.operation.responses as Record<string, { content?: Record<string, { schema: JsonSchema }> }>).flatMap((r) => Object.values(r.content ?? {}))
    try {
      for (const [i, media] of [...bodies, ...answers].entries()) validators.compile(`${op.operationId}:check:${i}`, media.schema)
    } catch (error) {
      problems.push(`${op.operationId}: schema does not compile: ${(error as Error).message}`)
    }
  }
  return problems
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const doc = buildDocument() as unknown as OpenApiDocument
  const problems = await checkDocument(doc)
  const ops = indexOperations(doc)
  console.log(`${ops.length} API operations, ${indexConnectorOperations(doc).length} connector operations, ${Object.keys(doc.components.schemas).length} schemas`)
  for (const p of problems) console.log(p)
  if (problems.length) process.exit(1)
  console.log('contract OK')
}
