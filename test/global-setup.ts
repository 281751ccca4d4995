/** Prints the runtime once, so CI logs show that `npm test` really runs on the project's Node 24. */
export default function setup() {
  console.log(`shoptwin tests on Node ${process.version}`)
  if (Number(process.versions.node.split('.')[0]) < 24) {
    throw new Error(`npm test must run on Node 24 (the project's devDependency "node"); got ${process.version}`)
  }
}
