/** A JSON object parsed from a request body, or undefined when the body is empty, not JSON or not an object. */
export function safeJson(text: string): Record<string, any> | undefined {
  if (!text) return undefined
  try {
    const value = JSON.parse(text) as unknown
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, any>) : undefined
  } catch {
    return undefined
  }
}
