/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const halo: Area = {
  name: 'Halo',
  description: '',
  schemas: {},
  operations: [],
}
