/**
 * A TCP proxy on 127.0.0.1:0 in front of a store whose target can be changed, as a proxy an operator
 * repoints (a load balancer, an SSH tunnel): what a replica connected to one server meets when that
 * address starts answering for another kind of store. Switching closes the connections open to the
 * old target (the client reconnects, through the proxy, to the new one).
 */
import { connect, createServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'

/** Where the proxy sends connections: a TCP port on 127.0.0.1, or a unix socket. */
export type Target = { port: number } | { path: string }

export interface TcpSwitch {
  port: number
  /** Sends new connections to `target` and closes those open now. */
  switchTo(target: Target): void
  close(): Promise<void>
}

export async function startTcpSwitch(initial: Target): Promise<TcpSwitch> {
  let target = initial
  const open = new Set<Socket>()
  const server = createServer((client) => {
    const upstream = 'path' in target ? connect(target.path) : connect(target.port, '127.0.0.1')
    for (const s of [client, upstream]) {
      open.add(s)
      s.once('close', () => open.delete(s))
      s.on('error', () => {})
    }
    client.pipe(upstream).pipe(client)
    client.once('close', () => upstream.destroy())
    upstream.once('close', () => client.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return {
    port: (server.address() as AddressInfo).port,
    switchTo(next) {
      target = next
      for (const s of open) s.destroy()
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy()
        server.close(() => resolve())
      }),
  }
}
