/** Placeholder: filled in by the area's author. */
import type { Area } from '../document.ts'

export const content: Area = {
  name: 'Content',
  description: '',
  schemas: {},
  operations: [],
}
