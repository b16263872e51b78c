import { index, pgTable, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core'

/**
 * Dismissed sanctions matches (core/sanctions/dismissal-store.ts): an analyst of one key decided
 * that a list entry matched by a subject is not that subject. `subject_key` is the subject
 * normalised the way the matcher compares it (name key, address key or registration key), so the
 * same party screened with other spacing or letter case finds the dismissal. `entry_fingerprint`
 * is the SHA-256 of the entry's canonical content when it was dismissed: a list version where the
 * entry reads otherwise re-opens the dismissal (`status` reopened, `reopened_at`). One row per
 * (key, subject, entry); dismissing again replaces it.
 */
export const sanctionsDismissals = pgTable(
  'sanctions_dismissals',
  {
    id: text('id').primaryKey(),
    keyId: text('key_id').notNull(),
    subjectType: text('subject_type').notNull(),
    subject: text('subject').notNull(),
    subjectKey: text('subject_key').notNull(),
    listKey: text('list_key').notNull(),
    entryId: text('entry_id').notNull(),
    entryName: text('entry_name').notNull(),
    entryFingerprint: text('entry_fingerprint').notNull(),
    reason: text('reason').notNull(),
    dismissedBy: text('dismissed_by').notNull(),
    /** active | reopened */
    status: text('status').notNull(),
    reopenedAt: timestamp('reopened_at', { withTimezone: true }),
    reopenedReason: text('reopened_reason'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull(),
  },
  (table) => [
    uniqueIndex('sanctions_dismissals_subject_entry_idx').on(
      table.keyId,
      table.subjectType,
      table.subjectKey,
      table.listKey,
      table.entryId,
    ),
    index('sanctions_dismissals_key_created_idx').on(table.keyId, table.createdAt, table.id),
  ],
)
