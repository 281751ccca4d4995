/**
 * Conformance rules for a target's assistant connector (spec: What the service does; Authentication 6),
 * given only its MCP URL: discovery, the 401 challenge, registration, PKCE, redirect matching and the
 * token endpoint's errors. Failures are data; run.ts runs and prints them.
 */
import type { Provenance } from '../../provenance.ts'

export interface ConnectorFailure {
  rule: string
  message: string
  expected: string
  received: string
}

export interface ConnectorRuleContext {
  /** The MCP endpoint under test. */
  readonly mcpUrl: string
  /** The REST API of the same service, when given (`--base-url`, `--api-key`). */
  readonly api?: { baseUrl: string; apiKey: string }
  /** fetch with redirects not followed (a 302 is an answer to look at). */
  fetch(url: string, init?: RequestInit): Promise<Response>
  /** Records a failure when `ok` is false; returns ok. */
  check(ok: boolean, failure: Omit<ConnectorFailure, 'rule'>): boolean
  /** The discovery documents (fetched once per run). */
  discovery(): Promise<{ resource: Record<string, any>; server: Record<string, any> }>
  /** A newly registered public client with one https redirect URI. */
  register(): Promise<{ client_id: string; redirect_uri: string }>
  /**
   * Registers, signs in as the user given (`--mcp-user`, `--mcp-password`), consents to `shops` and
   * `tools` on a consent page with shoptwin's form fields, and returns the code with what redeems it.
   * Skips the rule when no user is given.
   */
  authorize(consent: { shops?: 'first' | 'all'; tools: string[] }): Promise<{ client_id: string; redirect_uri: string; code: string; verifier: string; shops: string[] }>
  /** POSTs a token-endpoint form; the status and the JSON body. */
  token(form: Record<string, string>): Promise<{ status: number; body: Record<string, any> }>
  /** One JSON-RPC call on the MCP endpoint with a bearer token; the HTTP status and the JSON-RPC answer. */
  mcp(accessToken: string, method: string, params?: unknown): Promise<{ status: number; body: Record<string, any> | null }>
  /** Ends the rule as skipped (not a failure). */
  skip(reason: string): never
}

export interface ConnectorRule extends Provenance {
  id: string
  title: string
  spec: string
  level: 'MUST' | 'SHOULD'
  /**
   * The connector operations of the contract (operationIds) its requests reach on shoptwin; their
   * union is what a connector certificate covers (test/connector-conformance-rules.test.ts checks it).
   */
  operations: string[]
  run(t: ConnectorRuleContext): Promise<void>
}
