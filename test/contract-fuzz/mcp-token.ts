/**
 * An access token for the assistant connector, obtained as a client obtains it (spec: Authentication
 * 6): RFC 7591 registration, the authorization request with PKCE (S256), sign-in and consent to every
 * shop and tool the page offers, the code exchanged at the token endpoint. Used by the contract fuzz's
 * MCP phase, and from the shell so that its curl lines run against `npm start`:
 *
 *   npm exec -s -- node test/contract-fuzz/mcp-token.ts http://127.0.0.1:4010 <user email>
 *
 * prints a token (the user's demo password is read from the sandbox's control API).
 */
import { checkboxValues, createBrowser, hiddenFields, pkcePair } from '../connector-helpers.ts'

const REDIRECT = 'http://127.0.0.1:9/contract-fuzz'

export async function connectorAccessToken(base: string, user: { email: string; password: string }): Promise<string> {
  const registered = await fetch(`${base}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'contract fuzz', redirect_uris: [REDIRECT] }) })
  if (registered.status !== 201) throw new Error(`registration: ${registered.status} ${await registered.text()}`)
  const { client_id } = (await registered.json()) as { client_id: string }
  const { verifier, challenge } = pkcePair()
  const authorize = new URL(`${base}/oauth/authorize`)
  for (const [k, v] of Object.entries({ response_type: 'code', client_id, redirect_uri: REDIRECT, state: 'fuzz', code_challenge: challenge, code_challenge_method: 'S256' })) authorize.searchParams.set(k, v)
  const browser = createBrowser()
  let page = await browser.open(authorize.href)
  if (page.html.includes('name="password"')) page = await browser.open(`${base}/oauth/sign-in`, new URLSearchParams({ ...hiddenFields(page.html), email: user.email, password: user.password }))
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.html.slice(0, 200)}`)
  const form = new URLSearchParams(hiddenFields(page.html))
  for (const shop of checkboxValues(page.html, 'shop')) form.append('shop', shop)
  for (const tool of checkboxValues(page.html, 'tool')) form.append('tool', tool)
  form.set('decision', 'allow')
  const back = await browser.open(`${base}/oauth/authorize`, form)
  const code = back.location ? new URL(back.location).searchParams.get('code') : null
  if (!code) throw new Error(`consent answer: ${back.status} ${back.location ?? back.html.slice(0, 200)}`)
  const token = await fetch(`${base}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'authorization_code', code, code_verifier: verifier, client_id, redirect_uri: REDIRECT }).toString() })
  if (token.status !== 200) throw new Error(`token: ${token.status} ${await token.text()}`)
  return ((await token.json()) as { access_token: string }).access_token
}

/** The shell form of the token for a curl line. */
export const tokenCommand = (email: string) => `$(npm exec -s -- node test/contract-fuzz/mcp-token.ts http://127.0.0.1:4010 ${email})`

if (import.meta.main) {
  const [base = 'http://127.0.0.1:4010', email] = process.argv.slice(2)
  const { result } = (await (await fetch(`${base}/__admin/connector/users`, { method: 'POST' })).json()) as { result: { users: Array<{ email: string; password: string }> } }
  const user = result.users.find((u) => u.email === email) ?? result.users[0]!
  process.stdout.write(`${await connectorAccessToken(base, user)}\n`)
}
