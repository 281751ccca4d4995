/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const dashboards: Area = {
  name: 'Dashboards',
  description: '',
  schemas: {},
  operations: [],
}
