import { claimDataDirFromEnv, DataDirInUseError, type DataDirLock } from '../core/store/data-dir-lock.ts'

/**
 * The operator CLI as a process (`npm run cli -- <command>`): the database named by the
 * environment. With PGlite the data folder is claimed before anything else loads, so a folder a
 * running service holds is refused at once (its admin routes do the same work meanwhile).
 */
async function main(args: string[]): Promise<number> {
  const wantsHelp = args.length === 0 || args.includes('--help') || args.includes('-h')
  let dataDirLock: DataDirLock | undefined
  try {
    dataDirLock = wantsHelp ? undefined : claimDataDirFromEnv()
  } catch (error) {
    if (!(error instanceof DataDirInUseError)) throw error
    console.error(error.message)
    console.error(ADMIN_ROUTES_HINT)
    return 1
  }
  const [{ createDatabase }, { loadConfig }, { runOperatorCli }] = await Promise.all([
    import('../core/store/database.ts'),
    import('./config.ts'),
    import('./operator-cli.ts'),
  ])
  const outcome = await runOperatorCli(args, {
    openDatabase: async () => {
      const config = loadConfig()
      return createDatabase({
        url: config.DATABASE_URL,
        dataDir: config.DATA_DIR,
        ...(dataDirLock ? { dataDirLock } : {}),
      })
    },
    out: (text) => console.log(text),
    err: (text) => console.error(text),
  })
  dataDirLock?.release()
  return outcome
}

/** What to do instead while the service runs: the same commands as admin routes. */
const ADMIN_ROUTES_HINT = `While the service runs, do the same through it with its operator key (ADMIN_API_KEY, header x-api-key):
  POST /v1/admin/keys {"email","tier","balance_usd"}     create-key
  POST /v1/admin/keys/{key_id}/credit {"amount_usd"}     credit
  POST /v1/admin/keys/{key_id}/revoke                    revoke-key
  POST /v1/admin/keys/{key_id}/expire {"expires_at"}     expire-key`

process.exitCode = await main(process.argv.slice(2))
