/**
 * What a typed client (openapi-fetch over openapi/types.ts) is told by the contract, checked by
 * `tsc --noEmit` in `npm test` (issue 15: the contract as independent tools read it). Each
 * `@ts-expect-error` fails the type check if the contract stops refusing that call.
 */
import createClient from 'openapi-fetch'
import type { paths } from '../../openapi/types.ts'

export async function typedClientCalls(): Promise<void> {
  const client = createClient<paths>({ baseUrl: 'https://api.example.com' })
  const params = { header: { 'x-shop-id': 'shop' } }

  // A body with required fields is required: a board cannot be created without its name.
  // @ts-expect-error requestBody is required on POST /dashboards/create
  await client.POST('/dashboards/create', { params })
  await client.POST('/dashboards/create', { params, body: { name: 'Weekly' } })

  // Enumerated where the mock refuses other values: the CRM list's sort fields (inferred).
  await client.POST('/affiliate/crm/list', { params, body: { sort_by: 'follower_cnt', sort_direction: 'asc' } })
  // @ts-expect-error sort_by is one of the CRM's sort fields
  await client.POST('/affiliate/crm/list', { params, body: { sort_by: 'not_a_field' } })

  // CSV columns are the exported row's fields.
  await client.POST('/ads/boosted-creatives', { params, body: { format: 'csv', columns: ['session_id', 'spend'] } })
  // @ts-expect-error columns are the boost session's fields
  await client.POST('/ads/boosted-creatives', { params, body: { format: 'csv', columns: ['no_such_column'] } })

  // Open shapes are open records, not Record<string, never>.
  await client.POST('/workflows/create', { params, body: { name: 'Welcome', trigger: { type: 'new_affiliate' }, steps: [{ type: 'dm', delay_days: 1 }] } })
}

/** The assistant connector's operations (on {mcp_url}) as a typed client sees them. */
export async function typedConnectorCalls(): Promise<void> {
  const client = createClient<paths>({ baseUrl: 'https://mcp.example.com' })
  const form = { bodySerializer: (body: unknown) => new URLSearchParams(body as Record<string, string>).toString(), headers: { 'content-type': 'application/x-www-form-urlencoded' } }

  const { data: metadata } = await client.GET('/.well-known/oauth-authorization-server')
  const methods: Array<'S256'> | undefined = metadata?.code_challenge_methods_supported
  void methods

  const { data: registered } = await client.POST('/oauth/register', { body: { client_name: 'Assistant', redirect_uris: ['https://assistant.example.org/callback'] } })
  // @ts-expect-error a registration names its redirect URIs
  await client.POST('/oauth/register', { body: { client_name: 'Assistant' } })
  // @ts-expect-error public clients only: no secret-based authentication
  await client.POST('/oauth/register', { body: { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'client_secret_basic' } })

  // PKCE with S256 only.
  await client.GET('/oauth/authorize', { params: { query: { response_type: 'code', client_id: 'c', code_challenge: 'x'.repeat(43), code_challenge_method: 'S256' } } })
  // @ts-expect-error plain is not offered
  await client.GET('/oauth/authorize', { params: { query: { response_type: 'code', client_id: 'c', code_challenge: 'x', code_challenge_method: 'plain' } } })

  const { data: tokens, error } = await client.POST('/oauth/token', { ...form, body: { grant_type: 'authorization_code', code: 'code', code_verifier: 'v'.repeat(43), redirect_uri: 'https://assistant.example.org/callback', client_id: registered!.client_id } })
  const access: string | undefined = tokens?.access_token
  const refused: 'invalid_request' | 'invalid_client' | 'invalid_grant' | 'unauthorized_client' | 'unsupported_grant_type' | 'invalid_scope' | 'invalid_target' | 'server_error' | undefined = error?.error
  void access
  void refused
  // @ts-expect-error a code exchange carries its verifier (PKCE)
  await client.POST('/oauth/token', { ...form, body: { grant_type: 'authorization_code', code: 'code', redirect_uri: 'https://a.example/cb', client_id: 'c' } })
  // @ts-expect-error only authorization_code and refresh_token grants
  await client.POST('/oauth/token', { ...form, body: { grant_type: 'password', client_id: 'c' } })

  await client.POST('/oauth/revoke', { ...form, body: { token: 't', token_type_hint: 'refresh_token', client_id: 'c' } })
  await client.POST('/mcp', { params: { header: { Accept: 'application/json, text/event-stream' } }, body: { jsonrpc: '2.0', id: 1, method: 'tools/list' } })
}
