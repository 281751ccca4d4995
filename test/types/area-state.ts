/**
 * Type-level checks of the area states (tsc runs them; nothing executes): what `state.read` returns
 * cannot be changed in place, down to the per-shop parts handed out by a function (`of(shopId)`);
 * `state.write` takes only a write's own input.
 */
import { boostsState } from '../../mock/areas/ads.ts'
import type { MockState } from '../../mock/state.ts'

export function readsAreReadOnly(state: MockState, shopId: string): void {
  const sessions = state.read(boostsState).of(shopId).sessions
  // @ts-expect-error a read is read-only: no push into a list of the state
  sessions.push(sessions[0]!)
  // @ts-expect-error nor an edit of one of its records
  sessions[0]!.active = false
  state.write(boostsState, 'stop', { shopId, sessionId: 's', at: '2026-01-01T00:00:00.000Z', exitReason: 'stopped_manually' })
  // @ts-expect-error a write's input is its own: a missing field is refused
  state.write(boostsState, 'stop', { shopId, sessionId: 's' })
}
