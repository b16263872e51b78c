import { stringify } from 'csv-stringify/sync'
import { type Context, Hono } from 'hono'
import { z } from 'zod'
import type { KeyCaller } from '../../core/context.ts'
import { ServiceError } from '../../core/errors.ts'
import type { AuditRow, AuditStore, TrailFilter } from '../../core/evidence/audit-store.ts'
import type { ApiKeyService } from '../../core/keys/index.ts'
import { parseWith } from '../../core/operations/parse.ts'
import type { AppEnv } from '../env.ts'
import { keyCaller, requireKey } from '../middleware/require-key.ts'

/** Query of GET /v1/audit/trail (and its exports). */
export const AuditTrailQuery = z.object({
  from: z.iso.datetime({ offset: true }).optional().describe('Rows at or after this time (ISO 8601)'),
  to: z.iso.datetime({ offset: true }).optional().describe('Rows before this time (ISO 8601)'),
  operation: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Only this operation or change (e.g. sanctions_screen, webhooks_create, key.credit)'),
  subject: z
    .string()
    .min(1)
    .max(500)
    .optional()
    .describe(
      'Only rows about this subject (compared by the SHA-256 of its normalised form, so erased subjects are still found)',
    ),
  key_id: z.string().min(1).max(100).optional().describe('Operator only: one key’s chain'),
  cursor: z
    .string()
    .regex(/^\d{1,19}$/, 'must be the next_cursor of the previous page')
    .optional()
    .describe('next_cursor of the previous page'),
  limit: z.coerce.number().int().min(1).max(1000).optional().describe('Rows per page, 1-1000 (default 100)'),
})

/** Query of GET /v1/audit/verify. */
export const AuditVerifyQuery = z.object({
  key_id: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Operator only: verify one key’s chain (default: every chain)'),
})

const CSV_COLUMNS: readonly (keyof AuditRow)[] = [
  'id',
  'chain',
  'seq',
  'key_id',
  'at',
  'kind',
  'action',
  'outcome',
  'subject',
  'subject_sha256',
  'paid_with',
  'amount_micros',
  'receipt_id',
  'detail',
  'prev_hash',
  'hash',
]

/** The chain a caller may read: its own key's, or (operator) any or all. */
function scopeOf(caller: KeyCaller, keyId: string | undefined): Pick<TrailFilter, 'chain' | 'keyId'> {
  if (caller.role === 'admin') return keyId === undefined ? {} : { chain: `key:${keyId}` }
  if (keyId !== undefined && keyId !== caller.keyId) {
    throw new ServiceError('forbidden', 'Insufficient role', {})
  }
  return { chain: `key:${caller.keyId}` }
}

/** The export format the Accept header asks for; undefined for the JSON page. */
function exportFormat(c: Context<AppEnv>): 'csv' | 'ndjson' | undefined {
  const accept = (c.req.header('accept') ?? '').toLowerCase()
  if (accept.includes('text/csv')) return 'csv'
  if (accept.includes('application/x-ndjson') || accept.includes('application/jsonl')) return 'ndjson'
  return undefined
}

/** A CSV cell: JSON columns as JSON text. */
const csvRow = (row: AuditRow) =>
  CSV_COLUMNS.map((column) => {
    const value = row[column]
    return value !== null && typeof value === 'object' ? JSON.stringify(value) : value
  })

/**
 * The whole range, streamed page by page (1000 rows a query), so an export of any size holds one
 * page in memory: CSV with a header row, or JSON Lines (one row per line).
 */
function exportStream(
  audit: AuditStore,
  filter: TrailFilter,
  format: 'csv' | 'ndjson',
): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  let after = filter.after
  let first = true
  let done = false
  return new ReadableStream<Uint8Array>({
    async pull(controller) {
      if (done) return
      const page = await audit.trail({ ...filter, limit: 1000, ...(after === undefined ? {} : { after }) })
      let text = ''
      if (format === 'csv') {
        text = stringify(page.rows.map(csvRow), first ? { header: true, columns: [...CSV_COLUMNS] } : {})
        if (first && page.rows.length === 0) text = `${CSV_COLUMNS.join(',')}\n`
      } else {
        text = page.rows.map((row) => `${JSON.stringify(row)}\n`).join('')
      }
      first = false
      if (text) controller.enqueue(encoder.encode(text))
      if (page.next === undefined) {
        done = true
        controller.close()
      } else {
        after = BigInt(page.next)
      }
    },
  })
}

/**
 * The evidence routes: a paid answer's receipt (GET /v1/receipts/{id}), and the audit trail of
 * the caller's key (the operator's: every chain) with its verification and streamed exports.
 */
export function evidenceRoutes(options: { keys: Pick<ApiKeyService, 'authenticate'>; audit: AuditStore }) {
  const { audit, keys } = options
  const app = new Hono<AppEnv>()
  app.get('/v1/receipts/:receipt_id', async (c) => {
    const id = c.req.param('receipt_id')
    if (!/^rcpt_[0-9a-f]{32}$/.test(id)) {
      throw new ServiceError('validation_failed', 'invalid request', {
        fields: [{ field: 'receipt_id', message: 'must be a receipt id (rcpt_ and 32 hex digits)' }],
      })
    }
    const stored = await audit.receipt(id)
    // x402 receipts are served by their unguessable id (the payer has no key); a key's only to it.
    if (stored && !stored.chain.startsWith('x402:')) {
      const caller = await keys.authenticate(c.req.header('x-api-key'))
      if (caller.kind !== 'key') throw new ServiceError('unauthorized', 'an API key is required (X-API-Key)')
      if (caller.role !== 'admin' && stored.keyId !== caller.keyId) {
        throw new ServiceError('not_found', 'no such receipt')
      }
    }
    if (!stored?.receipt) throw new ServiceError('not_found', 'no such receipt')
    c.header('Cache-Control', 'private, max-age=3600')
    return c.json(stored.receipt as object)
  })
  app.use('/v1/audit/*', requireKey(keys))
  app.get('/v1/audit/trail', async (c) => {
    const query = parseWith(AuditTrailQuery, c.req.query())
    const caller = keyCaller(c)
    const filter: TrailFilter = {
      ...scopeOf(caller, query.key_id),
      ...(query.from ? { from: new Date(query.from) } : {}),
      ...(query.to ? { to: new Date(query.to) } : {}),
      ...(query.operation ? { action: query.operation } : {}),
      ...(query.subject ? { subject: query.subject } : {}),
      ...(query.cursor ? { after: BigInt(query.cursor) } : {}),
      limit: query.limit ?? 100,
    }
    const format = exportFormat(c)
    if (format) {
      return new Response(exportStream(audit, filter, format), {
        headers: {
          'Content-Type': format === 'csv' ? 'text/csv; charset=utf-8' : 'application/x-ndjson',
          'Content-Disposition': `attachment; filename="audit-trail.${format === 'csv' ? 'csv' : 'jsonl'}"`,
          'Cache-Control': 'no-store',
        },
      })
    }
    const page = await audit.trail(filter)
    if (page.next) {
      const next = new URL(c.req.url)
      next.searchParams.set('cursor', page.next)
      c.header('Link', `<${next.pathname}${next.search}>; rel="next"`)
    }
    c.header('Cache-Control', 'no-store')
    return c.json({ rows: page.rows, next_cursor: page.next ?? null })
  })
  app.get('/v1/audit/verify', async (c) => {
    const query = parseWith(AuditVerifyQuery, c.req.query())
    const scope = scopeOf(keyCaller(c), query.key_id)
    c.header('Cache-Control', 'no-store')
    return c.json(await audit.verify(scope.chain))
  })
  return app
}
