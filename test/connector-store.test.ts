/**
 * The connector's state (issue 17, part 1): plain data owned by the MockState, every write a named
 * operation over plain-data input, so a log of operations (JSON round-tripped) replays to the same
 * state; no secret ever enters it; the fixtures are deterministic per seed; the activity log is capped.
 */
import { describe, expect, it } from 'vitest'
import { buildConnectorFixtures } from '../fixtures/connector.ts'
import { createConnector } from '../mock/connector/index.ts'
import { ACTIVITY_MAX, createConnectorStore, type AppliedOperation } from '../mock/connector/store.ts'
import type { TwinOp } from '../mock/twin/ops.ts'
import { createMockState } from '../mock/state.ts'
import { consent, createBrowser, pkcePair } from './connector-helpers.ts'

const BASE = 'https://mcp.example.com'
const REDIRECT = 'https://agent.example.com/cb'

describe('connector state: a typed store of named operations', () => {
  it('a JSON log of the applied operations replays to the same state, and holds no token, code or password', async () => {
    const ops: TwinOp[] = []
    const state = createMockState({ seed: 4, now: '2026-09-01T09:00:00.000Z', rateLimit: false, onOp: ({ op }) => ops.push(op) })
    const log = () => ops.filter((op): op is Extract<TwinOp, { kind: 'connector' }> => op.kind === 'connector').map(({ name, input }): AppliedOperation => ({ name, input }))
    const connector = createConnector(state, { baseUrl: BASE })
    const f = ((input: string | URL | Request, init?: RequestInit) => connector.handle(new Request(input, init))) as typeof fetch
    const user = state.connector.data.users[0]!
    const client = (await (await f(`${BASE}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ client_name: 'Replay', redirect_uris: [REDIRECT] }) })).json()) as { client_id: string }
    const { verifier, challenge } = pkcePair()
    const url = `${BASE}/oauth/authorize?response_type=code&client_id=${client.client_id}&redirect_uri=${encodeURIComponent(REDIRECT)}&code_challenge=${challenge}&code_challenge_method=S256`
    const back = await consent(createBrowser(f), url, { email: user.email, password: user.password, shops: [state.world.shops[0]!.shop_id], tools: ['getShopSps'] })
    const tokens = (await (await f(`${BASE}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'authorization_code', code: back.searchParams.get('code')!, code_verifier: verifier, client_id: client.client_id, redirect_uri: REDIRECT }) })).json()) as { access_token: string; refresh_token: string }
    await f(`${BASE}/mcp`, { method: 'POST', headers: { authorization: `Bearer ${tokens.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'getShopSps', arguments: { shop_id: state.world.shops[0]!.shop_id } } }) })
    await f(`${BASE}/oauth/token`, { method: 'POST', body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: tokens.refresh_token, client_id: client.client_id }) })
    await state.admin.run('connector/revoke-connection', { connection_id: Object.values(state.connector.data.connections).find((c) => c.client_id === client.client_id)!.connection_id })

    // The activity log is a store of its own (mock/stores/activity.ts), like the journal: not an operation of the log.
    expect(log().map((o) => o.name)).toEqual(['registerClient', 'startAuthorization', 'signIn', 'approveConsent', 'redeemCode', 'touchConnection', 'rotateRefresh', 'revokeConnection'])
    const replayed = createConnectorStore(buildConnectorFixtures(state.world))
    for (const op of JSON.parse(JSON.stringify(log())) as AppliedOperation[]) replayed.apply(op.name, op.input as never)
    expect({ ...replayed.data, activity: [], next_activity_id: 0 }).toEqual({ ...state.connector.data, activity: [], next_activity_id: 0 })
    const text = JSON.stringify({ log: ops, data: state.connector.data })
    for (const secret of [tokens.access_token, tokens.refresh_token, back.searchParams.get('code')!, verifier]) expect(text).not.toContain(secret)
  })

  it('the fixtures are deterministic per seed and today: one user, three earlier connections, one revoked', () => {
    const a = createMockState({ seed: 8, today: '2026-01-15', now: '2026-01-15T10:00:00.000Z' })
    const b = createMockState({ seed: 8, today: '2026-01-15', now: '2026-01-15T10:00:00.000Z' })
    expect(JSON.stringify(a.connector.data)).toBe(JSON.stringify(b.connector.data))
    const connections = Object.values(a.connector.data.connections)
    expect(a.connector.data.users).toHaveLength(1)
    expect(connections).toHaveLength(3)
    expect(connections.filter((c) => c.revoked_at)).toHaveLength(1)
    expect(createMockState({ seed: 9, today: '2026-01-15' }).connector.data.users[0]!.email).not.toBe(a.connector.data.users[0]!.email)
  })

  it('reset rebuilds the connector state from the fixtures', async () => {
    const state = createMockState({ seed: 8, now: '2026-01-15T10:00:00.000Z' })
    const before = JSON.stringify(state.connector.data)
    await state.admin.run('connector/revoke-connection', { connection_id: Object.keys(state.connector.data.connections)[0]! })
    expect(JSON.stringify(state.connector.data)).not.toBe(before)
    state.reset()
    expect(JSON.stringify(state.connector.data)).toBe(before)
  })

  it(`the activity log keeps the newest ${ACTIVITY_MAX} entries`, () => {
    const state = createMockState({ seed: 8, now: '2026-01-15T10:00:00.000Z' })
    const entry = { time: '2026-01-15T10:00:00.000Z', actor: { kind: 'api_key' as const, key_id: 'key_1', label: 'k' }, shop_id: null, operation_id: 'getHealth', tool: null, status: 200, idempotent_replay: false }
    for (let i = 0; i < ACTIVITY_MAX + 5; i++) state.activity.record(entry)
    const { activity } = state.connector.data
    expect(activity).toHaveLength(ACTIVITY_MAX)
    expect(activity.at(-1)!.id - activity[0]!.id).toBe(ACTIVITY_MAX - 1)
  })
})
