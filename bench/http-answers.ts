/**
 * The least a load generator must read of an HTTP/1.1 answer on a kept-alive connection: the status
 * line, where the body ends (Content-Length, chunked, or the close) and whether the connection stays
 * open; the body's bytes are counted, never copied, decoded or kept. bench/paced.ts reads its answers
 * with it, so a fixed-rate latency measures the server, not the generator's own parsing (node:http's
 * client turns every read of a 221 KB answer into stream events and buffers).
 *
 * Not a validating parser: the servers a bench loads are trusted; a line it cannot read is an error
 * of the answer (the request counts as failed), never a guess.
 */

/** One answer read whole. */
export interface AnswerRead {
  status: number
  /** Body bytes as they came on the wire (chunked framing included). */
  bytes: number
  /** The server closes the connection after this answer (`Connection: close`, or an HTTP/1.0 answer without keep-alive). */
  close: boolean
}

const LF = 10

type State = 'head' | 'length' | 'chunk-size' | 'chunk-data' | 'chunk-data-end' | 'trailers' | 'to-close'

/**
 * Reads answers from a connection's bytes, in any split: `feed` each read; `onAnswer` is called once
 * per answer, in order (several in one read, or one over many). `noBody()` before an answer to HEAD.
 */
export class AnswerReader {
  private state: State = 'head'
  /** The head (or a chunk-size or trailer line) so far, when it spans reads. */
  private line = ''
  private status = 0
  private close = false
  private remaining = 0
  private bytes = 0
  private noBodyNext = false
  private readonly onAnswer: (answer: AnswerRead) => void

  constructor(onAnswer: (answer: AnswerRead) => void) {
    this.onAnswer = onAnswer
  }

  /** Whether an answer has begun and not ended (a close now cuts it, unless it is read to the close). */
  get midAnswer(): boolean {
    return this.state !== 'head' || this.line.length > 0
  }

  /** The connection closed: true when that ended an answer read to the close (`onAnswer` was called), false when no answer ended. */
  end(): boolean {
    if (this.state !== 'to-close') return false
    this.done()
    return true
  }

  feed(data: Buffer): void {
    let at = 0
    while (at < data.length) {
      switch (this.state) {
        case 'head': {
          const end = data.indexOf('\r\n\r\n', at, 'latin1')
          // A head split between reads: its end may straddle them, so the text so far is searched again.
          if (end < 0 || this.line) {
            this.line += data.toString('latin1', at, end < 0 ? data.length : end + 4)
            const whole = this.line.indexOf('\r\n\r\n')
            if (whole < 0) return
            const consumed = this.line.length - whole - 4
            at = (end < 0 ? data.length : end + 4) - consumed
            this.head(this.line.slice(0, whole))
            this.line = ''
          } else {
            this.head(data.toString('latin1', at, end))
            at = end + 4
          }
          break
        }
        case 'length':
        case 'chunk-data': {
          // Counted bytes of a body (or of a chunk): what is left of it in this read.
          const take = Math.min(this.remaining, data.length - at)
          this.remaining -= take
          this.bytes += take
          at += take
          if (this.remaining > 0) break
          if (this.state === 'length') this.done()
          else this.state = 'chunk-data-end'
          break
        }
        case 'to-close':
          this.bytes += data.length - at
          return
        default: {
          // A line: a chunk's size, the CR LF after its data, or a trailer (an empty one ends the answer).
          const lf = data.indexOf(LF, at)
          const end = lf < 0 ? data.length : lf + 1
          this.bytes += end - at
          this.line += data.toString('latin1', at, end)
          at = end
          if (lf < 0) return
          const text = this.line.endsWith('\r\n') ? this.line.slice(0, -2) : ''
          if (!this.line.endsWith('\r\n')) throw new Error('a chunk line does not end in CR LF')
          this.line = ''
          this.lineRead(text)
        }
      }
    }
  }

  private lineRead(text: string): void {
    if (this.state === 'chunk-data-end') {
      if (text !== '') throw new Error('chunk data is not followed by CR LF')
      this.state = 'chunk-size'
    } else if (this.state === 'chunk-size') {
      const size = /^([0-9a-fA-F]+)(?:[ \t]*;.*)?$/.exec(text)
      if (!size) throw new Error(`a chunk size cannot be read: ${JSON.stringify(text.slice(0, 40))}`)
      this.remaining = parseInt(size[1]!, 16)
      this.state = this.remaining === 0 ? 'trailers' : 'chunk-data'
    } else if (text === '') this.done() // the empty line after the trailers
  }

  /** The next answer is to a HEAD request: it has no body whatever its head says. */
  noBody(): void {
    this.noBodyNext = true
  }

  private head(text: string): void {
    const status = /^HTTP\/1\.([01]) (\d{3})(?: |$)/.exec(text)
    if (!status) throw new Error(`not an HTTP/1.x status line: ${JSON.stringify(text.slice(0, 40))}`)
    const code = Number(status[2])
    // 1xx: interim (100 Continue); the answer follows.
    if (code < 200) return
    let length: number | undefined
    let chunked = false
    let connection = ''
    for (const line of text.split('\r\n').slice(1)) {
      const colon = line.indexOf(':')
      const name = line.slice(0, colon).toLowerCase()
      const value = line.slice(colon + 1).trim()
      if (name === 'content-length') length = Number(value)
      else if (name === 'transfer-encoding') chunked = /(?:^|,)\s*chunked\s*$/i.test(value)
      else if (name === 'connection') connection = value.toLowerCase()
    }
    this.status = code
    this.bytes = 0
    this.close = status[1] === '0' ? !/\bkeep-alive\b/.test(connection) : /\bclose\b/.test(connection)
    const noBody = this.noBodyNext || code === 204 || code === 304
    this.noBodyNext = false
    if (noBody) return this.done()
    if (chunked) this.state = 'chunk-size'
    else if (length !== undefined) {
      if (!Number.isSafeInteger(length) || length < 0) throw new Error(`a Content-Length cannot be read: ${length}`)
      this.remaining = length
      this.state = 'length'
      if (length === 0) this.done()
    } else {
      this.state = 'to-close'
      this.close = true
    }
  }

  private done(): void {
    this.state = 'head'
    this.onAnswer({ status: this.status, bytes: this.bytes, close: this.close })
  }
}
