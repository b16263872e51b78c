import { AUDIT_TRAIL_CATEGORY } from '../retention/categories.ts'
import type { SubjectDataLocation } from '../retention/subject-data.ts'
import { redactAuditSubjects } from './audit-store.ts'

/**
 * The audit trail in the erasure register: its rows stay (append-only and hash-chained, the
 * evidence a regulator asks for), and a purge removes the subject they name. The chain hashes the
 * subject's SHA-256, never the subject, so it still verifies afterwards.
 */
export const AUDIT_SUBJECTS: SubjectDataLocation = {
  category: AUDIT_TRAIL_CATEGORY,
  table: 'audit_events',
  action: 'redact',
  keptBecause:
    'the audit trail is append-only and hash-chained; the rows stay with the subject removed (only its SHA-256 remains)',
  purge: (tx, scope) => redactAuditSubjects(tx, scope.keyId, scope.subject ?? undefined),
}
