/**
 * Faults injected through the control API: latency, or an error status, on a route for the next N
 * requests. Client developers use them to test retries and timeouts.
 */
export interface FaultInput {
  /** operationId, permission (`POST /shop/products`), path (`/shop/products`) or `*` (default). */
  route?: string
  /** Status to answer with (usually 5xx). Without it only the latency applies. */
  status?: number
  /** Error message of the injected response. */
  message?: string
  /** Wall-clock delay before answering, in milliseconds. */
  latency_ms?: number
  /** How many matching requests it applies to (default 1). */
  count?: number
}

export interface Fault {
  id: number
  route: string
  status?: number
  message?: string
  latency_ms?: number
  remaining: number
}

/** The three names of an operation a fault's route is matched against. */
export interface FaultMatch {
  operationId: string
  permission: string
  path: string
}

export interface FaultStore {
  add(input: FaultInput): Fault
  /** Takes the first fault matching the request, counting it down. */
  take(match: FaultMatch): Fault | undefined
  /** The fault `take` would take, without taking it. */
  peek(match: FaultMatch): Fault | undefined
  list(): Fault[]
  /** Removes one fault; false when there is none with this id. */
  remove?(id: number): boolean
  clear(): void
}

export function createFaultStore(): FaultStore {
  let faults: Fault[] = []
  let nextId = 1
  return {
    add({ route = '*', status, message, latency_ms, count = 1 }) {
      if (status !== undefined && (!Number.isInteger(status) || status < 100 || status > 599)) throw new RangeError('status must be an HTTP status (100-599)')
      if (latency_ms !== undefined && (!Number.isFinite(latency_ms) || latency_ms < 0)) throw new RangeError('latency_ms must be a number >= 0')
      if (!Number.isInteger(count) || count < 1) throw new RangeError('count must be an integer >= 1')
      if (status === undefined && latency_ms === undefined) throw new RangeError('a fault needs status or latency_ms')
      const fault: Fault = { id: nextId++, route, remaining: count, ...(status !== undefined && { status }), ...(message && { message }), ...(latency_ms !== undefined && { latency_ms }) }
      faults.push(fault)
      return fault
    },
    peek({ operationId, permission, path }) {
      if (faults.length === 0) return undefined
      const fault = faults.find((f) => f.route === '*' || f.route === operationId || f.route === permission || f.route === path)
      return fault && { ...fault }
    },
    take(match) {
      const found = this.peek(match)
      const fault = found && faults.find((f) => f.id === found.id)
      if (!fault) return undefined
      fault.remaining--
      if (fault.remaining <= 0) faults = faults.filter((f) => f !== fault)
      return { ...fault }
    },
    list() {
      return faults.map((f) => ({ ...f }))
    },
    remove(id) {
      const before = faults.length
      faults = faults.filter((f) => f.id !== id)
      return faults.length < before
    },
    clear() {
      faults = []
    },
  }
}
