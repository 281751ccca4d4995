/**
 * The floors of a proxy written in Node on this machine, for the proxy section of `npm run bench`:
 * `tcp` pipes bytes to the upstream with no HTTP parsing at all (no Node HTTP proxy can cost less);
 * `http` is the least a node:http reverse proxy does (parse, a keep-alive agent, pipe both ways,
 * no grading, no forwarding headers). `inline` is not a floor: `shoptwin proxy` itself, grading each
 * exchange as it ends (no backlog: proxy/backlog.ts), the proxy's cost under traffic that never lets up.
 * Usage: node bench/proxy-floor.ts tcp|http|inline UPSTREAM_URL PORT HOST
 */
import { Agent, createServer, request } from 'node:http'
import { connect, createServer as createNetServer } from 'node:net'
import { startProxy } from '../proxy/index.ts'

const [kind, upstreamUrl, port, host = '127.0.0.1'] = process.argv.slice(2)
const upstream = new URL(upstreamUrl!)

if (kind === 'tcp') {
  createNetServer((client) => {
    const server = connect(Number(upstream.port), upstream.hostname)
    client.pipe(server).pipe(client)
    client.on('error', () => server.destroy())
    server.on('error', () => client.destroy())
  }).listen(Number(port), host)
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
