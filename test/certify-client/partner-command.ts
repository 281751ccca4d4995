/**
 * The reference partner client as a command for `shoptwin certify-client -- node test/certify-client/partner-command.ts`:
 * it reads the twin from the environment and waits on the real clock (about half a minute under the
 * standard profile). `PARTNER_BREAKS=<rule id>` runs the variant that breaks that rule.
 */
import { runIntegration } from './partner-client.ts'

const env = (name: string): string => {
  const value = process.env[name]
  if (!value) throw new Error(`${name} is not set: run me under shoptwin certify-client`)
  return value
}

const seen = await runIntegration({
  baseUrl: env('SHOPTWIN_BASE_URL'),
  apiKey: env('SHOPTWIN_API_KEY'),
  shopId: env('SHOPTWIN_SHOP_ID'),
  sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
  now: () => Date.now(),
  ...(process.env.PARTNER_BREAKS && { breaks: process.env.PARTNER_BREAKS }),
})
console.log(`partner sync: ${seen.samples} sample requests read, ${seen.automations} automations created, halo polled ${seen.haloPolls} times`)
