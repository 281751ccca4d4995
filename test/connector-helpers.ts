/**
 * Test helpers for the connector: PKCE pairs, and a small "browser" (cookie jar, manual redirects,
 * forms posted as application/x-www-form-urlencoded the way a browser submits them).
 */
import { createHash, randomBytes } from 'node:crypto'
import { getResponse } from 'msw'
import { createConnector } from '../mock/connector/index.ts'
import { createHandlers } from '../mock/handlers.ts'
import { createMockState } from '../mock/state.ts'

export const b64url = (buf: Buffer): string => buf.toString('base64url')

export function pkcePair(): { verifier: string; challenge: string } {
  const verifier = b64url(randomBytes(32))
  return { verifier, challenge: b64url(createHash('sha256').update(verifier).digest()) }
}

export interface Browser {
  /** GET (or POST a form) and follow 303 redirects on the connector's origin; stops at a redirect elsewhere. */
  open(url: string, form?: URLSearchParams): Promise<{ status: number; url: string; html: string; location: string | null }>
  cookies: Map<string, string>
}

/** Hidden inputs of the first form on the page. */
export function hiddenFields(html: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of html.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) out[m[1]!] = m[2]!.replace(/&#(\d+);/g, (_, c) => String.fromCharCode(Number(c)))
  return out
}

/** The values of the checkboxes named `name` on the page. */
export const checkboxValues = (html: string, name: string): string[] => [...html.matchAll(new RegExp(`<input type="checkbox" name="${name}" value="([^"]+)"`, 'g'))].map((m) => m[1]!)

export function createBrowser(fetchFn: typeof fetch = fetch): Browser {
  const cookies = new Map<string, string>()
  async function open(url: string, form?: URLSearchParams) {
    let current = url
    let body: URLSearchParams | undefined = form
    for (let hops = 0; hops < 5; hops++) {
      const headers: Record<string, string> = {}
      if (cookies.size) headers.cookie = [...cookies].map(([k, v]) => `${k}=${v}`).join('; ')
      if (body) headers['content-type'] = 'application/x-www-form-urlencoded'
      const response = await fetchFn(current, { method: body ? 'POST' : 'GET', headers, body: body?.toString(), redirect: 'manual' })
      const setCookie = response.headers.get('set-cookie')
      if (setCookie) {
        const [pair] = setCookie.split(';')
        const [k, ...v] = pair!.split('=')
        cookies.set(k!, v.join('='))
      }
      const location = response.headers.get('location')
      if (response.status === 303 && location) {
        current = new URL(location, current).href
        body = undefined
        continue
      }
      return { status: response.status, url: current, html: await response.text(), location }
    }
    throw new Error('too many redirects')
  }
  return { open, cookies }
}

/**
 * Walks an authorization URL as a person would: sign in (if asked), tick the given shops and tools
 * on the consent page, press Allow (or Deny). Resolves with the redirect back to the client.
 */
export async function consent(
  browser: Browser,
  authorizationUrl: string,
  { email, password, shops, tools, decision = 'allow' }: { email: string; password: string; shops: string[]; tools: string[]; decision?: 'allow' | 'deny' },
): Promise<URL> {
  let page = await browser.open(authorizationUrl)
  if (page.status === 302 && page.location) return new URL(page.location)
  if (page.html.includes('name="password"')) {
    const form = new URLSearchParams({ ...hiddenFields(page.html), email, password })
    page = await browser.open(new URL('/oauth/sign-in', authorizationUrl).href, form)
  }
  if (page.status !== 200) throw new Error(`consent page: ${page.status} ${page.html.slice(0, 300)}`)
  const form = new URLSearchParams(hiddenFields(page.html))
  for (const s of shops) form.append('shop', s)
  for (const t of tools) form.append('tool', t)
  form.set('decision', decision)
  const answer = await browser.open(new URL('/oauth/authorize', authorizationUrl).href, form)
  if (answer.status !== 302 || !answer.location) throw new Error(`consent answer: ${answer.status} ${answer.html.slice(0, 300)}`)
  return new URL(answer.location)
}

/** A faulty server's behaviour, as a wrapper around shoptwin's answer (the connector rules' mutations). */
export type Mutation = (request: Request, next: (request: Request) => Promise<Response>) => Promise<Response>

/**
 * shoptwin's connector at https://mcp.example.com (and its REST API at https://api.example.com) in
 * process, through `mutation` when given: a target for the connector conformance rules.
 */
export function connectorTarget(mutation?: Mutation): { fetchFn: typeof fetch; user: { email: string; password: string }; api: { baseUrl: string; apiKey: string } } {
  const api = 'https://api.example.com'
  const state = createMockState({ seed: 9, now: '2026-08-01T00:00:00.000Z', rateLimit: false })
  const connector = createConnector(state, { baseUrl: 'https://mcp.example.com' })
  const rest = createHandlers(state, { baseUrl: api })
  const serve = async (r: Request) => (r.url.startsWith(api) ? ((await getResponse(rest, r)) ?? new Response(null, { status: 404 })) : connector.handle(r))
  const fetchFn = ((input: string | URL | Request, init?: RequestInit) => {
    const request = new Request(input, init)
    return mutation ? mutation(request, serve) : serve(request)
  }) as typeof fetch
  const { email, password } = state.connector.data.users[0]!
  return { fetchFn, user: { email, password }, api: { baseUrl: api, apiKey: 'demo-key' } }
}
