import { lte } from 'drizzle-orm'
import type { Clock } from '../../context.ts'
import type { Db } from '../../store/database.ts'
import { type GroupCommit, groupCommitOf } from '../../store/group-commit.ts'
import { paymentNonces } from '../../store/schema.ts'
import { firstOfEach, groupedLedgerStep } from './grouped-write.ts'
import type { NonceStore } from './nonce-store.ts'

interface NonceClaim {
  network: string
  payer: string
  nonce: string
  expiresAt: string
  /** When the claim was made (ms). */
  now: number
}

const claimKey = (claim: { network: unknown; payer: unknown; nonce: unknown }) =>
  JSON.stringify([claim.network, claim.payer, claim.nonce])

/**
 * The database NonceStore (spec: a nonce reused within 5 minutes is rejected as replay). One
 * statement claims the nonces of concurrent calls: each is inserted, or takes over a row whose
 * window has passed; the statement returns the nonces it claimed. The primary key lets exactly one
 * of any number of concurrent claims win, across processes; within one batch the first claim of a
 * nonce is the only one sent (PostgreSQL refuses to touch a row twice in one ON CONFLICT statement),
 * so a later duplicate loses, as it would have one statement later.
 */
export function createDbNonceStore(
  db: Db,
  clock: Clock,
  group: GroupCommit = groupCommitOf(db),
): NonceStore & { sweep(): Promise<number> } {
  const claim = groupedLedgerStep<NonceClaim>(db, group, {
    statement(items, prefix, params) {
      const first = firstOfEach(items, claimKey)
      const sent = items.filter((_, index) => first[index])
      // A window has passed when it ended at or before the latest claim of the batch (claims of
      // one batch were made within one event-loop turn); a row taken over starts then.
      const now = params.add(new Date(Math.max(...items.map((item) => item.now))).toISOString())
      return {
        ctes: [
          `${prefix}claimed as (
            insert into payment_nonces (network, payer, nonce, expires_at)
            select c.network, c.payer, c.nonce, c.expires_at::timestamptz
              from unnest(${params.add(sent.map((c) => c.network))}::text[], ${params.add(sent.map((c) => c.payer))}::text[],
                          ${params.add(sent.map((c) => c.nonce))}::text[], ${params.add(sent.map((c) => c.expiresAt))}::text[])
                   as c(network, payer, nonce, expires_at)
            on conflict (network, payer, nonce) do update
               set expires_at = excluded.expires_at, created_at = ${now}::timestamptz
             where payment_nonces.expires_at <= ${now}::timestamptz
            returning network, payer, nonce
          )`,
        ],
        result: `select json_build_array(network, payer, nonce)::text as r from ${prefix}claimed`,
      }
    },
    outcomes(values, items) {
      // json_build_array's text spaces its elements: parsed and written again as claimKey writes it.
      const claimed = new Set(values.map((value) => JSON.stringify(JSON.parse(String(value)))))
      const first = firstOfEach(items, claimKey)
      return items.map((item, index) => first[index]! && claimed.has(claimKey(item)))
    },
  })
  return {
    claim: (network, nonce, payer, expiresAt) =>
      claim({
        network,
        payer: payer.toLowerCase(),
        nonce: nonce.toLowerCase(),
        expiresAt: expiresAt.toISOString(),
        now: clock.now().getTime(),
      }),
    /** Forgets nonces whose window has passed. */
    async sweep() {
      const rows = await db
        .delete(paymentNonces)
        .where(lte(paymentNonces.expiresAt, clock.now()))
        .returning({ nonce: paymentNonces.nonce })
      return rows.length
    },
  }
}
