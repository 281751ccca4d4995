/**
 * A Host field's value as RFC 9112 3.2 and RFC 3986 3.2.2-3.2.3 write it: `uri-host [":" port]`, where
 * the host is an IP literal in brackets or a reg-name (letters, digits, `-._~`, sub-delims,
 * percent-encoding; an IPv4 address is one too), the port digits. Empty is allowed (a target without
 * an authority). A server MUST answer 400 to a Host with an invalid value (RFC 9112 3.2): the twin
 * (mock/server.ts) and `shoptwin proxy` (proxy/server.ts) both do.
 */
export const HOST_FIELD = /^(?:\[[0-9A-Za-z:._~!$&'()*+,;=%-]+\]|[0-9A-Za-z._~!$&'()*+,;=%-]*)(?::\d*)?$/
