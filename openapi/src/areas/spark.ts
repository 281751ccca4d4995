/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const spark: Area = {
  name: 'Spark',
  description: '',
  schemas: {},
  operations: [],
}
