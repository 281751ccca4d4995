/** Code-point order of two strings: how the mock sorts text (mock/sort.ts), written out independently. */
export const byCodePoint = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)
