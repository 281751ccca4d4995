/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const enterprise: Area = {
  name: 'Enterprise',
  description: '',
  schemas: {},
  operations: [],
}
