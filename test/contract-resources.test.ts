import { describe, expect, it } from 'vitest'
import { loadDocument } from '../openapi/index.ts'

type SchemaObject = { type?: string | string[]; anyOf?: SchemaObject[]; enum?: unknown[]; properties?: Record<string, SchemaObject>; required?: string[]; $ref?: string }
const schemas = loadDocument().components.schemas as Record<string, SchemaObject>

/** "Resources and their fields" → the component schema that describes each. */
const resources: Array<[resource: string, schema: string]> = [
  ['Shop', 'Shop'], ['Product', 'Product'], ['SKU', 'Sku'],
  ['Product timeseries row', 'ProductTimeseriesRow'], ['SKU timeseries row', 'SkuTimeseriesRow'],
  ['Stat entry (shop stats)', 'StatEntry'], ['Affiliate (CRM row)', 'Affiliate'], ['Affiliate timeseries row', 'AffiliateTimeseriesRow'],
  ['Video', 'Video'], ['Video timeseries row', 'VideoTimeseriesRow'], ['Slideshow', 'Slideshow'], ['Slideshow timeseries row', 'SlideshowTimeseriesRow'],
  ['LIVE stream', 'LiveStream'], ['Sponsored-video code (spark ad)', 'SparkCode'], ['Sales-max ad campaign', 'AdCampaign'],
  ['Sales-max creative (per video)', 'AdCreative'], ['Excluded creative', 'ExcludedCreative'], ['Boost session', 'BoostSession'],
  ['Sample request', 'SampleRequest'], ['Refundable sample request', 'RefundableSampleRequest'], ['Dashboard', 'Dashboard'],
  ['Dashboard widget', 'DashboardWidget'], ['Off-platform sales report (halo effect)', 'HaloReport'],
  ['Creator program (social partnership ads)', 'CreatorProgram'], ['Program creator', 'ProgramCreator'], ['Idempotency record', 'IdempotencyRecord'],
  ['Automation (outreach)', 'Automation'], ['Group', 'CrmGroup'], ['Workflow', 'Workflow'], ['Creator brief', 'CreatorBrief'], ['Community campaign', 'CommunityCampaign'],
]

const isNullable = (s: SchemaObject | undefined): boolean =>
  !!s && ((Array.isArray(s.type) && s.type.includes('null')) || !!s.anyOf?.some((a) => a.type === 'null') || !!s.enum?.includes(null))

/** Fields the spec says may be null ("or null", "null when ..."), and fields it gives as plain types. */
const nullableFields: Array<[schema: string, field: string]> = [
  ['Sku', 'custom_cogs'], ['Affiliate', 'last_post'], ['Affiliate', 'last_live'], ['Affiliate', 'email'], ['Affiliate', 'phone_number'],
  ['Affiliate', 'gender'], ['Affiliate', 'age'], ['Affiliate', 'race'], ['Affiliate', 'body_type'], ['Affiliate', 'economic_status'],
  ['Video', 'campaign_id'], ['LiveStream', 'campaign_id'], ['SparkCode', 'video_id'], ['SparkCode', 'auth_start_time'], ['SparkCode', 'auth_end_time'],
  ['SparkCode', 'status'], ['SparkCode', 'ad_spend'], ['SparkCode', 'roi'], ['SparkCode', 'cpa'], ['SparkCode', 'video_data'],
  ['AdCampaign', 'campaign_name'], ['AdCampaign', 'operation_status'], ['AdCampaign', 'schedule_type'], ['AdCampaign', 'schedule_start_time'],
  ['AdCampaign', 'schedule_end_time'], ['AdCampaign', 'product_specific_type'], ['AdCampaign', 'store_id'],
  ['AdCreative', 'product_id'], ['AdCreative', 'status'], ['AdCreative', 'date_posted'], ['AdCreative', 'handle'],
  ['ExcludedCreative', 'campaign_name'], ['ExcludedCreative', 'ctr'], ['BoostSession', 'exit_reason'],
  ['SampleRequest', 'campaign_id'], ['SampleRequest', 'sample_approved'], ['SampleRequest', 'sample_received'],
  ['Dashboard', 'default_date_range'], ['Dashboard', 'default_grain'], ['DashboardWidget', 'title'], ['DashboardWidget', 'col'],
  ['ProgramCreator', 'handle'], ['ProgramCreator', 'commission_pct'], ['ProgramCreator', 'approved_at'],
]
const plainFields: Array<[schema: string, field: string]> = [
  ['Shop', 'shop_id'], ['Shop', 'is_active'], ['Product', 'price'], ['Sku', 'price'], ['Affiliate', 'gmv'], ['Affiliate', 'handle'],
  ['SparkCode', 'spark_code'], ['SparkCode', 'expired'], ['SparkCode', 'video_link'], ['AdCampaign', 'campaign_id'], ['AdCampaign', 'ad_roi'],
  ['AdCampaign', 'auto_budget_enabled'], ['AdCreative', 'video_id'], ['BoostSession', 'active'], ['SampleRequest', 'apply_id'],
  ['Dashboard', 'id'], ['Dashboard', 'is_home_shop'], ['DashboardWidget', 'api_editable'], ['CreatorProgram', 'status'], ['ProgramCreator', 'status'],
]

describe('contract: resources (spec: Resources and their fields)', () => {
  it.each(resources)('describes the %s resource as components/schemas/%s', (_resource, name) => {
    expect(schemas[name], name).toBeDefined()
  })

  it.each(nullableFields)('%s.%s is nullable, as the spec states', (name, field) => {
    expect(schemas[name].properties?.[field], `${name}.${field}`).toBeDefined()
    expect(isNullable(schemas[name].properties?.[field])).toBe(true)
  })

  it.each(plainFields)('%s.%s is required and not nullable', (name, field) => {
    expect(schemas[name].required).toContain(field)
    expect(isNullable(schemas[name].properties?.[field])).toBe(false)
  })
})
