/**
 * Checks the contract built from openapi/src/ without writing anything: valid OpenAPI 3.1 by an
 * independent validator, every schema compiles with ajv 2020-12, operationIds unique and each
 * operation's x-permission its own `METHOD path`. `npx tsx openapi/check.ts` prints the problems.
 */
import { fileURLToPath } from 'node:url'
import { Validator } from '@seriousme/openapi-schema-validator'
import { buildDocument } from './src/document.ts'
import { ContractValidators, indexOperations, type OpenApiDocument } from './index.ts'

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
  return problems
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const doc = buildDocument() as unknown as OpenApiDocument
  const problems = await checkDocument(doc)
  const ops = indexOperations(doc)
  console.log(`${ops.length} operations, ${Object.keys(doc.components.schemas).length} schemas`)
  for (const p of problems) console.log(p)
  if (problems.length) process.exit(1)
  console.log('contract OK')
}
