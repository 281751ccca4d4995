/**
 * The command after `--` of `shoptwin certify-client` and `shoptwin proxy`: your integration, run with
 * the twin's or the proxy's URL in its environment, its output on this terminal. One argument with
 * spaces is a shell line (`-- "npm test"`); several are the argv.
 *
 * While it runs, a SIGINT or SIGTERM sent to shoptwin (a CI job cancelled, `kill` from a script) is
 * passed on to it, and shoptwin waits for it to end before it writes its reports: the command does not
 * live on without the server it was testing. (Ctrl-C in a terminal reaches both already: the command
 * then ends on its own signal.)
 */
import { spawn } from 'node:child_process'

/** Resolves with the command's exit code, or a line saying why it has none: it could not start (`cannot run …`) or a signal ended it. */
export function runCommand(command: readonly string[], env: NodeJS.ProcessEnv): Promise<number | string> {
  return new Promise((resolve) => {
    const shellLine = command.length === 1 && /\s/.test(command[0]!)
    const child = shellLine ? spawn(command[0]!, { stdio: 'inherit', env, shell: true }) : spawn(command[0]!, command.slice(1), { stdio: 'inherit', env })
    const pass = (signal: NodeJS.Signals) => () => void child.kill(signal)
    const onInt = pass('SIGINT')
    const onTerm = pass('SIGTERM')
    process.on('SIGINT', onInt)
    process.on('SIGTERM', onTerm)
    const settle = (outcome: number | string) => {
      process.off('SIGINT', onInt)
      process.off('SIGTERM', onTerm)
      resolve(outcome)
    }
    child.on('error', (error) => settle(`cannot run ${command[0]}: ${error.message}`))
    child.on('exit', (code, signal) => settle(code ?? `the command was ended by ${signal}`))
  })
}

/** The run error a command's outcome makes (`the command exited with 3`), or undefined when it passed. */
export const commandFailure = (outcome: number | string): string | undefined => (outcome === 0 ? undefined : typeof outcome === 'number' ? `the command exited with ${outcome}` : outcome)
