/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const social: Area = {
  name: 'Social',
  description: '',
  schemas: {},
  operations: [],
}
