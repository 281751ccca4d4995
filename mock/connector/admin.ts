/**
 * The connector's control-API actions (`state.admin.run('connector/...')`, `POST /__admin/connector/...`):
 * the dashboard's view of connections, the user's revocation, and the activity log.
 */
import type { AdminAction } from '../context.ts'
import { compareText } from '../lib/sort.ts'
import { apiError } from '../respond.ts'
import { readActivity, type ActivityQuery } from './activity.ts'
import { ConnectorOperationError } from './store.ts'

export const connectorAdminActions: Record<string, AdminAction> = {
  /** Every connection of the account, newest first, revoked ones included. */
  'connector/connections': (state) => ({
    connections: Object.values(state.connector.data.connections).sort((a, b) => compareText(b.created_at, a.created_at)),
  }),
  /** The user revokes a connection: its tokens stop working on the next call. */
  'connector/revoke-connection': (state, input) => {
    if (typeof input.connection_id !== 'string') throw apiError(400, 'connection_id must be a string')
    try {
      return { connection: state.connector.apply('revokeConnection', { connection_id: input.connection_id, now: state.clock.now().toISOString() }) }
    } catch (error) {
      if (error instanceof ConnectorOperationError) throw apiError(404, error.message)
      throw error
    }
  },
  /** The account's tier for connector calls: `{tier: 'standard' | 'enterprise'}` (default: the account's users). */
  'connector/account-tier': (state, input) => {
    if (input.tier !== 'standard' && input.tier !== 'enterprise') throw apiError(400, 'tier must be standard or enterprise')
    const users = state.connector.apply('setAccountTier', { account_id: state.world.account.account_id, tier: input.tier })
    return { account_id: state.world.account.account_id, tier: input.tier, users: users.length }
  },
  /** The activity log, newest first: `{actor_kind, shop_id, from, to, page_size, page_number}`. */
  'connector/activity': async (state, input) => readActivity(await state.activity.entries(), input as ActivityQuery),
  /** The registered clients and the account's users (the demo user's credentials: a sandbox). */
  'connector/clients': (state) => ({ clients: Object.values(state.connector.data.clients) }),
  'connector/users': (state) => ({ users: state.connector.data.users.map(({ user_id, email, password, name, tier }) => ({ user_id, email, password, name, tier })) }),
}
