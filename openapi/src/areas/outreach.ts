/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const outreach: Area = {
  name: 'Outreach',
  description: '',
  schemas: {},
  operations: [],
}
