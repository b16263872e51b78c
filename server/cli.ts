import { createDatabase } from '../core/store/database.ts'
import { loadConfig } from './config.ts'
import { runOperatorCli } from './operator-cli.ts'

/** The operator CLI as a process (`npm run cli -- <command>`): the database named by the environment. */
process.exitCode = await runOperatorCli(process.argv.slice(2), {
  openDatabase: async () => {
    const config = loadConfig()
    return createDatabase({ url: config.DATABASE_URL, dataDir: config.DATA_DIR })
  },
  out: (text) => console.log(text),
  err: (text) => console.error(text),
})
