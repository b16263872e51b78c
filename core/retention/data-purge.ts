import type { Db } from '../store/database.ts'
import {
  KEPT_RECORDS,
  type KeptCategory,
  type PurgeScope,
  SUBJECT_DATA,
  type SubjectDataLocation,
} from './subject-data.ts'

/**
 * Erasure on request (GDPR Art. 17, POST /v1/data/purge): everything of a key that names a
 * subject, or everything of a key, removed in one transaction over the register of where subject
 * data lives (subject-data.ts). Idempotent: a second purge finds nothing left and removes 0.
 * Records the law requires to keep stay, with the personal data redacted where they held any.
 */

export interface PurgeRemoved {
  category: string
  table: string
  count: number
}

export interface PurgeKept {
  category: string
  table: string
  reason: string
  /** Rows of this category whose personal data was removed (the rows themselves stay). */
  redacted: number
}

export interface PurgeResult {
  scope: 'subject' | 'all'
  removed: PurgeRemoved[]
  kept: PurgeKept[]
  total_removed: number
}

/** A committed purge, for whoever records it (an audit trail, which keeps only a digest of the subject). */
export interface PurgeEvent {
  key_id: string
  scope: 'subject' | 'all'
  subject: string | null
  result: PurgeResult
}

export interface DataPurge {
  purge(scope: PurgeScope): Promise<PurgeResult>
}

export interface DataPurgeOptions {
  db: Db
  /** The register; default SUBJECT_DATA (tests and the composition root may add entries). */
  locations?: readonly SubjectDataLocation[]
  kept?: readonly KeptCategory[]
  /** Called after each committed purge: the place an audit trail connects. */
  onPurged?: (event: PurgeEvent) => void | Promise<void>
}

export function createDataPurge(options: DataPurgeOptions): DataPurge {
  const locations = options.locations ?? SUBJECT_DATA
  const kept = options.kept ?? KEPT_RECORDS
  return {
    async purge(scope) {
      const counts = await options.db.transaction(async (tx) => {
        const done: Array<{ location: SubjectDataLocation; count: number }> = []
        for (const location of locations) done.push({ location, count: await location.purge(tx, scope) })
        return done
      })
      const removed = counts
        .filter(({ location }) => location.action === 'delete')
        .map(({ location, count }) => ({ category: location.category, table: location.table, count }))
      const redacted = counts.filter(({ location }) => location.action === 'redact')
      const result: PurgeResult = {
        scope: scope.subject === null ? 'all' : 'subject',
        removed,
        kept: [
          ...redacted.map(({ location, count }) => ({
            category: location.category,
            table: location.table,
            reason: location.keptBecause ?? 'kept by law',
            redacted: count,
          })),
          ...kept.map((record) => ({ ...record, redacted: 0 })),
        ],
        total_removed: removed.reduce((sum, item) => sum + item.count, 0),
      }
      await options.onPurged?.({
        key_id: scope.keyId,
        scope: result.scope,
        subject: scope.subject,
        result,
      })
      return result
    },
  }
}
