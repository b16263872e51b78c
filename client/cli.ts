/**
 * `validation-cli`: the command line for people who use the service (not the operator's
 * `npm run cli`). It talks to a running service over HTTP with a key (flags or env). Each
 * command group is one module; adding a command is one line in COMMANDS.
 */

import type { CliCommand } from './command.ts'
import { leadsVerifyCommand } from './leads-verify.ts'
import { receiptsVerify } from './receipts.ts'
import { reportsVerify } from './reports.ts'

/** `group command` → implementation. */
export const COMMANDS: Record<string, CliCommand> = {
  'leads verify': leadsVerifyCommand,
  'reports verify': reportsVerify,
  'receipts verify': receiptsVerify,
}

function help(): string {
  const lines = Object.entries(COMMANDS).map(([name, command]) => `  ${name.padEnd(20)} ${command.summary}`)
  return ['usage: validation-cli <command> [options]', '', 'commands:', ...lines].join('\n')
}

export async function main(argv: string[]): Promise<number> {
  const name = argv.slice(0, 2).join(' ')
  const command = COMMANDS[name]
  if (!command) {
    if (argv.length > 0 && !['help', '--help', '-h'].includes(argv[0]!)) {
      process.stderr.write(`unknown command: ${name}\n\n`)
    }
    process.stdout.write(`${help()}\n`)
    return argv.length === 0 || ['help', '--help', '-h'].includes(argv[0]!) ? 0 : 2
  }
  if (argv.includes('--help') || argv.includes('-h')) {
    process.stdout.write(`${command.usage}\n`)
    return 0
  }
  return command.run(argv.slice(2))
}
