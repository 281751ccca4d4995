/** Every area of the contract, in the order the spec documents them. */
import type { Area } from '../document.ts'
import { account } from './account.ts'
import { stats } from './stats.ts'
import { timeseries } from './timeseries.ts'
import { content } from './content.ts'
import { spark } from './spark.ts'
import { ads } from './ads.ts'
import { social } from './social.ts'
import { halo } from './halo.ts'
import { samples } from './samples.ts'
import { dashboards } from './dashboards.ts'
import { outreach } from './outreach.ts'
import { enterprise } from './enterprise.ts'
import { connector } from './connector.ts'

export const areas: Area[] = [account, stats, timeseries, content, spark, ads, social, halo, samples, dashboards, outreach, enterprise, connector]
