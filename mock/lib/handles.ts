/**
 * Creator handles. The spec has three different rules for them; one function per rule, named for
 * it (they must not be merged: a lookup key accepts what a list refuses).
 */

/** A handle as an exact, case-insensitive lookup key: trimmed, a leading `@` dropped, lowercased (social ads, samples). */
export const handleKey = (handle: string): string => handle.trim().replace(/^@/, '').toLowerCase()

/** True when a handle filter narrows something: a blank or absent one matches every handle (handleContains). */
export const isHandleFilter = (query: unknown): query is string => typeof query === 'string' && query.trim() !== ''

/** A handle filter: case-insensitive substring, a leading `@` ignored; blank or absent matches every handle. */
export function handleContains(handle: string, query: unknown): boolean {
  if (!isHandleFilter(query)) return true
  return handle.toLowerCase().includes(handleKey(query))
}

// spec: Rules of the named resources: Lists: handles validated against [a-z0-9._], at most 30 characters.
const LIST_HANDLE = /^[a-z0-9._]{1,30}$/

/** A handle of a named resource (lists, tags, community): the lookup key when it is valid, undefined otherwise. */
export function listHandle(raw: string): string | undefined {
  const handle = handleKey(raw)
  return LIST_HANDLE.test(handle) ? handle : undefined
}
