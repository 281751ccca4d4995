/**
 * The twin's one log: every change of its state is one of these, as plain data, in order. An area's
 * named write, a connector operation, a move of the clock, a reset, a fault added, taken or cleared.
 * Replaying the log on a fresh mock of the same seed, scale and today gives the same state (and so
 * byte-identical answers); that is what lets several replicas on one store act as one twin, and a
 * restarted one come back as it was.
 *
 * An operation that changed something and then refused (a connector's family revocation on a reused
 * code, say) is logged with `threw: true`: applied again, it changes the same things and refuses the
 * same way, which the replay expects.
 */
import type { ClockSetting } from '../clock.ts'
import type { ConnectorOperationName } from '../connector/store.ts'
import type { FaultInput, FaultMatch } from '../stores/faults.ts'

export type TwinOp =
  | { kind: 'write'; area: string; name: string; input: unknown; threw?: true }
  | { kind: 'connector'; name: ConnectorOperationName; input: unknown; threw?: true }
  | ({ kind: 'clock' } & ClockSetting)
  /** `hard`: the twin as created (the settings kept over a reset dropped too): where a replica rebuilds from. */
  | { kind: 'reset'; seed: number; scale: string; today: string; fixedToday: boolean; at: number; hard?: true }
  | { kind: 'fault'; action: 'add'; input: FaultInput; threw?: true }
  | { kind: 'fault'; action: 'take'; match: FaultMatch }
  | { kind: 'fault'; action: 'remove'; id: number }
  | { kind: 'fault'; action: 'clear' }

/** An operation with its place in the log (1, 2, ...; per twin, across replicas). */
export interface LoggedOp {
  seq: number
  op: TwinOp
}

/** Thrown by a change made where the shared store has not given this replica the right to write (see mock/twin/). */
export class NeedsExclusive extends Error {
  constructor() {
    super('shoptwin: a change of shared state outside a write (the step takes the lease and runs it again)')
  }
}

/** Thrown when the shared store cannot be reached or refused this replica's commit: the answer is a 503. */
export class StoreUnavailable extends Error {
  readonly status = 503
  /**
   * The store went away while a commit was on its way: it may have landed. The idempotency claim is
   * then kept (in flight for the spec's 60 s, or completed by that commit), never freed for a second run.
   */
  readonly outcomeUnknown: boolean
  constructor(message: string, { outcomeUnknown = false }: { outcomeUnknown?: boolean } = {}) {
    super(message)
    this.outcomeUnknown = outcomeUnknown
  }
}
