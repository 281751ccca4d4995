/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const samples: Area = {
  name: 'Samples',
  description: '',
  schemas: {},
  operations: [],
}
