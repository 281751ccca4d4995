/**
 * spec: What the service does (the assistant connector). The official MCP conformance suite
 * (@modelcontextprotocol/conformance, server mode) against the connector, with the expected-failures
 * baseline of mock/connector/conformance/expected-failures.yml (features not offered, one reason each).
 */
import { describe, expect, it } from 'vitest'
import { runMcpConformance } from '../mock/connector/conformance/run-mcp-suite.ts'

describe('connector: the official MCP conformance suite', () => {
  it('every scenario passes except the baseline of features not offered, and the baseline is current', async () => {
    const { code, output } = await runMcpConformance()
    expect(output).toContain('Baseline check passed')
    for (const scenario of ['server-initialize', 'ping', 'tools-list', 'tools-call-simple-text', 'tools-call-error', 'dns-rebinding-protection']) expect(output).toMatch(new RegExp(`✓ ${scenario}: \\d+ passed, 0 failed`))
    expect(code).toBe(0)
  }, 120_000)
})
