/**
 * The proxy's idle timeouts (mock/lib/sockets.ts IdleSweep): one sweep for many sockets instead of a
 * timer refreshed on every read and write. On a test clock, with real loopback sockets: a socket that
 * moves bytes is never idle however long it lives; one that stops is told once, no sooner than its
 * idle time after the last sweep that saw it move, and again only after it moved and stopped again;
 * bytes that came in the same turn as the sweep (a loop held past the time) keep it; a closed socket
 * is forgotten. Every server listens on 127.0.0.1, port 0.
 */
import { connect, createServer, type AddressInfo, type Server, type Socket } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { IdleSweep } from '../mock/lib/sockets.ts'

let server: Server
const accepted: Socket[] = []
beforeAll(async () => {
  server = createServer((socket) => {
    accepted.push(socket)
    socket.on('data', () => undefined)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
})
afterAll(async () => {
  for (const socket of accepted) socket.destroy()
  await new Promise((resolve) => server.close(resolve))
})

/** A connected client socket (the sweep watches it) and its peer. */
async function pair(): Promise<{ client: Socket; peer: Socket }> {
  const before = accepted.length
  const client = connect((server.address() as AddressInfo).port, '127.0.0.1')
  await new Promise((resolve) => client.once('connect', resolve))
  while (accepted.length === before) await new Promise((resolve) => setImmediate(resolve))
  return { client, peer: accepted[accepted.length - 1]! }
}
/** One turn of the loop: judgements the sweep deferred (after this turn's reads) are made. */
const turn = () => new Promise((resolve) => setImmediate(resolve))
/** A sweep of 1000 ms on a test clock: `at(t)` sweeps at t and waits for the judgements it deferred. */
function swept() {
  let now = 0
  const sweep = new IdleSweep(1000, { now: () => now, sweeping: false })
  const set = (t: number) => void (now = t)
  const at = async (t: number) => {
    set(t)
    sweep.sweep()
    await turn()
  }
  return { sweep, at, set }
}
/** Bytes written by `socket`, once they left (bytesWritten counts them when written). */
const send = async (socket: Socket) => {
  await new Promise((resolve) => socket.write('x', resolve))
}

describe('IdleSweep: idle timeouts on one sweep', () => {
  it('a socket that moves bytes is not idle however long it lives; once it stops, it is told once, after its idle time', async () => {
    const { sweep, at } = swept()
    const { client } = await pair()
    let idle = 0
    sweep.watch(client, () => idle++)
    try {
      for (let t = 400; t <= 4000; t += 400) {
        await send(client)
        await at(t)
      }
      expect(idle).toBe(0)
      // The last sweep saw it move at 4000: not idle before 5000.
      await at(4999)
      expect(idle).toBe(0)
      await at(5000)
      expect(idle).toBe(1)
      // Told once per idle spell.
      await at(9000)
      expect(idle).toBe(1)
      // It moves again, then stops again: told again, an idle time later.
      await send(client)
      await at(9500)
      await at(10499)
      expect(idle).toBe(1)
      await at(10500)
      expect(idle).toBe(2)
    } finally {
      sweep.close()
      client.destroy()
    }
  })

  it('bytes read in the turn of the sweep (a loop held past the idle time) keep the socket; a closed socket is forgotten', async () => {
    const { sweep, at, set } = swept()
    const { client, peer } = await pair()
    const other = await pair()
    const told: string[] = []
    sweep.watch(client, () => told.push('client'))
    sweep.watch(other.client, () => told.push('other'))
    try {
      // As after a loop held past the idle time: the byte is in (a loopback write lands in the peer's buffer at once) and the sweep
      // runs in the timers phase of the same turn, before its poll phase reads it; the judgement comes after.
      await new Promise<void>((resolve) =>
        setTimeout(() => {
          peer.write('y')
          set(2000)
          sweep.sweep()
          setImmediate(resolve)
        }),
      )
      expect(told).toEqual(['other'])
      // The byte was read: the client's idle time counts from the sweep that saw it.
      await at(2500)
      await at(3499)
      expect(told).toEqual(['other'])
      expect(sweep.watching).toBe(2)
      other.client.destroy()
      await new Promise((resolve) => other.client.once('close', resolve))
      expect(sweep.watching).toBe(1)
      await at(3500)
      expect(told).toEqual(['other', 'client'])
    } finally {
      sweep.close()
      client.destroy()
    }
  })
})
