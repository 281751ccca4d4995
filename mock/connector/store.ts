/**
 * The connector's own state (spec: What the service does; Authentication 6): registered clients,
 * pending authorization requests, codes, token families, connections with their consent, and the
 * account's activity log. Plain data, owned by the MockState; every write is one named operation
 * `(data, input) => result` over plain-data input, applied through `store.apply(name, input)`, so a
 * log of operations replays to the same state.
 *
 * Secrets never enter it: codes, tokens and pending-request ids are stored under their SHA-256, the
 * values themselves leave only in the HTTP answer that hands them out. Times are ISO strings of the
 * mock clock, passed in by the caller.
 */

export interface ConnectorUser {
  user_id: string
  email: string
  /** The fixture's demo password (a sandbox: printed by `npm start`). */
  password: string
  name: string
  account_id: string
  /** The account's tier: Enterprise tools need 'enterprise' (spec: Authentication 4). */
  tier: 'standard' | 'enterprise'
}

export interface ConnectorClient {
  client_id: string
  client_name: string
  redirect_uris: string[]
  client_id_issued_at: number
  grant_types: string[]
  response_types: string[]
  token_endpoint_auth_method: 'none'
  client_uri?: string
  software_id?: string
  software_version?: string
}

/** A signed-in browser (the cookie's value is kept as its SHA-256). */
export interface SignInSession {
  session_hash: string
  user_id: string
  created_at: string
  expires_at: string
}

/** An /authorize request between its first page and the consent answer. */
export interface AuthorizationRequest {
  request_hash: string
  client_id: string
  redirect_uri: string
  state: string | null
  code_challenge: string
  resource: string | null
  scope: string | null
  user_id: string | null
  created_at: string
  expires_at: string
}

export interface AuthorizationCode {
  code_hash: string
  client_id: string
  redirect_uri: string
  code_challenge: string
  resource: string | null
  /** The authorization request's scope, ignored but remembered: the token answer says none was granted (RFC 6749 3.3). Absent in data older than it. */
  scope?: string | null
  connection_id: string
  issued_at: string
  expires_at: string
  /** Set once redeemed; a second redemption revokes what the first issued. */
  used_at: string | null
  family_id: string | null
}

/** The tokens of one code redemption and its refreshes (RFC 6819 5.2.2.3: a reused refresh token revokes it whole). */
export interface TokenFamily {
  family_id: string
  connection_id: string
  client_id: string
  resource: string | null
  created_at: string
  revoked_at: string | null
  revoked_reason: string | null
}

export interface ConnectorToken {
  token_hash: string
  kind: 'access' | 'refresh'
  family_id: string
  issued_at: string
  expires_at: string
  /** Refresh tokens: set when rotated (used once). */
  used_at: string | null
  revoked_at: string | null
}

/** A user's grant to one client: the shops and tools consented to. */
export interface Connection {
  connection_id: string
  user_id: string
  account_id: string
  client_id: string
  client_name: string
  shops: string[]
  tools: string[]
  created_at: string
  updated_at: string
  last_used_at: string | null
  revoked_at: string | null
}

export type ActivityActor =
  | { kind: 'api_key'; key_id: string; label: string }
  | { kind: 'connector'; client_id: string; client_name: string; connection_id: string }

/** One action in the account's activity log (spec: What the service does). */
export interface ActivityEntry {
  id: number
  time: string
  actor: ActivityActor
  shop_id: string | null
  operation_id: string
  /** The MCP tool's name for connector calls (the operationId), null for API calls. */
  tool: string | null
  status: number
  idempotent_replay: boolean
}

export interface ConnectorData {
  users: ConnectorUser[]
  clients: Record<string, ConnectorClient>
  sessions: Record<string, SignInSession>
  requests: Record<string, AuthorizationRequest>
  codes: Record<string, AuthorizationCode>
  families: Record<string, TokenFamily>
  tokens: Record<string, ConnectorToken>
  connections: Record<string, Connection>
  activity: ActivityEntry[]
  next_activity_id: number
}

/** The most activity entries kept (oldest dropped first). */
export const ACTIVITY_MAX = 10_000

/** A refusal of an operation: the caller turns `code` into its protocol's error. */
export class ConnectorOperationError extends Error {
  readonly code: string
  constructor(code: string, message: string) {
    super(message)
    this.code = code
    this.name = 'ConnectorOperationError'
  }
}

const refuse = (code: string, message: string): never => {
  throw new ConnectorOperationError(code, message)
}

function revokeFamily(data: ConnectorData, familyId: string, at: string, reason: string): void {
  const family = own(data.families, familyId)
  if (!family || family.revoked_at) return
  family.revoked_at = at
  family.revoked_reason = reason
}

/**
 * The record stored under `key`, if any. The connector's records are plain objects keyed by values a
 * request names (client_id, connection_id): `clients["toString"]` would find Object.prototype's
 * method, so a lookup reads own properties only.
 */
export function own<T>(records: Readonly<Record<string, T>>, key: string): T | undefined {
  return Object.hasOwn(records, key) ? records[key] : undefined
}

/**
 * Whether a connection still lets its client in: revoked by the user, or ended when every token grant
 * under it was revoked (the client revoking its refresh token, RFC 7009 2.1, or a reused code or
 * refresh token); a new consent of the same client brings it back with a new grant.
 */
export function connectionEnded(data: ConnectorData, connection: Connection): { at: string; by: 'user' | 'client' | 'security' } | undefined {
  if (connection.revoked_at) return { at: connection.revoked_at, by: 'user' }
  const families = Object.values(data.families).filter((f) => f.connection_id === connection.connection_id)
  if (!families.length || families.some((f) => !f.revoked_at)) return undefined
  const last = families.reduce((a, b) => (a.revoked_at! >= b.revoked_at! ? a : b))
  return { at: last.revoked_at!, by: last.revoked_reason === 'revoked by the client' ? 'client' : 'security' }
}

/** The operations: every write to the connector's state, by name. */
export const connectorOperations = {
  registerClient(data: ConnectorData, input: ConnectorClient): ConnectorClient {
    data.clients[input.client_id] = { ...input, redirect_uris: [...input.redirect_uris] }
    return own(data.clients, input.client_id)!
  },

  startAuthorization(data: ConnectorData, input: AuthorizationRequest): AuthorizationRequest {
    if (!own(data.clients, input.client_id)) refuse('invalid_client', 'Unknown client_id')
    data.requests[input.request_hash] = { ...input }
    return own(data.requests, input.request_hash)!
  },

  /** A user signed in (credentials checked by the caller): a session, and the pending request (if any) becomes theirs. */
  signIn(data: ConnectorData, input: { session_hash: string; user_id: string; now: string; expires_at: string; request_hash: string | null }): SignInSession {
    if (!data.users.some((u) => u.user_id === input.user_id)) refuse('access_denied', 'Unknown user')
    if (input.request_hash) liveRequest(data, input.request_hash, input.now).user_id = input.user_id
    data.sessions[input.session_hash] = { session_hash: input.session_hash, user_id: input.user_id, created_at: input.now, expires_at: input.expires_at }
    return own(data.sessions, input.session_hash)!
  },

  /** The user allowed: the client's connection takes the consent (created, or updated if live), and a code is issued. */
  approveConsent(
    data: ConnectorData,
    input: { request_hash: string; code_hash: string; connection_id: string; shops: string[]; tools: string[]; now: string; code_expires_at: string },
  ): { connection: Connection; code: AuthorizationCode; request: AuthorizationRequest } {
    const request = liveRequest(data, input.request_hash, input.now)
    if (!request.user_id) refuse('login_required', 'Sign in first')
    const user = data.users.find((u) => u.user_id === request.user_id)!
    const client = own(data.clients, request.client_id) ?? refuse('invalid_client', 'Unknown client_id')
    let connection = Object.values(data.connections).find((c) => c.user_id === user.user_id && c.client_id === client.client_id && !c.revoked_at)
    if (connection) {
      connection.shops = [...input.shops]
      connection.tools = [...input.tools]
      connection.updated_at = input.now
    } else {
      connection = {
        connection_id: input.connection_id,
        user_id: user.user_id,
        account_id: user.account_id,
        client_id: client.client_id,
        client_name: client.client_name,
        shops: [...input.shops],
        tools: [...input.tools],
        created_at: input.now,
        updated_at: input.now,
        last_used_at: null,
        revoked_at: null,
      }
      data.connections[connection.connection_id] = connection
    }
    const code: AuthorizationCode = {
      code_hash: input.code_hash,
      client_id: client.client_id,
      redirect_uri: request.redirect_uri,
      code_challenge: request.code_challenge,
      resource: request.resource,
      scope: request.scope,
      connection_id: connection.connection_id,
      issued_at: input.now,
      expires_at: input.code_expires_at,
      used_at: null,
      family_id: null,
    }
    data.codes[code.code_hash] = code
    delete data.requests[input.request_hash]
    return { connection, code, request }
  },

  /** The user denied: the pending request ends. */
  denyConsent(data: ConnectorData, input: { request_hash: string; now: string }): AuthorizationRequest {
    const request = liveRequest(data, input.request_hash, input.now)
    delete data.requests[input.request_hash]
    return request
  },

  /**
   * Code + verifier (already checked by the caller against the code's challenge) → a new family with
   * an access and a refresh token. A code redeemed twice is refused and what it issued is revoked
   * (RFC 6749 4.1.2).
   */
  redeemCode(
    data: ConnectorData,
    input: { code_hash: string; client_id: string; redirect_uri: string; family_id: string; access_hash: string; refresh_hash: string; now: string; access_expires_at: string; refresh_expires_at: string },
  ): { family: TokenFamily; connection: Connection } {
    const code = own(data.codes, input.code_hash) ?? refuse('invalid_grant', 'Unknown authorization code')
    if (code.used_at) {
      if (code.family_id) revokeFamily(data, code.family_id, input.now, 'authorization code reused')
      refuse('invalid_grant', 'Authorization code already used')
    }
    if (code.client_id !== input.client_id) refuse('invalid_grant', 'Authorization code was issued to another client')
    if (code.redirect_uri !== input.redirect_uri) refuse('invalid_grant', 'redirect_uri does not match the authorization request')
    if (Date.parse(code.expires_at) <= Date.parse(input.now)) refuse('invalid_grant', 'Authorization code expired')
    const connection = own(data.connections, code.connection_id)
    if (!connection || connection.revoked_at) refuse('invalid_grant', 'The connection was revoked')
    code.used_at = input.now
    code.family_id = input.family_id
    const family: TokenFamily = { family_id: input.family_id, connection_id: code.connection_id, client_id: code.client_id, resource: code.resource, created_at: input.now, revoked_at: null, revoked_reason: null }
    data.families[family.family_id] = family
    addTokens(data, input)
    return { family, connection: connection! }
  },

  /** A refresh token → new tokens of the same family; the old refresh token is spent. A spent one presented again revokes the family. */
  rotateRefresh(
    data: ConnectorData,
    input: { refresh_hash: string; client_id: string; access_hash: string; new_refresh_hash: string; now: string; access_expires_at: string; refresh_expires_at: string },
  ): { family: TokenFamily } {
    const token = own(data.tokens, input.refresh_hash)
    if (!token || token.kind !== 'refresh') return refuse('invalid_grant', 'Unknown refresh token')
    const family = own(data.families, token.family_id)!
    if (family.client_id !== input.client_id) refuse('invalid_grant', 'Refresh token was issued to another client')
    if (token.used_at) {
      revokeFamily(data, family.family_id, input.now, 'refresh token reused')
      refuse('invalid_grant', 'Refresh token already used; every token of its grant is revoked')
    }
    if (family.revoked_at || token.revoked_at) refuse('invalid_grant', 'Refresh token revoked')
    if (Date.parse(token.expires_at) <= Date.parse(input.now)) refuse('invalid_grant', 'Refresh token expired')
    const connection = own(data.connections, family.connection_id)
    if (!connection || connection.revoked_at) refuse('invalid_grant', 'The connection was revoked')
    token.used_at = input.now
    addTokens(data, { family_id: family.family_id, access_hash: input.access_hash, refresh_hash: input.new_refresh_hash, now: input.now, access_expires_at: input.access_expires_at, refresh_expires_at: input.refresh_expires_at })
    return { family }
  },

  /** RFC 7009: an access token alone, or a refresh token with its whole family. Unknown tokens and other clients' are left alone. */
  revokeToken(data: ConnectorData, input: { token_hash: string; client_id: string; now: string }): { revoked: boolean } {
    const token = own(data.tokens, input.token_hash)
    if (!token) return { revoked: false }
    const family = own(data.families, token.family_id)!
    if (family.client_id !== input.client_id) return { revoked: false }
    if (token.kind === 'refresh') revokeFamily(data, family.family_id, input.now, 'revoked by the client')
    else token.revoked_at ??= input.now
    return { revoked: true }
  },

  /** The user's revocation: the connection and every token issued under it, at once. */
  revokeConnection(data: ConnectorData, input: { connection_id: string; now: string }): Connection {
    const connection = own(data.connections, input.connection_id) ?? refuse('not_found', `No connection ${input.connection_id}`)
    if (!connection.revoked_at) {
      connection.revoked_at = input.now
      for (const family of Object.values(data.families)) if (family.connection_id === connection.connection_id) revokeFamily(data, family.family_id, input.now, 'connection revoked')
    }
    return connection
  },

  /** The account's tier changes (the control API's `connector/account-tier`): Enterprise tools follow at once. */
  setAccountTier(data: ConnectorData, input: { account_id: string; tier: 'standard' | 'enterprise' }): ConnectorUser[] {
    const users = data.users.filter((u) => u.account_id === input.account_id)
    if (users.length === 0) refuse('not_found', `No account ${input.account_id}`)
    for (const user of users) user.tier = input.tier
    return users
  },

  touchConnection(data: ConnectorData, input: { connection_id: string; now: string }): void {
    const connection = own(data.connections, input.connection_id)
    if (connection) connection.last_used_at = input.now
  },

  recordActivity(data: ConnectorData, input: Omit<ActivityEntry, 'id'>): ActivityEntry {
    // Listed field by field: a spread costs more, and this runs on every request.
    const entry: ActivityEntry = { id: data.next_activity_id++, time: input.time, actor: input.actor, shop_id: input.shop_id, operation_id: input.operation_id, tool: input.tool, status: input.status, idempotent_replay: input.idempotent_replay }
    data.activity.push(entry)
    // shift() drops the oldest in place (V8 trims the array's start); splice would copy the rest each time.
    // Terminates: each turn drops one entry until the log is at its cap.
    while (data.activity.length > ACTIVITY_MAX) data.activity.shift()
    return entry
  },
} as const

function liveRequest(data: ConnectorData, hash: string, now: string): AuthorizationRequest {
  const request = own(data.requests, hash) ?? refuse('invalid_request', 'This authorization request is unknown or already answered; start again from the application')
  if (Date.parse(request.expires_at) <= Date.parse(now)) {
    delete data.requests[hash]
    refuse('invalid_request', 'This authorization request expired; start again from the application')
  }
  return request
}

function addTokens(data: ConnectorData, input: { family_id: string; access_hash: string; refresh_hash: string; now: string; access_expires_at: string; refresh_expires_at: string }): void {
  const base = { family_id: input.family_id, issued_at: input.now, used_at: null, revoked_at: null }
  data.tokens[input.access_hash] = { ...base, token_hash: input.access_hash, kind: 'access', expires_at: input.access_expires_at }
  data.tokens[input.refresh_hash] = { ...base, token_hash: input.refresh_hash, kind: 'refresh', expires_at: input.refresh_expires_at }
}

export type ConnectorOperations = typeof connectorOperations
export type ConnectorOperationName = keyof ConnectorOperations
export type ConnectorOperationInput<N extends ConnectorOperationName> = Parameters<ConnectorOperations[N]>[1]
export type ConnectorOperationResult<N extends ConnectorOperationName> = ReturnType<ConnectorOperations[N]>

/** An operation as data: what `apply` was given (a log of these replays to the same state). */
export interface AppliedOperation {
  name: ConnectorOperationName
  input: unknown
  /** It changed the data and then refused (a family revoked on a reused code): replayed, it refuses again. */
  threw?: true
}

export interface ConnectorStore {
  /** The current data (read it; write through `apply`). */
  readonly data: ConnectorData
  apply<N extends ConnectorOperationName>(name: N, input: ConnectorOperationInput<N>): ConnectorOperationResult<N>
  /** Applies a logged operation again (a replay): one logged as refused refuses again, silently. */
  replay(operation: AppliedOperation): void
  /** Called before each operation changes anything (a shared store refuses a change outside a write there). */
  beforeApply?: () => void
  /** Called after each applied operation, refused ones too (a persistence or replication hook). */
  onApply?: (operation: AppliedOperation) => void
  /**
   * Adds an entry to the activity log kept with the data (the in-memory activity store's): not an
   * operation of the log, as a journal is not (mock/stores/activity.ts).
   */
  recordActivity(input: Omit<ActivityEntry, 'id'>): ActivityEntry
}

/** An empty connector state with the world's users (and whatever `initial` already holds). */
export function emptyConnectorData(users: ConnectorUser[] = []): ConnectorData {
  return { users, clients: {}, sessions: {}, requests: {}, codes: {}, families: {}, tokens: {}, connections: {}, activity: [], next_activity_id: 1 }
}

/** A store over `data` (deep-copied, so fixtures stay untouched). */
export function createConnectorStore(data: ConnectorData): ConnectorStore {
  const current = structuredClone(data)
  const store: ConnectorStore = {
    data: current,
    apply(name, input) {
      store.beforeApply?.()
      const operation = connectorOperations[name] as (data: ConnectorData, input: unknown) => unknown
      let result: unknown
      try {
        result = operation(current, input)
      } catch (error) {
        // Logged as what it did: some operations change the data, then refuse (revocation on reuse).
        store.onApply?.({ name, input, threw: true })
        throw error
      }
      store.onApply?.({ name, input })
      return result as never
    },
    recordActivity: (input) => connectorOperations.recordActivity(current, input),
    replay({ name, input, threw }) {
      const operation = connectorOperations[name] as (data: ConnectorData, input: unknown) => unknown
      try {
        operation(current, input)
      } catch (error) {
        if (!threw) throw error
      }
    },
  }
  return store
}
