import { lte, sql } from 'drizzle-orm'
import type { Clock } from '../../context.ts'
import { type Db, preparedStatement } from '../../store/database.ts'
import { paymentNonces } from '../../store/schema.ts'
import type { NonceStore } from './nonce-store.ts'

/**
 * The database NonceStore (spec: a nonce reused within 5 minutes is rejected as replay). One
 * statement claims a nonce: insert, or take over a row whose window has passed. The primary key
 * lets exactly one of any number of concurrent claims win, across processes.
 */
export function createDbNonceStore(db: Db, clock: Clock): NonceStore & { sweep(): Promise<number> } {
  // Every x402 payment claims a nonce: the statement is built once and runs prepared (planned once
  // per connection, one round trip instead of describe then execute; PGlite too: preparedStatement).
  const claimStatement = preparedStatement(
    db,
    db
      .insert(paymentNonces)
      .values({
        network: sql.placeholder('network'),
        payer: sql.placeholder('payer'),
        nonce: sql.placeholder('nonce'),
        expiresAt: sql.placeholder('expiresAt'),
      })
      .onConflictDoUpdate({
        target: [paymentNonces.network, paymentNonces.payer, paymentNonces.nonce],
        set: {
          expiresAt: sql`${sql.placeholder('expiresAtText')}::timestamptz`,
          createdAt: sql`${sql.placeholder('nowText')}::timestamptz`,
        },
        setWhere: lte(paymentNonces.expiresAt, sql`${sql.placeholder('nowText')}::timestamptz`),
      })
      .returning({ nonce: paymentNonces.nonce }),
  )
  return {
    async claim(network, nonce, payer, expiresAt) {
      const now = clock.now()
      const rows = await claimStatement({
        network,
        payer: payer.toLowerCase(),
        nonce: nonce.toLowerCase(),
        expiresAt,
        expiresAtText: expiresAt.toISOString(),
        nowText: now.toISOString(),
      })
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
