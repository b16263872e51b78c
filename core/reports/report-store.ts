import { and, desc, eq, or } from 'drizzle-orm'
import type { Db } from '../store/database.ts'
import { entityReports, reportIdentifiers } from '../store/schema.ts'

/** Kinds of identifier two reports can share (spec: correlations). */
export const IDENTIFIER_KINDS = [
  'vat_number',
  'iban',
  'domain',
  'wallet_address',
  'register_number',
  'director',
] as const
export type IdentifierKind = (typeof IDENTIFIER_KINDS)[number]

export interface ReportIdentifier {
  kind: IdentifierKind
  value: string
}

export interface StoredReport {
  id: string
  owner: string
  keyId: string | null
  checkId: string
  entityHash: string
  trustLevel: string
  report: Record<string, unknown>
  createdAt: Date
}

/** One earlier report of the same owner sharing an identifier with a new one. */
export interface CorrelationLink {
  report_id: string
  kind: IdentifierKind
  value: string
  entity_name: string | null
  created_at: string
}

export interface ReportStore {
  save(report: StoredReport, identifiers: readonly ReportIdentifier[]): Promise<void>
  /** A report of this owner; null for an unknown id or another owner's. */
  get(owner: string, id: string): Promise<StoredReport | null>
  /** This owner's earlier reports sharing any of the identifiers (newest first, at most `limit`). */
  correlate(
    owner: string,
    identifiers: readonly ReportIdentifier[],
    limit?: number,
  ): Promise<CorrelationLink[]>
  /** The newest report of an entity, whoever made it (public badge: trust level and date only). */
  latestForEntity(entityHash: string): Promise<{ trustLevel: string; createdAt: Date } | null>
}

/** Normalised identifier value: upper case, no spaces, dots or dashes (domains lower case). */
export function normaliseIdentifier(kind: IdentifierKind, value: string): string {
  const trimmed = value.trim()
  if (kind === 'domain') return trimmed.toLowerCase().replace(/\.$/, '')
  if (kind === 'wallet_address') return trimmed.startsWith('0x') ? trimmed.toLowerCase() : trimmed
  if (kind === 'director') return trimmed.toUpperCase().replace(/\s+/g, ' ')
  return trimmed.toUpperCase().replace(/[\s.\-/]/g, '')
}

/**
 * Reports on the service database. Reading and correlating are scoped by owner, so one key never
 * sees another key's reports or links; only the badge reads across owners, and it discloses the
 * trust level and date alone.
 */
export function createReportStore(db: Db): ReportStore {
  const toStored = (row: typeof entityReports.$inferSelect): StoredReport => ({
    id: row.id,
    owner: row.owner,
    keyId: row.keyId,
    checkId: row.checkId,
    entityHash: row.entityHash,
    trustLevel: row.trustLevel,
    report: row.report as Record<string, unknown>,
    createdAt: row.createdAt,
  })
  return {
    async save(report, identifiers) {
      await db.transaction(async (tx) => {
        await tx.insert(entityReports).values({ ...report })
        const rows = [
          ...new Map(
            identifiers.map((identifier) => {
              const value = normaliseIdentifier(identifier.kind, identifier.value)
              return [
                `${identifier.kind}:${value}`,
                { reportId: report.id, owner: report.owner, kind: identifier.kind, value },
              ]
            }),
          ).values(),
        ]
        if (rows.length > 0) await tx.insert(reportIdentifiers).values(rows)
      })
    },
    async get(owner, id) {
      const rows = await db
        .select()
        .from(entityReports)
        .where(and(eq(entityReports.owner, owner), eq(entityReports.id, id)))
        .limit(1)
      return rows[0] ? toStored(rows[0]) : null
    },
    async correlate(owner, identifiers, limit = 50) {
      if (identifiers.length === 0) return []
      const matches = identifiers.map((identifier) =>
        and(
          eq(reportIdentifiers.kind, identifier.kind),
          eq(reportIdentifiers.value, normaliseIdentifier(identifier.kind, identifier.value)),
        ),
      )
      const rows = await db
        .select({
          reportId: reportIdentifiers.reportId,
          kind: reportIdentifiers.kind,
          value: reportIdentifiers.value,
          report: entityReports.report,
          createdAt: entityReports.createdAt,
        })
        .from(reportIdentifiers)
        .innerJoin(entityReports, eq(entityReports.id, reportIdentifiers.reportId))
        .where(and(eq(reportIdentifiers.owner, owner), eq(entityReports.owner, owner), or(...matches)))
        .orderBy(desc(entityReports.createdAt))
        .limit(limit)
      return rows.map((row) => ({
        report_id: row.reportId,
        kind: row.kind as IdentifierKind,
        value: row.value,
        entity_name:
          ((row.report as { entity?: { entity_name?: unknown } }).entity?.entity_name as
            | string
            | undefined) ?? null,
        created_at: row.createdAt.toISOString(),
      }))
    },
    async latestForEntity(entityHash) {
      const rows = await db
        .select({ trustLevel: entityReports.trustLevel, createdAt: entityReports.createdAt })
        .from(entityReports)
        .where(eq(entityReports.entityHash, entityHash))
        .orderBy(desc(entityReports.createdAt))
        .limit(1)
      return rows[0] ?? null
    },
  }
}
