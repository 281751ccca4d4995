/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const ads: Area = {
  name: 'Ads',
  description: '',
  schemas: {},
  operations: [],
}
