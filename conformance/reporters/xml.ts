/**
 * XML 1.0 for the JUnit files CI systems parse (Jenkins, GitLab, GitHub actions, Azure): text and
 * attribute values escaped; characters XML 1.0 cannot hold at all, even escaped, dropped (controls
 * other than tab, LF and CR, lone surrogates, U+FFFE and U+FFFF: a server's answer or a client's body
 * quoted in a finding may carry them, and one such character makes the whole file unreadable); a
 * comment never holds `--`.
 */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu
const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' }

export const xmlText = (s: string): string => s.replace(NOT_XML, '').replace(/[&<>"']/g, (c) => ENTITIES[c]!)

export const xmlComment = (s: string): string => `<!-- ${s.replace(NOT_XML, '').replace(/-(?=-)/g, '- ')} -->`
