/** One `validation-cli` command: runs with the arguments after its name and returns the process exit code. */
export interface CliCommand {
  summary: string
  usage: string
  run(args: string[]): Promise<number>
}
