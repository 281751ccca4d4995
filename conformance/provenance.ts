/**
 * A rule's level is its provenance (spec: the whole document is the only source). A MUST rule
 * carries the spec's own words in `quote`, copied verbatim from the service document; a rule whose
 * threshold or behaviour is our inference is SHOULD and says why in `inferred`. Reporters show both.
 * test/rule-quotes.test.ts checks every rule (server, client, connector) against the document.
 */

/** A sentence a rule enforces: the service document's words, or another standard's (an RFC) named by `source`. */
export type Quote = string | { source: string; text: string }

export interface Provenance {
  /** The sentence(s) the rule enforces, verbatim; a MUST rule has at least one from the service document. */
  quote: readonly Quote[]
  /** Set on a SHOULD rule: what of it is our inference, and why (the report says "inferred" and this). */
  inferred?: string
}

/** The quotes taken from the service document (not an RFC's). */
export const specQuotes = (p: Provenance): string[] => p.quote.filter((q): q is string => typeof q === 'string')

/** `inferred: <why>` for a report line, or '' for a rule the spec states. */
export const inferredNote = (p: { inferred?: string }): string => (p.inferred ? `inferred: ${p.inferred}` : '')

/** A quote as a report shows it: `"…"` or `RFC 6749 4.1.2: "…"`. */
export const quoteText = (q: Quote): string => (typeof q === 'string' ? `“${q}”` : `${q.source}: “${q.text}”`)
