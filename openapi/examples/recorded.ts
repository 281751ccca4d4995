/**
 * The examples recorded by openapi/examples/generate.ts (recorded.json, committed data), as the
 * contract's builder reads them: one request and answer per operation, and an answer per error response.
 */
import recorded from './recorded.json' with { type: 'json' }

export interface RecordedRequest {
  body?: Record<string, unknown>
  query?: Record<string, unknown>
  path?: Record<string, string>
  headers?: Record<string, string>
}

export interface RecordedExample {
  summary: string
  request: RecordedRequest
  response: { status: number; body: unknown }
}

export interface RecordedExamples {
  world: { seed: number; scale: string; today: string; now: string }
  operations: Record<string, RecordedExample>
  /** Error answers by response component (BadRequest, Unauthorized...). */
  errors: Record<string, { summary: string; body: { error: string } }>
}

export const recordedExamples = recorded as unknown as RecordedExamples

/** Where the examples come from, said beside each one. */
export const RECORDED_NOTE = `Recorded from the mock on the seeded demo world (seed ${recordedExamples.world.seed}, scale ${recordedExamples.world.scale}, today ${recordedExamples.world.today}, clock ${recordedExamples.world.now}); arrays cut to their first 3 items.`
