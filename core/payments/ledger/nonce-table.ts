import { lte } from 'drizzle-orm'
import type { Clock } from '../../context.ts'
import type { Db } from '../../store/database.ts'
import { paymentNonces } from '../../store/schema.ts'
import type { NonceStore } from './nonce-store.ts'

/**
 * The database NonceStore (spec: a nonce reused within 5 minutes is rejected as replay). One
 * statement claims a nonce: insert, or take over a row whose window has passed. The primary key
 * lets exactly one of any number of concurrent claims win, across processes.
 */
export function createDbNonceStore(db: Db, clock: Clock): NonceStore & { sweep(): Promise<number> } {
  return {
    async claim(network, nonce, payer, expiresAt) {
      const now = clock.now()
      const rows = await db
        .insert(paymentNonces)
        .values({ network, payer: payer.toLowerCase(), nonce: nonce.toLowerCase(), expiresAt })
        .onConflictDoUpdate({
          target: [paymentNonces.network, paymentNonces.payer, paymentNonces.nonce],
          set: { expiresAt, createdAt: now },
          setWhere: lte(paymentNonces.expiresAt, now),
        })
        .returning({ nonce: paymentNonces.nonce })
      return rows.length === 1
    },
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
