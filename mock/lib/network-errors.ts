/**
 * A network error's code as a line a person can act on. Most codes speak for themselves (ECONNREFUSED,
 * ETIMEDOUT); a server certificate this machine does not trust (a staging server's own CA, a
 * self-signed one, one expired or made for another name) gets what is wrong and what to do: Node trusts
 * the CAs it ships and those NODE_EXTRA_CA_CERTS names, read when the process starts.
 */
const CERTIFICATE_PROBLEMS: Record<string, string> = {
  DEPTH_ZERO_SELF_SIGNED_CERT: 'is self-signed',
  SELF_SIGNED_CERT_IN_CHAIN: 'chains to a self-signed root this machine does not trust',
  UNABLE_TO_VERIFY_LEAF_SIGNATURE: 'is signed by an issuer this machine does not know',
  UNABLE_TO_GET_ISSUER_CERT: 'is signed by an issuer this machine does not know',
  UNABLE_TO_GET_ISSUER_CERT_LOCALLY: 'is signed by an issuer this machine does not know',
  CERT_UNTRUSTED: 'is not trusted for this use',
  CERT_HAS_EXPIRED: 'has expired',
  CERT_NOT_YET_VALID: 'is not valid yet (or this machine\'s clock is behind)',
  ERR_TLS_CERT_ALTNAME_INVALID: 'is made for another host name',
}

/** Codes a trusted CA would not fix: the server must present another certificate. */
const NOT_A_TRUST_PROBLEM = new Set(['CERT_HAS_EXPIRED', 'CERT_NOT_YET_VALID', 'ERR_TLS_CERT_ALTNAME_INVALID'])

/** `code`, or for a certificate problem `code: the server's TLS certificate is self-signed; …what to do`. */
export function networkErrorText(code: string): string {
  const problem = CERTIFICATE_PROBLEMS[code]
  if (!problem) return code
  const todo = NOT_A_TRUST_PROBLEM.has(code) ? 'the server must present a valid one for the name in the URL' : 'if you trust it, start shoptwin with NODE_EXTRA_CA_CERTS=/path/to/its-ca.pem'
  return `${code}: the server's TLS certificate ${problem}; ${todo}`
}
