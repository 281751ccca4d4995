/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const timeseries: Area = {
  name: 'Timeseries',
  description: '',
  schemas: {},
  operations: [],
}
