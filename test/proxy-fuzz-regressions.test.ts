/**
 * What the proxy's fuzz tests (test/proxy-fuzz-client.test.ts, test/proxy-fuzz-upstream.test.ts) found,
 * each as a fixed case: the input, and what the proxy must do with it now. The upstream is a raw server
 * that frames requests strictly (test/support/http1-wire.ts) and answers each by its path: the default
 * a 200 naming the path, or the bytes a case sets. Loopback, port 0; the proxy's timers small.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startProxy, type RunningProxy } from '../proxy/index.ts'
import { proxyHtml, proxyJson, proxyJunit } from '../proxy/reporters.ts'
import { field, readAnswers, strictUpstream, talk, type ParsedRequest } from './support/http1-wire.ts'

const IDLE_MS = 60
const UPSTREAM_MS = 200

/** Requests the upstream framed, in order, with the connection (its number) each came on. */
const seen: Array<{ request: ParsedRequest; connection: number }> = []
const upstreamErrors: string[] = []
/** Answers by path: the pieces written one turn apart. */
const answers = new Map<string, Array<string | Buffer>>()
const thrown: unknown[] = []
const onUncaught = (error: unknown) => void thrown.push(error)
let upstream: Awaited<ReturnType<typeof strictUpstream>>
let proxy: RunningProxy

beforeAll(async () => {
  process.on('uncaughtException', onUncaught)
  upstream = await strictUpstream(async (request, socket, connection) => {
    seen.push({ request, connection })
    const path = request.target
    for (const piece of answers.get(path) ?? [`HTTP/1.1 200 OK\r\nX-Seen: ${path}\r\nContent-Length: ${path.length}\r\n\r\n${request.method === 'HEAD' ? '' : path}`]) {
      socket.write(piece)
      await new Promise((resolve) => setImmediate(resolve))
    }
  }, upstreamErrors)
  proxy = await startProxy({ upstream: upstream.url, timeoutMs: UPSTREAM_MS, clientIdleMs: IDLE_MS, gradingBacklog: 0 })
})

afterAll(async () => {
  process.off('uncaughtException', onUncaught)
  await proxy.stop()
  await upstream.close()
  expect(upstreamErrors).toEqual([])
  expect(thrown).toEqual([])
})

/** Writes each part in its own turn, then half-closes (`end`) or waits for the proxy to close; the bytes read. */
async function exchange(parts: string[], ending: 'end' | 'wait' = 'end'): Promise<Buffer> {
  const bytes = parts.map((part) => Buffer.from(part, 'latin1'))
  const points = bytes.slice(0, -1).map((_, i) => bytes.slice(0, i + 1).reduce((n, b) => n + b.length, 0))
  return (await talk(proxy.url, Buffer.concat(bytes), points, ending, 5_000)).received
}

const targets = () => seen.map((s) => s.request.target)
const errorOf = (body: Buffer) => (JSON.parse(body.toString('utf8')) as { error: string }).error

describe('the proxy fuzz findings, the client side', () => {
  it('a malformed chunk after the request went on: 400 {"error"}, its upstream request cut, nothing thrown (it threw out of the socket handler)', async () => {
    seen.length = 0
    const got = readAnswers(await exchange(['POST /c1 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n', 'zz\r\nxyz\r\n0\r\n\r\n'], 'wait'), () => false)
    expect(got.map((a) => a.status)).toEqual([400])
    expect(errorOf(got[0]!.body)).toMatch(/invalid chunk size/)
    expect(targets()).toEqual([])
    expect(thrown).toEqual([])
  })

  it('a refused HEAD gets its {"error"} length but no body (the body was read as the next answer)', async () => {
    for (const request of ['HEAD /c2 HTTP/1.1\r\nHost: h\r\nX-C: a\x01b\r\n\r\n', '\r\nHEAD /c2 HTTP/1.1\r\nHost: h\r\nBad Name: x\r\n\r\n']) {
      const text = (await exchange([request])).toString('latin1')
      expect(text).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/)
      expect(Number(/\r\nContent-Length: (\d+)/.exec(text)![1])).toBeGreaterThan(0)
      expect(text.endsWith('\r\n\r\n')).toBe(true)
    }
  })

  it('pipelined requests then a half-close: every request that came whole is answered, in order (the second was dropped)', async () => {
    seen.length = 0
    const got = readAnswers(await exchange(['GET /c3a HTTP/1.1\r\nHost: h\r\n\r\nGET /c3b HTTP/1.1\r\nHost: h\r\n\r\nGET /c3c HTTP/1.1\r\nHost: h\r\n\r\n']), () => false)
    expect(got.map((a) => field(a.fields, 'x-seen')[0])).toEqual(['/c3a', '/c3b', '/c3c'])
  })

  it('a body that stops coming: 408 {"error"} when the client falls idle, not the 504 of an upstream waiting for it', async () => {
    const got = readAnswers(await exchange(['POST /c4 HTTP/1.1\r\nHost: h\r\nContent-Length: 10\r\n\r\nabc'], 'wait'), () => false)
    expect(got.map((a) => a.status)).toEqual([408])
    expect(errorOf(got[0]!.body)).toMatch(/the request body stopped coming/)
  })

  it('after an answer that closes (Connection: close, HTTP/1.0, HTTP/1.0 with Transfer-Encoding, close with keep-alive), what comes later is not forwarded', async () => {
    seen.length = 0
    for (const first of [
      'GET /c5 HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n',
      'GET /c5 HTTP/1.0\r\nHost: h\r\n\r\n',
      'POST /c5 HTTP/1.0\r\nHost: h\r\nConnection: keep-alive\r\nTransfer-Encoding: chunked\r\n\r\n1\r\na\r\n0\r\n\r\n',
      'GET /c5 HTTP/1.0\r\nHost: h\r\nConnection: close\r\nConnection: keep-alive\r\n\r\n',
    ]) {
      const got = readAnswers(await exchange([first, 'GET /c5-after HTTP/1.1\r\nHost: h\r\n\r\n'], 'wait'), () => false)
      expect(got.map((a) => a.status)).toEqual([200])
    }
    expect(targets()).toEqual(['/c5', '/c5', '/c5', '/c5'])
  })

  it('Content-Length "3, 3" or 003 goes on as the length framed, one decimal value', async () => {
    seen.length = 0
    await exchange(['POST /c6 HTTP/1.1\r\nHost: h\r\nContent-Length: 3, 3\r\n\r\nabcPOST /c6 HTTP/1.1\r\nHost: h\r\nContent-Length: 003\r\n\r\nxyz'])
    expect(seen.map((s) => field(s.request.fields, 'content-length'))).toEqual([['3'], ['3']])
    expect(seen.map((s) => s.request.body.toString())).toEqual(['abc', 'xyz'])
  })

  it('a chunk extension or trailer a strict server refuses is refused (it went on as it came)', async () => {
    seen.length = 0
    for (const body of ['3;a\x01b\r\nabc\r\n0\r\n\r\n', '3;a\rb\r\nabc\r\n0\r\n\r\n', '3;\r\nabc\r\n0\r\n\r\n', '3\r\nabc\r\n0\r\nX-T: a\r\n b\r\n\r\n', '3\r\nabc\r\n0\r\nBad Name: x\r\n\r\n']) {
      const got = readAnswers(await exchange([`POST /c7 HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n${body}`], 'wait'), () => false)
      expect(got.map((a) => a.status), JSON.stringify(body)).toEqual([400])
    }
    // Extensions as RFC 9112 7.1.1 writes them go on.
    await exchange(['POST /c7-ok HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n3 ; a = b;q="x \\"y"\r\nabc\r\n0\r\nX-T: t\r\n\r\n'])
    expect(seen.map((s) => [s.request.target, s.request.body.toString()])).toEqual([['/c7-ok', 'abc']])
  })

  it('an HTTP/1.1 request without Host, or any with two, is 400 (RFC 9112 3.2); HTTP/1.0 without Host goes on', async () => {
    seen.length = 0
    for (const request of ['GET /c8 HTTP/1.1\r\nX-A: 1\r\n\r\n', 'GET /c8 HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n', 'GET /c8 HTTP/1.0\r\nHost: a\r\nhost: b\r\n\r\n']) {
      const got = readAnswers(await exchange([request]), () => false)
      expect(got.map((a) => a.status), request).toEqual([400])
    }
    await exchange(['GET /c8-ok HTTP/1.0\r\n\r\n'])
    expect(targets()).toEqual(['/c8-ok'])
  })

  it('a key sent twice, or echoed in a body or a query, is in no report (each part of the joined value is a secret)', async () => {
    const keys = ['sk_regress_first_1', 'sk_regress_second_2', 'tok_regress_bearer_3']
    const body = `{"key":"${keys[1]}"}`
    await exchange([`POST /account/shops?k=${keys[0]} HTTP/1.1\r\nHost: h\r\nX-API-Key: ${keys[0]}\r\nX-API-Key: ${keys[1]}\r\nAuthorization: Bearer ${keys[2]}\r\nContent-Length: ${body.length}\r\n\r\n${body}`])
    const report = proxy.report()
    for (const text of [proxyJson(report), proxyJunit(report), proxyHtml(report)]) for (const key of keys) expect(text).not.toContain(key)
  })
})

describe('the proxy fuzz findings, the upstream side', () => {
  it('an answer saying Connection: close: its upstream connection is not reused', async () => {
    seen.length = 0
    answers.set('/u1', ['HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 2\r\n\r\nok'])
    const got = readAnswers(await exchange(['GET /u1 HTTP/1.1\r\nHost: h\r\n\r\n', 'GET /u1-next HTTP/1.1\r\nHost: h\r\n\r\n']), () => false)
    expect(got.map((a) => a.status)).toEqual([200, 200])
    expect(seen[0]!.connection).not.toBe(seen[1]!.connection)
  })

  it('bytes an upstream sends after its answer are never read as the next pipelined request\'s answer', async () => {
    for (const extra of ['HTTP/1.1 200 OK\r\nX-Seen: smuggled\r\nContent-Length: 9\r\n\r\nsmuggled!', 'stray']) {
      answers.set('/u2', ['HTTP/1.1 200 OK\r\nX-Seen: /u2\r\nContent-Length: 2\r\n\r\nok', extra])
      answers.set('/u2-204', ['HTTP/1.1 204 No Content\r\nX-Seen: /u2-204\r\n\r\n', extra])
      const got = readAnswers(await exchange(['GET /u2 HTTP/1.1\r\nHost: h\r\n\r\nGET /u2-204 HTTP/1.1\r\nHost: h\r\n\r\nGET /u2-next HTTP/1.1\r\nHost: h\r\n\r\n']), () => false)
      expect(got.map((a) => field(a.fields, 'x-seen')[0])).toEqual(['/u2', '/u2-204', '/u2-next'])
    }
  })

  it('an answer whose first read holds a bad chunk: 502 {"error"} before any byte (the client was cut with nothing); a head already out is cut, not lost', async () => {
    answers.set('/u4', ['HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n0\r\n\r\n'])
    const got = readAnswers(await exchange(['GET /u4 HTTP/1.1\r\nHost: h\r\n\r\n']), () => false)
    expect(got.map((a) => a.status)).toEqual([502])
    expect(errorOf(got[0]!.body)).toMatch(/invalid chunk size/)
    // Connection: close takes the way that writes the head apart: it reaches the client, then the cut.
    answers.set('/u5', ['HTTP/1.1 201 Created\r\nConnection: close\r\nTransfer-Encoding: chunked\r\n\r\n2\r\nok\r\nzz\r\n'])
    const text = (await exchange(['GET /u5 HTTP/1.1\r\nHost: h\r\n\r\n'])).toString('latin1')
    expect(text).toMatch(/^HTTP\/1\.1 201 Created\r\n/)
    expect(text).not.toMatch(/\r\n0\r\n\r\n$/)
  })

  it('an answer with a Content-Length list, or a head over 64 KiB: 502 {"error"} naming the answer', async () => {
    answers.set('/u6', ['HTTP/1.1 200 OK\r\nContent-Length: 2, 2\r\n\r\nok'])
    answers.set('/u7', [`HTTP/1.1 200 OK\r\nX-Big: ${'b'.repeat(70_000)}\r\nContent-Length: 2\r\n\r\nok`])
    const got = readAnswers(await exchange(['GET /u6 HTTP/1.1\r\nHost: h\r\n\r\nGET /u7 HTTP/1.1\r\nHost: h\r\n\r\n']), () => false)
    expect(got.map((a) => a.status)).toEqual([502, 502])
    expect(errorOf(got[0]!.body)).toMatch(/the answer has more than one Content-Length/)
    expect(errorOf(got[1]!.body)).toMatch(/its answer's head is over 64 KiB/)
  })
})
