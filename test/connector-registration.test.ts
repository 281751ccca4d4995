/**
 * RFC 7591 3.2.2 (issue 24): client metadata the contract's ClientRegistrationRequest refuses gets 400
 * `invalid_client_metadata`, for every field of the schema, not just the one the third-party fuzzer
 * found (`"client_uri": ""` was registered and echoed, breaking the 201's own `format: uri`). The cases
 * are made from the contract's schema, so a URI field added to it is covered without a new test.
 */
import { describe, expect, it } from 'vitest'
import { createConnector } from '../mock/connector/index.ts'
import { createMockState } from '../mock/index.ts'

const state = createMockState({ seed: 3, now: '2026-05-04T10:00:00.000Z', rateLimit: false })
const connector = createConnector(state, { baseUrl: 'http://127.0.0.1:4010', log: () => {} })
const { contract } = state
const schemas = contract.doc.components.schemas as Record<string, any>
const request = schemas.ClientRegistrationRequest
const validResponse = contract.validators.compile('test:ClientInformation', { $ref: '#/components/schemas/ClientInformation' })
const VALID = { redirect_uris: ['https://assistant.example.org/callback'] }

const register = async (body: unknown) => {
  const response = await connector.handle(new Request('http://127.0.0.1:4010/oauth/register', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }))
  return { status: response.status, json: (await response.json()) as Record<string, any> }
}

/** Values the field's schema refuses: for a URI, the empty string and relative or spaced text; for any string, a number. */
function refusedValues(field: any): unknown[] {
  if (field.type === 'string' && field.format === 'uri') return ['', 'not a uri', '/relative/path', 42]
  if (field.type === 'string') return [42, ...(typeof field.maxLength === 'number' ? ['x'.repeat(field.maxLength + 1)] : []), ...(field.enum ? ['other'] : [])]
  if (field.type === 'array') return ['not-an-array', [42]]
  return []
}

describe('connector: registration metadata as the contract describes it (RFC 7591 3.2.2; issue 24)', () => {
  const fields = Object.entries<any>(request.properties).filter(([name]) => name !== 'redirect_uris')

  it('the schema has URI-typed metadata to check (client_uri at least)', () => {
    expect(fields.filter(([, f]) => f.format === 'uri').map(([n]) => n)).toContain('client_uri')
  })

  it.each(fields.flatMap(([name, field]) => refusedValues(field).map((value) => [name, value] as const)))('%s = %j is refused with 400 invalid_client_metadata naming the field', async (name, value) => {
    const { status, json } = await register({ ...VALID, [name]: value })
    expect(status).toBe(400)
    expect(json.error).toBe('invalid_client_metadata')
    expect(json.error_description).toContain(name)
  })

  it('a redirect URI that is not a URI is invalid_redirect_uri', async () => {
    const { status, json } = await register({ redirect_uris: [''] })
    expect([status, json.error]).toEqual([400, 'invalid_redirect_uri'])
  })

  it('valid metadata with every URI field set is registered, and the 201 validates against ClientInformation', async () => {
    const uris = Object.fromEntries(fields.filter(([, f]) => f.format === 'uri').map(([n]) => [n, 'https://assistant.example.org/about']))
    const { status, json } = await register({ ...VALID, ...uris, client_name: 'Fuzz', software_id: 'x', software_version: '1' })
    expect(status).toBe(201)
    expect(validResponse(json), JSON.stringify(validResponse.errors)).toBe(true)
    expect(json.client_uri).toBe('https://assistant.example.org/about')
  })
})
