/**
 * The register of stored data categories (GDPR Art. 30; spec: Data inventory item): what is kept,
 * where, for how long and why. Adding a category is one entry here; the retention job, the
 * inventory route and the privacy placeholder all read this list. Table and column names are
 * constants of this file (never input), so the job may build its statements from them.
 */
export interface RetentionCategory {
  /** Inventory name (`usage_logs`); RETENTION_DAYS overrides use it. */
  category: string
  description: string
  table: string
  /** When a row was stored; the row is deleted once this is older than the retention. */
  timestampColumn: string
  /** Column naming the API key a row belongs to: customers see counts of their own rows only. */
  ownerColumn?: string
  /** Public data (the sanctions lists): the same counts for every caller. */
  publicData?: boolean
  /** The stored sanctions list versions: the inventory item also lists each list's publication date, age and freshness. */
  sanctionsLists?: boolean
  defaultRetentionDays: number
  /** A legal minimum: a shorter RETENTION_DAYS value stops start-up. */
  minimumRetentionDays?: number
  /** Why it is kept this long (the legal basis or the law that requires it). */
  legalNote: string
  /** Rows the job may delete besides age (a constant SQL condition), e.g. only finished settlements. */
  deletableWhere?: string
  /**
   * `owner`: the module that owns the table removes rows on its own schedule (listed for the
   * register; the retention job leaves it alone). Default: the retention job.
   */
  cleanup?: 'retention_job' | 'owner'
  /** For `owner` cleanup: how often the owner removes rows (next_cleanup). */
  ownerCleanupEveryMs?: number
}

/** Seven years: the fiscal record-keeping period for the service's revenue records. */
export const SEVEN_YEARS_DAYS = 2557

/** The audit trail's category (core/evidence/audit-store.ts drops its expired ranges itself). */
export const AUDIT_TRAIL_CATEGORY = 'audit_trail'

export const RETENTION_CATEGORIES: readonly RetentionCategory[] = [
  {
    category: AUDIT_TRAIL_CATEGORY,
    description:
      'The audit trail: every paid call (operation, amount, how it was paid, its signed receipt with request and answer hashes and the list versions used) and every key, webhook and watchlist change, hash-chained per key; the subject is kept in clear and as a SHA-256 (erasure removes the clear text only)',
    table: 'audit_events',
    timestampColumn: 'at',
    ownerColumn: 'key_id',
    defaultRetentionDays: SEVEN_YEARS_DAYS,
    legalNote:
      'GDPR Art. 6(1)(c) and (f): evidence for the callers’ AML examinations (EU AMLD Art. 40: 5 years after the business relationship) and for the revenue records the rows price (7 years); an expired range is dropped behind a signed checkpoint so the rest of the chain still verifies',
    cleanup: 'owner',
    ownerCleanupEveryMs: 86_400_000,
  },
  {
    category: 'usage_logs',
    description: 'One row per key-authenticated or paid call: key id, operation, outcome, cost, latency',
    table: 'usage_events',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: 395,
    legalNote:
      'GDPR Art. 6(1)(b) and (f): usage reports, billing questions and abuse investigation; 13 months allows a year-on-year monthly comparison (storage limitation, Art. 5(1)(e))',
  },
  {
    category: 'stored_checks',
    description:
      'Company checks a caller ran (inputs such as names, registration numbers, domains, IBANs and wallets, and the result), for reputation history and the cached tier',
    table: 'entity_checks',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: 365,
    legalNote:
      'GDPR Art. 6(1)(b): the caller’s history and cached answers. Callers with AML record-keeping duties (EU AMLD Art. 40: 5 years) keep their own copies; this service keeps one year',
  },
  {
    category: 'settlements',
    description: 'x402 payments: payer address, network, amount, operation, transaction hash and status',
    table: 'settlements',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: SEVEN_YEARS_DAYS,
    minimumRetentionDays: SEVEN_YEARS_DAYS,
    deletableWhere: "status in ('SETTLED', 'FAILED')",
    legalNote:
      'Legal obligation (GDPR Art. 6(1)(c)): revenue records are kept 7 years (Netherlands: Algemene wet inzake rijksbelastingen art. 52(4) and Burgerlijk Wetboek 2:10(3)); rows still PENDING are never deleted',
  },
  {
    category: 'payment_nonces',
    description: 'Used x402 nonces with the payer address (replay protection)',
    table: 'payment_nonces',
    timestampColumn: 'expires_at',
    defaultRetentionDays: 1,
    legalNote:
      'GDPR Art. 6(1)(f): replay protection needs a nonce for 5 minutes (signatures are valid at most 5 minutes); kept one day after expiry',
  },
  {
    category: 'key_reservations',
    description: 'Open key charges of calls in progress (key id, operation, amount)',
    table: 'key_reservations',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: 1,
    cleanup: 'owner',
    ownerCleanupEveryMs: 60_000,
    legalNote:
      'GDPR Art. 6(1)(b): money safety of calls in progress; captured rows are deleted about a minute after the call by the payment worker, open rows of dead processes are refunded by its sweep',
  },
  {
    category: 'list_versions',
    description:
      'Stored versions of the OFAC, EU and UN sanctions lists (public data); the newest of each list is never deleted',
    table: 'sanctions_list_versions',
    timestampColumn: 'fetched_at',
    publicData: true,
    sanctionsLists: true,
    defaultRetentionDays: 365,
    deletableWhere:
      'id not in (select distinct on (list_key) id from sanctions_list_versions order by list_key, fetched_at desc)',
    legalNote:
      'Public official lists (GDPR Art. 6(1)(c) and (f): sanctions screening); old versions show what a screen was based on. SANCTIONS_KEEP_VERSIONS also caps the count per list',
  },
  {
    category: 'list_diffs',
    description: 'Changes between consecutive sanctions list versions (drive compliance alerts and webhooks)',
    table: 'sanctions_list_diffs',
    timestampColumn: 'created_at',
    publicData: true,
    defaultRetentionDays: 730,
    legalNote: 'Public official lists: two years of alerts history',
  },
  {
    category: 'usage_rollups',
    description: 'Hourly call counts, cost and latency per key and operation (the usage reports)',
    table: 'usage_rollups',
    timestampColumn: 'hour',
    ownerColumn: 'key_id',
    defaultRetentionDays: 395,
    legalNote: 'GDPR Art. 6(1)(b): usage reports; kept as long as the usage log they summarise',
  },
  {
    category: 'idempotency_records',
    description:
      'Idempotency-Key claims of key-paid calls: the key, the Idempotency-Key, a hash of the request and the answer given (so a retried call is answered again without a second charge)',
    table: 'idempotency_records',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: 1,
    legalNote:
      'GDPR Art. 6(1)(b): a client that retries a call after a crash gets the answer it paid for, once; 24 hours covers any retry (the Stripe convention), then the answer is deleted',
  },
  {
    category: 'entity_reports',
    description:
      'Signed entity reports (entity, sanctions, PEP, domain, risk, findings, evidence) and their identifiers (VAT, IBAN, domain, wallet, register number) for correlations',
    table: 'entity_reports',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: 1825,
    legalNote:
      'GDPR Art. 6(1)(b) and (c): the caller’s due-diligence record (AML record keeping, five years); identifiers are deleted with their report',
  },
  {
    category: 'compliance_alerts',
    description:
      'Sanctions list changes, and the ones that touch a name, register number or wallet a key checked or watches (with the match)',
    table: 'compliance_alerts',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: 730,
    legalNote: 'GDPR Art. 6(1)(b) and (c): the caller’s sanctions monitoring; two years of alert history',
  },
  {
    category: 'sanctions_dismissals',
    description:
      'Sanctions matches a key dismissed as false positives: the subject as screened, the list entry and its fingerprint, the reason and who dismissed it',
    table: 'sanctions_dismissals',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: 3650,
    cleanup: 'owner',
    ownerCleanupEveryMs: 24 * 60 * 60_000,
    legalNote:
      'GDPR Art. 6(1)(b) and (c): the key’s screening decisions, kept while the key relies on them (AML record keeping); removed with DELETE /v1/sanctions/dismissals/{id} or POST /v1/data/purge',
  },
  {
    category: 'watchlist',
    description: 'Names, register numbers and wallet addresses a key asked to monitor',
    table: 'watchlist_entries',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: 3650,
    cleanup: 'owner',
    ownerCleanupEveryMs: 24 * 60 * 60_000,
    legalNote:
      'GDPR Art. 6(1)(b): kept while the key monitors it; the key removes an entry with DELETE /v1/watchlist/{id}',
  },
  {
    category: 'webhook_deliveries',
    description: 'Signed event deliveries to a key’s webhooks (event, body, status), finished ones only',
    table: 'webhook_deliveries',
    timestampColumn: 'created_at',
    ownerColumn: 'key_id',
    defaultRetentionDays: 90,
    deletableWhere: "status <> 'queued'",
    legalNote: 'GDPR Art. 6(1)(b): lets a receiver debug and re-check deliveries; three months',
  },
  {
    category: 'webhook_attempts',
    description:
      'Each delivery attempt (status code, duration, error), shown in GET /v1/webhooks/{id}/deliveries',
    table: 'webhook_attempts',
    timestampColumn: 'at',
    defaultRetentionDays: 90,
    legalNote: 'GDPR Art. 6(1)(b): delivery debugging; three months, as the deliveries',
  },
]

/**
 * The retention in days per category: the defaults, overridden by RETENTION_DAYS
 * (`usage_logs=90,stored_checks=180`). An unknown category, a value that is not a whole number of
 * days, or one below a legal minimum throws with a message naming the problem.
 */
export function resolveRetentionDays(
  categories: readonly RetentionCategory[],
  overrides: string | undefined,
): Record<string, number> {
  const days: Record<string, number> = Object.fromEntries(
    categories.map((category) => [category.category, category.defaultRetentionDays]),
  )
  for (const part of (overrides ?? '').split(',')) {
    const entry = part.trim()
    if (!entry) continue
    const match = /^([a-z_]+)\s*=\s*(\d+)$/.exec(entry)
    if (!match) throw new Error(`"${entry}" is not category=days`)
    const [, name = '', value = ''] = match
    const category = categories.find((candidate) => candidate.category === name)
    if (!category)
      throw new Error(`unknown category ${name} (known: ${categories.map((c) => c.category).join(', ')})`)
    const parsed = Number(value)
    if (parsed < 1) throw new Error(`${name}: at least 1 day`)
    if (category.minimumRetentionDays && parsed < category.minimumRetentionDays) {
      throw new Error(
        `${name}: the law requires at least ${category.minimumRetentionDays} days (${category.legalNote})`,
      )
    }
    days[name] = parsed
  }
  return days
}
