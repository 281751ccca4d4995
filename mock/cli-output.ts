/**
 * The CLI's stdout and stderr when their reader goes away (`shoptwin conformance --list | head -1`)
 * or cannot take more (`> /dev/full`). Node ignores SIGPIPE, so a write to a closed pipe is an
 * 'error' event on the stream, and one nobody listens to ends the process with a stack trace. Here
 * every such error is handled, and never printed as a trace:
 *
 * - A command that runs and ends (help, usage errors, `fixtures`, `conformance`, a client run of
 *   `certify-client` before its twin listens): its reader gone, the rest of its output would go
 *   nowhere, so it stops at once, silently, with exit 141 — what a shell shows for coreutils and git
 *   (killed by SIGPIPE: 128 + 13), so `set -o pipefail` scripts read it the same way, and a
 *   conformance run cut short never reads as 0 (certified). Output written whole before the reader
 *   left was never refused: that command ends as usual (`shoptwin --help | head -1` exits 0).
 * - A running server (`serve`, `proxy`, `certify-client` once its twin listens; `keepServing()`):
 *   nobody reading its output is no reason to stop serving. What it writes from then on is dropped,
 *   it serves on, and a signal stops it as usual, with its usual exit code (0 for `serve`), so
 *   `shoptwin serve --port 0 | grep -m1 listening` and a later `kill` stay clean.
 * - Any other write error (ENOSPC, EIO): one line on the other stream if it is still there, exit 2,
 *   as for any other CLI error (a server drops the stream and serves on).
 */
import type { Writable } from 'node:stream'

/** 128 + SIGPIPE (13): the status a shell shows for a command its reader left. */
export const EXIT_READER_GONE = 141

let serving = false
let installed = false

/** From here on a closed stdout or stderr does not stop the process (a server listening). */
export function keepServing(): void {
  serving = true
}

/** Listens for errors on stdout and stderr as above; once per process. */
export function handleOutputErrors(): void {
  if (installed) return
  installed = true
  process.stdout.on('error', (error: NodeJS.ErrnoException) => outputError('stdout', error))
  process.stderr.on('error', (error: NodeJS.ErrnoException) => outputError('stderr', error))
}

function outputError(name: 'stdout' | 'stderr', error: NodeJS.ErrnoException): void {
  // The stream is destroyed by now: later writes to it are dropped without another error.
  if (serving) return
  if (error.code === 'EPIPE') process.exit(EXIT_READER_GONE)
  const other: Writable = name === 'stdout' ? process.stderr : process.stdout
  if (!other.destroyed) other.write(`shoptwin: cannot write to ${name}: ${error.code ?? error.message}\n`)
  process.exit(2)
}
