/**
 * The conformance suite from code (`import { runConformance } from 'shoptwin/conformance'`): run
 * the rules against a target and get the report as data — the same verdict, outcomes and coverage
 * the CLI prints and writes.
 */
// First: on a Node older than engines.node, one line and exit (openapi/node-version.ts).
import '../openapi/node-version.ts'
import { loadContract } from '../openapi/index.ts'
import { redactText } from './client.ts'
import { buildReport, type RunReport } from './report.ts'
import { runSelectedRules, type RunEvents } from './runner/run-rules.ts'
import type { RunOptions } from './types.ts'

export { catalogue, selectRules } from './catalogue.ts'
export { htmlReport } from './reporters/html.ts'
export { junitReport } from './reporters/junit.ts'
export type { RunReport } from './report.ts'
export type { Rule, RuleOutcome, RunOptions } from './types.ts'
export type { RunEvents } from './runner/run-rules.ts'
// Client certification in process (the CLI is `shoptwin certify-client`): a session on a mock state, then the grade.
export { startCertification, type CertificationSession, type Recording } from './certify-client/session.ts'
export { gradeRecording, type ClientReport, type ClientRuleOutcome } from './certify-client/grade.ts'
export { PROFILES, loadProfile, type Profile } from './certify-client/profile.ts'
export { clientRules } from './certify-client/rules/index.ts'
export { clientHtml, clientJson, clientJunit } from './certify-client/reporters.ts'

export interface ConformanceOptions extends Partial<Omit<RunOptions, 'baseUrl' | 'apiKey' | 'shopId'>> {
  baseUrl: string
  apiKey: string
  shopId: string
}

/** Runs the selected rules (default: all) against `options.baseUrl`; resolves to the report. */
export async function runConformance(options: ConformanceOptions, hooks: RunEvents = {}): Promise<RunReport> {
  const full: RunOptions = { allowWrites: false, rules: [], rps: 8, haloBoundSeconds: 60, ruleTimeoutSeconds: 120, ...options }
  const secrets = [full.apiKey, full.enterpriseApiKey, full.limitedApiKey].filter((s): s is string => Boolean(s))
  const startedAt = new Date()
  const { outcomes, runErrors } = await runSelectedRules(full, hooks)
  return buildReport(loadContract(), full, outcomes, runErrors.map((e) => redactText(e, secrets)), startedAt)
}
