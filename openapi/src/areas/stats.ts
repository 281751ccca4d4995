/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const stats: Area = {
  name: 'Shop stats',
  description: '',
  schemas: {},
  operations: [],
}
