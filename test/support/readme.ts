/** The README's ```ts block under a heading (the first after it): what a user copies, run or compiled by the install tests. */
export function readmeSnippet(readme: string, heading: string): string {
  const at = readme.indexOf(heading)
  if (at < 0) throw new Error(`no heading ${heading} in the README`)
  const match = /```ts\n([\s\S]*?)```/.exec(readme.slice(at))
  if (!match) throw new Error(`no ts block under ${heading}`)
  return match[1]!
}
