/**
 * Which process listens on a TCP port, for the one line `shoptwin serve` prints on EADDRINUSE. Best
 * effort and Linux only (/proc/net/tcp{,6} give the listening socket's inode, /proc/<pid>/fd the
 * process holding it); elsewhere, or for another user's process, it finds nothing and the line says less.
 */
import { readdirSync, readFileSync, readlinkSync } from 'node:fs'

/** `pid 1234 (node mock/cli.ts serve)`, or undefined when it cannot be told. */
export function portHolder(port: number): string | undefined {
  try {
    const inodes = new Set<string>()
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      let text: string
      try {
        text = readFileSync(table, 'utf8')
      } catch {
        continue
      }
      for (const line of text.split('\n').slice(1)) {
        const fields = line.trim().split(/\s+/)
        // local_address is HEXIP:HEXPORT; state 0A is LISTEN; field 9 the socket's inode.
        if (fields.length > 9 && fields[3] === '0A' && Number.parseInt(fields[1]!.split(':')[1]!, 16) === port) inodes.add(fields[9]!)
      }
    }
    if (!inodes.size) return undefined
    for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
      let fds: string[]
      try {
        fds = readdirSync(`/proc/${pid}/fd`)
      } catch {
        continue
      }
      for (const fd of fds) {
        let target: string
        try {
          target = readlinkSync(`/proc/${pid}/fd/${fd}`)
        } catch {
          continue
        }
        const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1]
        if (inode && inodes.has(inode)) {
          const command = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0').filter(Boolean).join(' ')
          return `pid ${pid}${command ? ` (${command.length > 120 ? `${command.slice(0, 117)}...` : command})` : ''}`
        }
      }
    }
  } catch {
    // Best effort: no /proc, no permission.
  }
  return undefined
}

/** The one line for a port already in use. */
export function portInUseMessage(host: string, port: number): string {
  const holder = portHolder(port)
  return `port ${port} on ${host} is already in use${holder ? ` by ${holder}` : ''}: stop it, pick another --port, or --port 0 for any free port`
}
