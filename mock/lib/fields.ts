/** What a caller's object has that the reader does not take, said in one line (`the clock takes now, advance_ms…; unknown field: advance`); undefined when nothing. A misspelt field would otherwise do nothing, silently. */
export function unknownFieldsProblem(value: object, known: readonly string[], what: string): string | undefined {
  const unknown = Object.keys(value).filter((name) => !known.includes(name))
  return unknown.length ? `${what} takes ${known.join(', ')}; unknown field${unknown.length > 1 ? 's' : ''}: ${unknown.join(', ')}` : undefined
}
