import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { and, eq, isNull } from 'drizzle-orm'
import { z } from 'zod'
import type { Clock } from '../context.ts'
import type { Db } from '../store/database.ts'
import { reportShares } from '../store/schema.ts'

/** A share link token as it travels in a URL: what a token can hold (what it means is checked by open). */
export const SHARE_TOKEN = z
  .string()
  .max(300)
  .regex(/^[A-Za-z0-9._~-]*$/, 'a share token holds only letters, digits and . _ ~ -')
/** Longest life of a share link: 30 days (a colleague opens it, files it, and it stops opening). */
export const MAX_SHARE_SECONDS = 30 * 24 * 3600
/** Life of a share link when the request names none: 7 days. */
export const DEFAULT_SHARE_SECONDS = 7 * 24 * 3600

const TOKEN_VERSION = 'v1'
const SHARE_ID = /^shr_[A-Za-z0-9_-]{22}$/

/** A share link as created: its id (to revoke it), the token for the URL and when it stops opening. */
export interface CreatedShare {
  share_id: string
  token: string
  expires_at: string
}

/** Why a token does not open a report: 401 for one this service did not issue for it, 410 for one it did. */
export type ShareRefusal = 'invalid' | 'expired' | 'revoked'

export interface ReportShares {
  /** A new link to `reportId`, which must already be known to belong to `owner`. */
  create(owner: string, reportId: string, expiresInSeconds: number): Promise<CreatedShare>
  /** Revokes one of this owner's links; false when it has no such link. */
  revoke(owner: string, shareId: string): Promise<boolean>
  /**
   * Checks a token against the report id of the URL it came in: the owner whose report it opens,
   * or why it does not. The MAC is checked first (in constant time), so a forged token never
   * reaches the database, and a genuine token of another report is invalid here.
   */
  open(reportId: string, token: string): Promise<{ owner: string } | { refused: ShareRefusal }>
}

/**
 * Share links of entity reports: a token is `v1.<share id>.<expiry, Unix seconds>.<HMAC-SHA256>`,
 * the MAC over the report id, the share id and the expiry with a key only the service holds. The
 * token carries no report content and opens one report only; each link is a row, so it can be
 * revoked before it expires (and goes with its report).
 */
export function createReportShares(options: { db: Db; clock: Clock; macKey: Uint8Array }): ReportShares {
  const { db, clock, macKey } = options
  const macOf = (reportId: string, shareId: string, expiry: number) =>
    createHmac('sha256', macKey)
      .update(`report-share:${TOKEN_VERSION}:${reportId}:${shareId}:${expiry}`)
      .digest()
  return {
    async create(owner, reportId, expiresInSeconds) {
      const now = clock.now()
      const expiry = Math.floor(now.getTime() / 1000) + expiresInSeconds
      const shareId = `shr_${randomBytes(16).toString('base64url')}`
      const expiresAt = new Date(expiry * 1000)
      await db.insert(reportShares).values({ id: shareId, reportId, owner, expiresAt, createdAt: now })
      const mac = macOf(reportId, shareId, expiry).toString('base64url')
      return {
        share_id: shareId,
        token: `${TOKEN_VERSION}.${shareId}.${expiry}.${mac}`,
        expires_at: expiresAt.toISOString(),
      }
    },
    async revoke(owner, shareId) {
      const rows = await db
        .update(reportShares)
        .set({ revokedAt: clock.now() })
        .where(
          and(eq(reportShares.id, shareId), eq(reportShares.owner, owner), isNull(reportShares.revokedAt)),
        )
        .returning({ id: reportShares.id })
      if (rows.length > 0) return true
      // Revoking twice is not an error: the link stays closed.
      const existing = await db
        .select({ id: reportShares.id })
        .from(reportShares)
        .where(and(eq(reportShares.id, shareId), eq(reportShares.owner, owner)))
        .limit(1)
      return existing.length > 0
    },
    async open(reportId, token) {
      const parts = token.split('.')
      if (parts.length !== 4 || parts[0] !== TOKEN_VERSION) return { refused: 'invalid' }
      const [, shareId = '', expiryText = '', macText = ''] = parts
      if (!SHARE_ID.test(shareId) || !/^\d{1,12}$/.test(expiryText)) return { refused: 'invalid' }
      const expiry = Number(expiryText)
      const expected = macOf(reportId, shareId, expiry)
      const given = Buffer.from(macText, 'base64url')
      if (given.length !== expected.length || !timingSafeEqual(given, expected)) return { refused: 'invalid' }
      if (clock.now().getTime() >= expiry * 1000) return { refused: 'expired' }
      const rows = await db
        .select({ owner: reportShares.owner, revokedAt: reportShares.revokedAt })
        .from(reportShares)
        .where(and(eq(reportShares.id, shareId), eq(reportShares.reportId, reportId)))
        .limit(1)
      const row = rows[0]
      // A genuine token whose row is gone: its report was deleted, so it opens nothing.
      if (!row) return { refused: 'revoked' }
      if (row.revokedAt) return { refused: 'revoked' }
      return { owner: row.owner }
    },
  }
}
