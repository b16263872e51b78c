import { parseArgs } from 'node:util'
import { systemClock } from '../core/context.ts'
import {
  AdminCreateKeyInput,
  AdminCreditInput,
  AdminExpireInput,
  createApiKeyService,
  keyUsageView,
} from '../core/keys/index.ts'
import { createMaintenanceSwitch, MaintenanceInput } from '../core/maintenance/index.ts'
import { usd } from '../core/money.ts'
import { parseWith } from '../core/operations/parse.ts'
import type { Database } from '../core/store/database.ts'

export const OPERATOR_CLI_USAGE = `usage:
  npm run cli -- create-key --email a@b.example --tier pro [--balance-usd 25]
  npm run cli -- credit --key-id <uuid> --amount-usd 10
  npm run cli -- revoke-key --key-id <uuid>
  npm run cli -- expire-key --key-id <uuid> [--at 2026-12-31T00:00:00Z]   (default: now)
  npm run cli -- maintenance on [--message "Back at 14:00 UTC"] [--retry-after 600]
  npm run cli -- maintenance off
  npm run cli -- maintenance status
Operates on the same database as the server (DATA_DIR or DATABASE_URL). With PGlite (DATA_DIR)
one process owns the folder: while a service runs on it this CLI refuses at once ("DATA_DIR ... is
in use by process <pid>") and changes nothing; use the service's admin routes then (ADMIN_API_KEY:
POST /v1/admin/keys, /v1/admin/keys/{key_id}/credit, /revoke, /expire), or stop it first.
PostgreSQL (DATABASE_URL) is shared: the CLI runs beside any number of services.`

const COMMANDS = ['create-key', 'credit', 'revoke-key', 'expire-key', 'maintenance']

/** Where the operator CLI gets its database and writes its answers (the process, or a test). */
export interface OperatorCliIo {
  /** Opened only for a known command; closed by the CLI when the command is done. */
  openDatabase(): Promise<Database>
  /** The JSON answer of a command. */
  out(text: string): void
  /** Usage and errors. */
  err(text: string): void
}

/**
 * Operator commands without the HTTP server: create a live key with a balance, add balance, revoke
 * or expire a key, switch maintenance on or off (every server on the database follows within 2
 * seconds). Returns the exit code: 0 done, 1 refused (bad input naming the field, unknown
 * key), 2 unknown command (with the usage). Kept apart from the process entry (server/cli.ts) so
 * the commands are tested in-process.
 */
export async function runOperatorCli(args: readonly string[], io: OperatorCliIo): Promise<number> {
  try {
    const [command, ...rest] = args
    const { values, positionals } = parseArgs({
      args: rest,
      allowPositionals: command === 'maintenance',
      options: {
        message: { type: 'string' },
        'retry-after': { type: 'string' },
        email: { type: 'string' },
        tier: { type: 'string' },
        'balance-usd': { type: 'string' },
        'key-id': { type: 'string' },
        'amount-usd': { type: 'string' },
        at: { type: 'string' },
      },
    })
    if (!command || !COMMANDS.includes(command)) {
      io.err(OPERATOR_CLI_USAGE)
      return 2
    }
    const database = await io.openDatabase()
    const keys = createApiKeyService({ db: database.db, clock: systemClock })
    try {
      if (command === 'maintenance') {
        const maintenance = createMaintenanceSwitch({ db: database.db, clock: systemClock })
        const action = positionals[0]
        if (action === 'status') {
          io.out(JSON.stringify(await maintenance.current(), null, 2))
        } else if (action === 'on' || action === 'off') {
          const input = parseWith(MaintenanceInput, {
            enabled: action === 'on',
            ...(values.message !== undefined ? { message: values.message } : {}),
            ...(values['retry-after'] !== undefined
              ? { retry_after_seconds: Number(values['retry-after']) }
              : {}),
          })
          io.out(JSON.stringify(await maintenance.set(input, 'cli'), null, 2))
        } else {
          throw new Error('maintenance: say on, off or status')
        }
      } else if (command === 'create-key') {
        const input = parseWith(AdminCreateKeyInput, {
          email: values.email,
          tier: values.tier,
          balance_usd: values['balance-usd'] ?? '0',
        })
        const created = await keys.create({
          email: input.email,
          tier: input.tier,
          balance: usd(input.balance_usd),
        })
        io.out(JSON.stringify({ api_key: created.apiKey, ...keyUsageView(created.record) }, null, 2))
      } else if (command === 'credit') {
        const input = parseWith(AdminCreditInput, { amount_usd: values['amount-usd'] })
        const record = await keys.credit(values['key-id'] ?? '', usd(input.amount_usd))
        io.out(JSON.stringify(keyUsageView(record), null, 2))
      } else {
        const keyId = values['key-id'] ?? ''
        const input = parseWith(AdminExpireInput, values.at === undefined ? {} : { expires_at: values.at })
        const record =
          command === 'revoke-key'
            ? await keys.revoke(keyId)
            : await keys.expire(keyId, input.expires_at ? new Date(input.expires_at) : new Date())
        if (!record) throw new Error(`key-id: no key ${JSON.stringify(keyId)}`)
        io.out(JSON.stringify(keyUsageView(record), null, 2))
      }
    } finally {
      keys.close()
      await database.close()
    }
    return 0
  } catch (error) {
    const fields = (error as { fields?: { field: string; message: string }[] }).fields
    io.err(
      fields
        ? fields.map((f) => `${f.field}: ${f.message}`).join('\n')
        : String((error as Error | undefined)?.message ?? error),
    )
    return 1
  }
}
