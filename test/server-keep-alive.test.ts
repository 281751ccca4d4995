/**
 * The standalone server's kept-alive connections, at the edge of its keep-alive window (issue 23: a
 * replica reset a POST the client had sent 2.6 s after the previous answer, within the advertised
 * `Keep-Alive: timeout=5`, because its event loop had been busy for 4 s building a shop's world and
 * node's keep-alive timer ran before the request was read). A raw node:net client, so that what the
 * server does to the connection is seen as it is (no client library retrying or pooling); the server's
 * keep-alive timer shortened to 100 ms and the loop held past it by a synchronous wait, as the world
 * build held it.
 */
import { connect, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { holdLoop } from './support/hold-loop.ts'
import { createServer, type MockServer } from '../mock/server.ts'

const KEEP_ALIVE_MS = 100
let mock: MockServer
let port: number
let shop: string

beforeAll(async () => {
  mock = createServer({ stateOptions: { seed: 42, scale: 'small', rateLimit: false } })
  await mock.listen(0, '127.0.0.1')
  mock.server.keepAliveTimeout = KEEP_ALIVE_MS
  mock.server.keepAliveTimeoutBuffer = 0
  port = (mock.server.address() as AddressInfo).port
  shop = mock.state.world.shops[0]!.shop_id
})
afterAll(async () => {
  await mock?.close()
})

const head = () => `GET /shop/sps HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\nx-api-key: demo-key\r\nx-shop-id: ${shop}\r\n`
const request = () => `${head()}\r\n`

/** A connection that reads answers one at a time; how it ended, when it did. */
function open(): Promise<{ socket: Socket; answer(): Promise<string>; ended: Promise<string> }> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1')
    let buffered = ''
    let waiting: { resolve: (text: string) => void; reject: (e: Error) => void } | undefined
    let end: string | undefined
    const ended = new Promise<string>((r) => {
      socket.on('error', (e: NodeJS.ErrnoException) => {
        end ??= `error ${e.code}`
        r(end)
      })
      socket.on('end', () => {
        end ??= 'end'
        r(end)
      })
    })
    void ended.then((how) => waiting?.reject(new Error(`connection closed before an answer: ${how}`)))
    const take = () => {
      const split = buffered.indexOf('\r\n\r\n')
      if (!waiting || split < 0) return
      const length = Number(/content-length: (\d+)/i.exec(buffered.slice(0, split))?.[1] ?? 0)
      if (buffered.length < split + 4 + length) return
      const text = buffered.slice(0, split + 4 + length)
      buffered = buffered.slice(text.length)
      const w = waiting
      waiting = undefined
      w.resolve(text)
    }
    socket.setEncoding('latin1')
    socket.on('data', (d: string) => {
      buffered += d
      take()
    })
    socket.once('connect', () =>
      resolve({
        socket,
        ended,
        answer: () =>
          new Promise((ok, fail) => {
            if (end) return fail(new Error(`connection closed before an answer: ${end}`))
            waiting = { resolve: ok, reject: fail }
            take()
          }),
      }),
    )
    socket.once('error', reject)
  })
}


/**
 * On a kept-alive connection that has been answered once: `sent` is written, then the loop is held past
 * the keep-alive timer (armed when the server finished the first answer, before the client read it),
 * then `then` runs; the connection's next answer.
 */
async function pastTheTimer(sent: string, then: (c: Awaited<ReturnType<typeof open>>) => Promise<void> = async () => {}): Promise<string> {
  const c = await open()
  try {
    c.socket.write(request())
    expect(await c.answer()).toMatch(/^HTTP\/1\.1 200 /)
    const answered = performance.now()
    c.socket.write(sent)
    holdLoop(KEEP_ALIVE_MS + 50, answered)
    await then(c)
    return await c.answer()
  } finally {
    c.socket.destroy()
  }
}

describe('kept-alive connections at the edge of the keep-alive window', () => {
  it('a request already sent when the loop wakes past the keep-alive timer is answered on that connection (node reset it)', async () => {
    expect(await pastTheTimer(request())).toMatch(/^HTTP\/1\.1 200 /)
  })

  it('a request whose first bytes are in when the timer fires keeps the connection, and is answered when the rest comes', async () => {
    const answer = await pastTheTimer(head(), async (c) => {
      // Two turns of the loop: the timer's and the next (the connection would be closed by now).
      await new Promise((r) => setImmediate(r))
      await new Promise((r) => setImmediate(r))
      c.socket.write('\r\n')
    })
    expect(answer).toMatch(/^HTTP\/1\.1 200 /)
  })

  it('an idle kept-alive connection is still closed when its keep-alive time is up, cleanly (a FIN, no reset)', async () => {
    const c = await open()
    c.socket.write(request())
    const answer = await c.answer()
    expect(answer).toMatch(/^HTTP\/1\.1 200 /)
    expect(await c.ended).toBe('end')
    c.socket.destroy()
  })
})
