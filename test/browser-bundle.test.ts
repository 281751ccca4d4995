import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

describe('shoptwin/mock in the browser (MSW setupWorker)', () => {
  it('the browser entry bundles for the browser platform with no Node built-in (mock/browser.ts)', async () => {
    const result = await build({
      entryPoints: [new URL('../mock/browser.ts', import.meta.url).pathname],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      metafile: true,
    })
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.filter((i) => i.startsWith('node:'))).toEqual([])
    // The contract travels inside the bundle, as a JSON module.
    expect(inputs.some((i) => i.endsWith('openapi/openapi.json'))).toBe(true)
    expect(result.outputFiles[0]!.text.length).toBeGreaterThan(0)
  })
})
