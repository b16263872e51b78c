import { type SQL, sql } from 'drizzle-orm'
import { type DbTransaction, rowsOf } from '../store/database.ts'

/**
 * Where a key's data about a subject lives: one entry per table, saying how to find the rows of a
 * key (and, for a subject purge, the rows that name the subject) and whether erasure deletes them
 * or redacts the personal data out of a record the law requires to keep. Erasure on request
 * (data-purge.ts) runs every entry in one transaction; a table added later is one more entry.
 * Table and column names are constants of this file, never input.
 */

/** What a purge covers: every row of the key, or the rows of the key that name `subject`. */
export interface PurgeScope {
  keyId: string
  /** null: everything of the key. */
  subject: string | null
}

export interface SubjectDataLocation {
  /** Category as the answer names it (the data inventory's category where there is one). */
  category: string
  /** The table it lives in. */
  table: string
  /** delete: the rows go; redact: the rows stay (a legal duty) with the personal data removed. */
  action: 'delete' | 'redact'
  /** Why a redacted record is kept. */
  keptBecause?: string
  /** Removes (or redacts) the scope's rows; returns how many. */
  purge(tx: DbTransaction, scope: PurgeScope): Promise<number>
}

/** A record the law requires to keep, listed in every answer with why (nothing of it names a subject). */
export interface KeptCategory {
  category: string
  table: string
  reason: string
}

/**
 * True for a row whose text names the subject: case-insensitive containment in the column's text
 * (jsonb as its JSON text). Containment rather than equality, because a subject sits inside
 * stored inputs, answers and alert bodies.
 */
export function names(column: SQL, subject: string): SQL {
  return sql`position(lower(${subject}) in lower(${column}::text)) > 0`
}

async function count(tx: DbTransaction, statement: SQL): Promise<number> {
  return rowsOf<unknown>(await tx.execute(statement)).length
}

/** A table whose rows of the key (naming the subject in one of `columns`) are deleted. */
function deleteRows(
  category: string,
  table: string,
  columns: readonly string[],
  extra: SQL = sql`true`,
): SubjectDataLocation {
  return {
    category,
    table,
    action: 'delete',
    purge: (tx, { keyId, subject }) => {
      const naming =
        subject === null
          ? sql`true`
          : sql.join(
              columns.map((column) => names(sql`${sql.identifier(column)}`, subject)),
              sql` or `,
            )
      return count(
        tx,
        sql`delete from ${sql.identifier(table)} where key_id = ${keyId} and (${naming}) and ${extra} returning 1`,
      )
    },
  }
}

export const SUBJECT_DATA: readonly SubjectDataLocation[] = [
  deleteRows('stored_checks', 'entity_checks', ['input', 'result']),
  // report_identifiers rows go with their report (on delete cascade).
  deleteRows('entity_reports', 'entity_reports', ['report']),
  deleteRows('watchlist', 'watchlist_entries', ['value', 'label']),
  deleteRows('sanctions_dismissals', 'sanctions_dismissals', ['subject', 'subject_key', 'reason']),
  deleteRows('compliance_alerts', 'compliance_alerts', ['alert']),
  {
    category: 'webhook_deliveries',
    table: 'webhook_deliveries',
    action: 'delete',
    purge: async (tx, { keyId, subject }) => {
      const naming = subject === null ? sql`true` : names(sql`body`, subject)
      await tx.execute(
        sql`delete from webhook_attempts where delivery_id in (select id from webhook_deliveries where key_id = ${keyId} and ${naming})`,
      )
      return count(tx, sql`delete from webhook_deliveries where key_id = ${keyId} and ${naming} returning 1`)
    },
  },
  // Claims still in progress hold no answer yet; stored answers are what could be replayed.
  deleteRows('idempotency_records', 'idempotency_records', ['response_body'], sql`state = 'done'`),
  {
    category: 'webhooks',
    table: 'webhooks',
    action: 'delete',
    // Only a purge of everything removes the key's webhooks: their URLs name no subject.
    purge: (tx, { keyId, subject }) =>
      subject === null
        ? count(tx, sql`delete from webhooks where key_id = ${keyId} returning 1`)
        : Promise.resolve(0),
  },
  {
    category: 'settlement_answers',
    table: 'settlements',
    action: 'redact',
    keptBecause:
      'settlements are revenue records kept for the fiscal period; the answer a payment bought (kept a day for a retry) is removed, the amount, payer and transaction stay',
    purge: (tx, { keyId, subject }) =>
      count(
        tx,
        sql`update settlements set answer_body = null, answer_status = null, request_hash = null
            where key_id = ${keyId} and answer_body is not null
            and ${subject === null ? sql`true` : names(sql`answer_body`, subject)} returning 1`,
      ),
  },
]

/** Records kept whatever the purge, and why; none of them holds a subject. */
export const KEPT_RECORDS: readonly KeptCategory[] = [
  {
    category: 'key_balance',
    table: 'api_keys',
    reason:
      'the key, its balance and its contact address: the prepaid balance is money owed to the customer; revoke the key to close the account',
  },
  {
    category: 'settlements',
    table: 'settlements',
    reason:
      'payment and settlement records (amount, payer, transaction) are kept for the fiscal record-keeping period',
  },
  {
    category: 'key_reservations',
    table: 'key_reservations',
    reason: 'charges of calls in flight (amounts only); released or captured within a minute',
  },
  {
    category: 'usage_logs',
    table: 'usage_events',
    reason: 'billing records (operation, outcome, cost, latency); they name no subject',
  },
  {
    category: 'usage_rollups',
    table: 'usage_rollups',
    reason: 'hourly billing totals per operation; they name no subject',
  },
]
