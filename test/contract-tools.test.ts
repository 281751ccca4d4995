/**
 * The contract as independent tools read it (issue 15, item 6): Spectral (`spectral:oas`) and
 * Redocly (`recommended`) find no error; bodies with required fields are required; 5xx is declared;
 * shared enums are referenced, not copied; open shapes are open for typed clients; and the mock
 * agrees with each of these where it answers.
 */
import { execFile } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { fileURLToPath } from 'node:url'
import { promisify } from 'node:util'
import { describe, expect, it } from 'vitest'
import { createMockState } from '../mock/index.ts'
import { isConnectorOperation, responseKeyOf } from '../openapi/index.ts'
import { createInProcessClient } from './support/in-process.ts'
import { exampleFromSchema } from '../mock/testing.ts'

const run = promisify(execFile)
const root = fileURLToPath(new URL('../', import.meta.url))
const bin = (name: string) => `${root}node_modules/.bin/${name}`
const state = createMockState({ seed: 5, now: '2026-02-15T09:30:00.000Z', rateLimit: false })
const { contract } = state
const doc = contract.doc as unknown as { paths: Record<string, Record<string, any>>; components: { schemas: Record<string, any> } }

/** A CLI's exit code and output; lint CLIs exit non-zero on findings, which is not a failure here. */
async function cli(command: string, args: string[]): Promise<{ code: number; out: string }> {
  try {
    const { stdout, stderr } = await run(command, args, { cwd: root, maxBuffer: 32 * 1024 * 1024, env: { ...process.env, REDOCLY_TELEMETRY: 'off', REDOCLY_SUPPRESS_UPDATE_NOTICE: 'true' } })
    return { code: 0, out: stdout + stderr }
  } catch (error) {
    const e = error as { code?: number; stdout?: string; stderr?: string }
    return { code: typeof e.code === 'number' ? e.code : 1, out: `${e.stdout ?? ''}${e.stderr ?? ''}` }
  }
}

describe('contract: independent linters (issue 15: the contract as independent tools read it)', () => {
  it('Spectral spectral:oas (.spectral.yaml) finds no error in openapi/openapi.yaml', async () => {
    const { out } = await cli(bin('spectral'), ['lint', 'openapi/openapi.yaml', '--ruleset', '.spectral.yaml', '--format', 'json', '--quiet'])
    const findings = JSON.parse(out.slice(out.indexOf('['), out.lastIndexOf(']') + 1)) as Array<{ code: string; severity: number; message: string; path: string[] }>
    const errors = findings.filter((f) => f.severity === 0).map((f) => `${f.code} at ${f.path.join('.')}: ${f.message}`)
    expect(errors).toEqual([])
  }, 120_000)

  it('Redocly recommended (redocly.yaml) finds no error in openapi/openapi.yaml', async () => {
    const { out } = await cli(bin('redocly'), ['lint', 'openapi/openapi.yaml', '--format', 'json'])
    const report = JSON.parse(out.slice(out.indexOf('{'), out.lastIndexOf('}') + 1)) as { problems: Array<{ ruleId: string; severity: string; message: string }> }
    const errors = report.problems.filter((p) => p.severity === 'error').map((p) => `${p.ruleId}: ${p.message}`)
    expect(errors).toEqual([])
  }, 120_000)
})

/** Whether a schema names required fields, following component refs and allOf. */
function hasRequired(schema: any): boolean {
  if (typeof schema?.$ref === 'string') return hasRequired(doc.components.schemas[schema.$ref.split('/').pop()])
  if (Array.isArray(schema?.required) && schema.required.length) return true
  if (Array.isArray(schema?.allOf) && schema.allOf.some(hasRequired)) return true
  // "date_range or dateRange": every branch requires a field (spec: Errors: `Missing date_range (from/to)`).
  const branches = schema?.anyOf ?? schema?.oneOf
  return Array.isArray(branches) && branches.length > 0 && branches.every(hasRequired)
}

describe('contract: what typed clients and schema-driven tools are told (issue 15)', () => {
  // The API's operations (the connector's, on {mcp_url}, take forms and answer HTML or JSON-RPC).
  const operations = Object.values(doc.paths).flatMap((item) => Object.values(item)).filter((o) => typeof o === 'object' && !Array.isArray(o) && o.operationId && !isConnectorOperation(o))

  it('a request body is required exactly where its schema has required fields (37 of 73 bodies)', () => {
    const bodies = operations.filter((o) => o.requestBody)
    const mismatched = bodies.filter((o) => Boolean(o.requestBody.required) !== hasRequired(o.requestBody.content['application/json'].schema)).map((o) => o.operationId)
    expect(mismatched).toEqual([])
    expect(bodies.filter((o) => o.requestBody.required).length).toBeGreaterThan(30)
  })

  it('every operation declares 5XX with the {error} body, and the range documents 500 and 503', () => {
    for (const op of contract.operations) {
      expect(op.operation.responses['5XX'], op.operationId).toEqual({ $ref: '#/components/responses/ServerError' })
      expect(responseKeyOf(op, 503)).toBe('5XX')
      expect(responseKeyOf(op, 418)).toBeUndefined()
      expect(contract.validators.response(op, 500)!({ error: 'boom' })).toBe(true)
      expect(contract.validators.response(op, 500)!({ message: 'boom' })).toBe(false)
    }
  })

  it('Grain and DateRangePreset are referenced, and every component schema is used', () => {
    const text = JSON.stringify(doc.paths) + JSON.stringify(doc.components)
    const unused = Object.keys(doc.components.schemas).filter((name) => !text.includes(`"#/components/schemas/${name}"`))
    expect(unused).toEqual([])
    const inlineGrains = text.match(/"enum":\["day","week","month"\]/g) ?? []
    expect(inlineGrains.length).toBe(1) // the Grain component itself
  })

  it('open shapes (workflow trigger and steps, community settings) are open records for typed clients', () => {
    const types = readFileSync(`${root}openapi/types.ts`, 'utf8')
    const never = types.split('\n').filter((line) => line.includes('Record<string, never>') && !/^export type (webhooks|\$defs)\b/.test(line))
    expect(never).toEqual([])
    const empties: string[] = []
    const walk = (node: unknown, path: string) => {
      if (!node || typeof node !== 'object') return
      const o = node as Record<string, unknown>
      if (o.type === 'object' && o.properties && Object.keys(o.properties).length === 0 && o.additionalProperties !== true) empties.push(path)
      for (const [k, v] of Object.entries(o)) walk(v, `${path}/${k}`)
    }
    walk(doc, '#')
    expect(empties).toEqual([])
  })
})

describe('mock: agrees with the contract on required bodies (issue 15)', () => {
  const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!
  const client = createInProcessClient(state)

  it('a request with no body where the body is required gets 400 {error} naming a required field, valid per the contract', async () => {
    const problems: string[] = []
    const required = contract.operations.filter((op) => (op.operation as any).requestBody?.required)
    expect(required.length).toBeGreaterThan(30)
    for (const op of required) {
      const response = await client.call(op, { headers: { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id } })
      const { text } = response
      const body = JSON.parse(text) as { error?: string }
      const validate = contract.validators.response(op, response.status)
      if (response.status !== 400 || typeof body.error !== 'string' || !validate?.(body)) problems.push(`${op.operationId}: ${response.status} ${text.slice(0, 120)}`)
      else if (!/required|Missing/.test(body.error)) problems.push(`${op.operationId}: 400 does not name the missing field: ${body.error}`)
    }
    expect(problems).toEqual([])
  })
})

describe('mock: refuses no value the contract allows, and accepts every value it enumerates (issue 15)', () => {
  const shop = state.world.shops.find((s) => s.is_active && s.plan === 'scale')!
  const client = createInProcessClient(state)
  const headers = { 'content-type': 'application/json', 'x-api-key': 'demo-enterprise-key', 'x-shop-id': shop.shop_id }
  const schemas = doc.components.schemas
  const resolve = (s: any): any => (typeof s?.$ref === 'string' ? resolve(schemas[s.$ref.split('/').pop()]) : s)
  /** Fields refused by what they refer to or combine with, not by their value's form: ids of the world, time zones, brief kinds. */
  const REFERENCES = [
    'createCreatorBrief video_ids', 'createCreatorBrief product_id', 'createDashboard default_product_ids', 'getShopStats timezone',
    'createEmailCampaign sender_id', 'createEmailCampaign recipients.handles', 'createEmailCampaign recipients.list', 'createEmailCampaign recipients.group_id',
    'getHaloReport platform_product_id',
  ]

  /** String fields (or string arrays) of a body schema, two levels deep, with their schema. */
  function fieldsOf(schema: any, prefix: string[] = [], out: Array<{ path: string[]; array: boolean; schema: any }> = []) {
    schema = resolve(schema)
    if (schema?.type !== 'object' || !schema.properties) return out
    for (const [name, raw] of Object.entries<any>(schema.properties)) {
      const field = resolve(raw)
      const types = Array.isArray(field?.type) ? field.type : [field?.type]
      const items = resolve(field?.items)
      if (types.includes('string')) out.push({ path: [...prefix, name], array: false, schema: field })
      else if (types.includes('array') && items?.type === 'string') out.push({ path: [...prefix, name], array: true, schema: items })
      else if (types.includes('object') && prefix.length < 2) fieldsOf(field, [...prefix, name], out)
    }
    return out
  }
  const withValue = (base: any, path: string[], value: unknown) => {
    const copy = structuredClone(base)
    let node = copy
    for (const key of path.slice(0, -1)) node = node[key] ??= {}
    node[path[path.length - 1]] = value
    return copy
  }

  it('a free-form string the contract accepts is never refused for its form; every enumerated value is accepted', async () => {
    const refusedFreeForm: string[] = []
    const refusedEnumerated: string[] = []
    let cases = 0
    for (const op of contract.operations.filter((o) => o.hasBody && o.requestSchema)) {
      const base = (exampleFromSchema(contract, op.requestSchema, state.today) ?? {}) as Record<string, unknown>
      if ((await client.call(op, { headers, body: JSON.stringify(base) })).status >= 400) continue
      const validBody = contract.validators.requestBody(op)!
      for (const field of fieldsOf(op.requestSchema)) {
        const name = field.path[field.path.length - 1]
        const free = !field.schema.enum && !field.schema.pattern && !field.schema.format && !('const' in field.schema)
        const values: unknown[] = free ? ['zz_unknown_value'] : (field.schema.enum ?? []).filter((v: unknown) => v !== null)
        for (const value of values) {
          const body = withValue(base, field.path, field.array ? [value] : value)
          if (!validBody(body)) continue
          cases++
          const answer = await client.call(op, { headers, body: JSON.stringify(body) })
          if (answer.status !== 400 || !answer.text.includes(name)) continue
          if (free) refusedFreeForm.push(`${op.operationId} ${field.path.join('.')}`)
          else refusedEnumerated.push(`${op.operationId} ${field.path.join('.')}=${String(value)}: ${answer.text.slice(0, 100)}`)
        }
      }
    }
    expect(cases).toBeGreaterThan(500)
    expect(refusedFreeForm.filter((f) => !REFERENCES.includes(f))).toEqual([])
    expect(refusedEnumerated).toEqual([])
  })

  it('CSV exports: columns are enumerated in the contract, and the mock refuses exactly the columns the contract does not list', async () => {
    const csvOps = contract.operations.filter((o) => o.operation['x-csv'] === true && o.hasBody)
    expect(csvOps.length).toBeGreaterThan(0)
    for (const op of csvOps) {
      const columns = resolve(resolve(op.requestSchema)?.properties?.columns)
      expect(resolve(columns?.items)?.enum, `${op.operationId} columns`).toBeInstanceOf(Array)
      const base = (exampleFromSchema(contract, op.requestSchema, state.today) ?? {}) as Record<string, unknown>
      // Where the range may come in another form (halo's date_from/date_to), the example leaves it out.
      if (resolve(op.requestSchema).properties?.date_range) base.date_range = { from: state.today, to: state.today }
      const validBody = contract.validators.requestBody(op)!
      for (const column of resolve(columns.items).enum as string[]) {
        const listed = { ...base, format: 'csv', columns: [column] }
        expect(validBody(listed), `${op.operationId} ${column}`).toBe(true)
        const answer = await client.call(op, { headers, body: JSON.stringify(listed) })
        expect(answer.status, `${op.operationId} ${column}: ${answer.text.slice(0, 200)}`).toBeLessThan(400)
      }
      expect(validBody({ ...base, format: 'csv', columns: ['zz_unknown_value'] }), op.operationId).toBe(false)
    }
  })
})
