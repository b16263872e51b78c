import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import { defineOperation } from './define.ts'
import { keyCallerOf } from './operation-context.ts'

/** The confirmation a purge of everything must carry, so no stray `all: true` erases a key's data. */
export const PURGE_ALL_CONFIRMATION = 'erase all data of this key'

export const DataPurgeInput = z
  .object({
    subject: z
      .string()
      .trim()
      .min(3)
      .max(255)
      .optional()
      .describe(
        "Erase everything of the calling key that names this subject (a person's or company's name, a wallet, a registration number): rows whose stored text contains it, letter case ignored. 3-255 characters",
      ),
    all: z.literal(true).optional().describe('Erase everything of the calling key (needs confirm)'),
    confirm: z.string().optional().describe(`With all: true, exactly "${PURGE_ALL_CONFIRMATION}"`),
  })
  .strict()
  .superRefine((input, ctx) => {
    if ((input.subject === undefined) === (input.all === undefined)) {
      ctx.addIssue({ code: 'custom', path: ['subject'], message: 'give either subject or all: true' })
    }
    if (input.all && input.confirm !== PURGE_ALL_CONFIRMATION) {
      ctx.addIssue({
        code: 'custom',
        path: ['confirm'],
        message: `must be "${PURGE_ALL_CONFIRMATION}" with all: true`,
      })
    }
    if (!input.all && input.confirm !== undefined) {
      ctx.addIssue({ code: 'custom', path: ['confirm'], message: 'only with all: true' })
    }
  })

export const DataPurgeResult = z
  .object({
    scope: z
      .enum(['subject', 'all'])
      .describe('subject: the rows naming the subject; all: every row of the key'),
    removed: z
      .array(
        z
          .object({
            category: z.string().describe('Data category (as in GET /v1/data/inventory where it has one)'),
            table: z.string().describe('The table the rows were removed from'),
            count: z.number().int().min(0).describe('Rows removed'),
          })
          .strict(),
      )
      .describe('What was removed, per category (0 where nothing named the subject)'),
    kept: z
      .array(
        z
          .object({
            category: z.string().describe('Data category'),
            table: z.string().describe('The table'),
            reason: z.string().describe('Why it is kept (the legal duty), and what of it was removed'),
            redacted: z
              .number()
              .int()
              .min(0)
              .describe('Rows kept with their personal data removed by this purge'),
          })
          .strict(),
      )
      .describe(
        'Records kept because the law requires them (settlements, the key balance), without personal data',
      ),
    total_removed: z.number().int().min(0).describe('Sum of removed counts'),
    purged_at: z.string().describe('When the purge committed (ISO timestamp)'),
  })
  .strict()

/**
 * POST /v1/data/purge (GDPR Art. 17, erasure on request): one transaction over the register of
 * where subject data lives (core/retention/subject-data.ts). Idempotent: running it again removes
 * nothing more. Free; needs a customer key, and touches only that key's rows.
 */
export const dataPurge = defineOperation({
  id: 'data_purge',
  http: { method: 'POST', path: '/v1/data/purge' },
  title: 'Erase data',
  summary: "Erase the calling key's data about a subject, or all of its data (GDPR Art. 17)",
  description: `Removes, in one transaction, every stored check, entity report, watchlist entry, sanctions dismissal, compliance alert, webhook delivery and stored idempotent answer of the calling key that names the subject (or all of them with all: true and confirm "${PURGE_ALL_CONFIRMATION}", which also removes the key's webhooks). Settlement records stay (fiscal duty) with the answers they bought removed; the key and its balance stay. The answer lists what was removed per category and what was kept and why; GET /v1/data/inventory reflects it. Running it again removes nothing more. Another key's data is never touched. Free; needs an API key.`,
  input: DataPurgeInput,
  output: DataPurgeResult,
  price: null,
  ports: ['purge'],
  access: { sandbox: 'run', tenant: true },
  destructive: true,
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    const purge = ctx.deps.purge
    if (!purge) throw new ServiceError('unavailable', 'erasure is not available on this server')
    const result = await purge.purge({ keyId: caller.keyId, subject: input.all ? null : input.subject! })
    return { ...result, purged_at: ctx.clock.now().toISOString() }
  },
})
