/**
 * The floors of a proxy written in Node on this machine, for the proxy section of `npm run bench`:
 * `tcp` pipes bytes to the upstream with no HTTP parsing at all (no Node HTTP proxy can cost less);
 * `http` is the least a node:http reverse proxy does (parse, a keep-alive agent, pipe both ways,
 * no grading, no forwarding headers); `raw` is the least an HTTP/1.1 reverse proxy on raw sockets
 * does, as `shoptwin proxy` forwards (find each head's end and its Content-Length, set Host and
 * X-Forwarded-For, keep connections alive both ways, the upstream read into one reused buffer): no
 * validation, no recording, no timeouts, no hop-by-hop headers dropped, Content-Length bodies only
 * (the bench's operations have no other). `inline` is not a floor: `shoptwin proxy` itself, grading each
 * exchange as it ends (no backlog: proxy/backlog.ts), the proxy's cost under traffic that never lets up;
 * `forward` is `shoptwin proxy`'s forwarding alone (proxy/server.ts, exchanges dropped as they end);
 * `proxy` is `shoptwin proxy` as the CLI runs it (exchanges wait to be graded in a quiet spell).
 * Usage: node bench/proxy-floor.ts tcp|http|raw|inline|forward|proxy UPSTREAM_URL PORT HOST
 */
import { Agent, createServer, request } from 'node:http'
import { connect, createServer as createNetServer, type Socket } from 'node:net'
import { loadContract } from '../openapi/index.ts'
import { startProxy } from '../proxy/index.ts'
import { createProxyServer } from '../proxy/server.ts'

const [kind, upstreamUrl, port, host = '127.0.0.1'] = process.argv.slice(2)
const upstream = new URL(upstreamUrl!)

if (kind === 'tcp') {
  createNetServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname)
    client.pipe(server).pipe(client)
    client.on('error', () => server.destroy())
    server.on('error', () => client.destroy())
  }).listen(Number(port), host)
} else if (kind === 'raw') {
  const END = Buffer.from('\r\n\r\n')
  const LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i
  const idle: Array<{ socket: Socket; owner?: (chunk: Buffer) => void }> = []
  // Reads land in one buffer, a new one when a write still holds the last chunk (the client's socket did not take it at once).
  let readBuffer = Buffer.allocUnsafe(256 * 1024)
  const acquire = () => {
    // The upstream closes a connection idle past its keep-alive timeout: such a one leaves the pool when it closes.
    const pooled = idle.pop()
    if (pooled) return pooled
    const connection: { socket: Socket; owner?: (chunk: Buffer) => void } = {
      socket: connect({ host: upstream.hostname, port: Number(upstream.port), noDelay: true, onread: { buffer: () => readBuffer, callback: (n, buffer) => (connection.owner?.((buffer as Buffer).subarray(0, n)), true) } }),
    }
    connection.socket.on('error', () => undefined).on('close', () => {
      const at = idle.indexOf(connection)
      if (at >= 0) idle.splice(at, 1)
    })
    return connection
  }
  createNetServer({ noDelay: true }, (client) => {
    let pending: Buffer | undefined
    let busy = false
    const next = () => {
      if (!pending || busy) return
      const end = pending.indexOf(END)
      if (end < 0) return
      const head = pending.toString('latin1', 0, end)
      const length = Number(LENGTH.exec(head)?.[1] ?? 0)
      if (pending.length < end + 4 + length) return
      const body = pending.subarray(end + 4, end + 4 + length)
      pending = pending.length > end + 4 + length ? pending.subarray(end + 4 + length) : undefined
      busy = true
      const connection = acquire()
      let remaining = -1
      connection.owner = (chunk) => {
        if (remaining < 0) {
          const at = chunk.indexOf(END)
          remaining = Number(LENGTH.exec(chunk.toString('latin1', 0, at))?.[1] ?? 0) - (chunk.length - at - 4)
        } else remaining -= chunk.length
        client.write(chunk)
        if (client.writableLength > 0) readBuffer = Buffer.allocUnsafe(256 * 1024)
        if (remaining > 0) return
        connection.owner = undefined
        idle.push(connection)
        busy = false
        next()
      }
      connection.socket.cork()
      connection.socket.write(`${head.replace(/\r\nhost:[^\r]*/i, '')}\r\nHost: ${upstream.host}\r\nX-Forwarded-For: ${client.remoteAddress}\r\n\r\n`, 'latin1')
      if (length) connection.socket.write(body)
      connection.socket.uncork()
    }
    client.on('data', (chunk: Buffer) => {
      pending = pending ? Buffer.concat([pending, chunk]) : chunk
      next()
    })
    client.on('error', () => undefined)
  }).listen(Number(port), host)
} else if (kind === 'forward') {
  // Not a floor either: shoptwin proxy's forwarding alone (proxy/server.ts), every exchange dropped as it ends (nothing graded, nothing kept).
  const server = createProxyServer({ upstream: upstreamUrl!, contract: loadContract(), onExchange: () => undefined })
  await server.listen(Number(port), host)
  process.once('SIGTERM', () => void server.close().then(() => process.exit(0)))
} else if (kind === 'proxy') {
  // `shoptwin proxy` as the CLI runs it: exchanges wait to be graded in a quiet spell (proxy/backlog.ts).
  const proxy = await startProxy({ upstream: upstreamUrl!, port: Number(port), host })
  process.once('SIGTERM', () => void proxy.stop().then(() => process.exit(0)))
} else if (kind === 'inline') {
  const proxy = await startProxy({ upstream: upstreamUrl!, port: Number(port), host, gradingBacklog: 0 })
  process.once('SIGTERM', () => void proxy.stop().then(() => process.exit(0)))
} else {
  const agent = new Agent({ keepAlive: true })
  createServer({ noDelay: true }, (req, res) => {
    const headers = { ...req.headers, host: upstream.host }
    delete headers.connection
    const forwarded = request({ hostname: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers, agent }, (answer) => {
      res.writeHead(answer.statusCode ?? 502, answer.headers)
      answer.pipe(res)
    })
    forwarded.on('error', () => res.destroy())
    req.pipe(forwarded)
  }).listen(Number(port), host)
}
