import { lte } from 'drizzle-orm'
import type { Clock } from '../../context.ts'
import type { Db } from '../../store/database.ts'
import { type GroupCommit, groupCommitOf } from '../../store/group-commit.ts'
import { paymentNonces } from '../../store/schema.ts'
import { ledgerWritesOf } from './ledger-steps.ts'
import type { NonceStore } from './nonce-store.ts'

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
  const writes = ledgerWritesOf(db, group)
  return {
    claim: (network, nonce, payer, expiresAt) =>
      writes.claimNonce({
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
