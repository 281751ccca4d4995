/**
 * RFC 9112 6.3 / 9110 8.6: a request's body reaches the upstream byte for byte, framed by the length the
 * proxy sends, whether the proxy writes it with its head in one buffer (a small body, all come) or in
 * writes of its own (past 64 KiB, or still coming).
 */
import { connect, createServer, type AddressInfo, type Server } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { loadContract } from '../openapi/index.ts'
import { createProxyServer, type ProxyServer } from '../proxy/server.ts'

let upstream: Server
let proxy: ProxyServer
let proxyPort: number
/** Each request's body as the upstream read it (by Content-Length). */
const bodies: Buffer[] = []

beforeAll(async () => {
  upstream = createServer((socket) => {
    let pending = Buffer.alloc(0)
    socket.on('data', (chunk: Buffer) => {
      pending = Buffer.concat([pending, chunk])
      for (;;) {
        const end = pending.indexOf('\r\n\r\n')
        if (end < 0) return
        const length = Number(/\r\ncontent-length: *(\d+)/i.exec(pending.toString('latin1', 0, end + 2))?.[1] ?? 0)
        if (pending.length < end + 4 + length) return
        bodies.push(pending.subarray(end + 4, end + 4 + length))
        pending = pending.subarray(end + 4 + length)
        socket.write('HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: 2\r\n\r\n{}')
      }
    })
  })
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve))
  proxy = createProxyServer({ upstream: `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`, contract: loadContract(), onExchange: () => undefined })
  proxyPort = Number(new URL(await proxy.listen(0)).port)
})

afterAll(async () => {
  await proxy.close()
  await new Promise((resolve) => upstream.close(resolve))
})

/** Sends one request, its body in `pieces` writes a turn apart; resolves with the answer's text. */
function post(body: Buffer, pieces: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(proxyPort, '127.0.0.1')
    let answer = ''
    socket.on('data', (chunk: Buffer) => {
      answer += chunk.toString('latin1')
      if (answer.endsWith('{}')) {
        socket.destroy()
        resolve(answer)
      }
    })
    socket.on('error', reject)
    socket.write(`POST /affiliate/crm/list HTTP/1.1\r\nhost: 127.0.0.1\r\ncontent-type: application/json\r\ncontent-length: ${body.length}\r\n\r\n`)
    const size = Math.ceil(body.length / pieces)
    let at = 0
    const next = () => {
      if (at >= body.length) return
      socket.write(body.subarray(at, (at += size)))
      setImmediate(next)
    }
    next()
  })
}

describe('shoptwin proxy: a request body reaches the upstream byte for byte (RFC 9112 6.3)', () => {
  for (const [length, pieces] of [[10, 1], [64 * 1024, 1], [64 * 1024 + 1, 1], [200_000, 1], [200_000, 7], [30_000, 5]] as const) {
    it(`${length} bytes in ${pieces} write(s)`, async () => {
      const body = Buffer.alloc(length, 0)
      for (let i = 0; i < length; i++) body[i] = 32 + ((i * 31) % 90)
      bodies.length = 0
      expect(await post(body, pieces)).toMatch(/^HTTP\/1\.1 200 /)
      expect(bodies).toHaveLength(1)
      expect(bodies[0]!.equals(body)).toBe(true)
    })
  }
})
