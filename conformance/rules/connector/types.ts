/**
 * Conformance rules for a target's assistant connector (spec: What the service does; Authentication 6),
 * given only its MCP URL: discovery, the 401 challenge, registration, PKCE, redirect matching and the
 * token endpoint's errors. Failures are data; run.ts runs and prints them.
 */
export interface ConnectorFailure {
  rule: string
  message: string
  expected: string
  received: string
}

export interface ConnectorRuleContext {
  /** The MCP endpoint under test. */
  readonly mcpUrl: string
  /** fetch with redirects not followed (a 302 is an answer to look at). */
  fetch(url: string, init?: RequestInit): Promise<Response>
  /** Records a failure when `ok` is false; returns ok. */
  check(ok: boolean, failure: Omit<ConnectorFailure, 'rule'>): boolean
  /** The discovery documents (fetched once per run). */
  discovery(): Promise<{ resource: Record<string, any>; server: Record<string, any> }>
  /** A newly registered public client with one https redirect URI. */
  register(): Promise<{ client_id: string; redirect_uri: string }>
}

export interface ConnectorRule {
  id: string
  title: string
  spec: string
  level: 'MUST' | 'SHOULD'
  run(t: ConnectorRuleContext): Promise<void>
}
