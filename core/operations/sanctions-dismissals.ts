import { z } from 'zod'
import type { SanctionsNameScreen } from '../checks/sanctions-name-screen.ts'
import { ServiceError } from '../errors.ts'
import {
  type DismissableMatch,
  type Dismissal,
  type DismissalStore,
  type DismissalSubjectType,
  type MatchDismissal,
  MatchDismissalSchema,
  subjectKeyOf,
} from '../sanctions/dismissal-store.ts'
import { type ListKey, ListKeySchema } from '../sanctions/types.ts'
import { defineOperation } from './define.ts'

export { MatchDismissalSchema }

import { keyCallerOf, type OperationContext } from './operation-context.ts'

/**
 * Dismissed false positives (POST/GET/DELETE /v1/sanctions/dismissals): an analyst records that a
 * list entry matched by a subject is not that subject. The key's later screens, entity checks,
 * watchlist screens and alerts show that match as dismissed instead of raising it again, until
 * the list entry changes. Free; needs a customer key (tenant data).
 */

export const SubjectTypeSchema = z
  .enum(['name', 'wallet', 'registration'])
  .describe(
    'What the subject is: name (person or company, the default), wallet (crypto address) or registration (company registration number)',
  )

export const DismissalSchema = z
  .object({
    dismissal_id: z.string().describe('Id of the dismissal'),
    subject_type: SubjectTypeSchema,
    subject: z.string().describe('The subject as it was screened when dismissed'),
    list_key: ListKeySchema,
    entry_id: z.string().describe('Id of the dismissed entry within its list'),
    entry_name: z.string().describe('Primary name of the entry when it was dismissed'),
    entry_fingerprint: z
      .string()
      .describe(
        "SHA-256 (hex) of the entry's canonical content (JCS) when it was dismissed; a list version where it differs re-opens the dismissal",
      ),
    reason: z.string().describe('Why the analyst dismissed the match'),
    dismissed_by: z.string().describe('Who dismissed it (as given, e.g. an e-mail address)'),
    dismissed_at: z.string().describe('When it was dismissed (ISO timestamp)'),
    status: z
      .enum(['active', 'reopened'])
      .describe(
        'active: matches of this subject with this entry show as dismissed; reopened: the list entry changed since, so the match is raised again (dismiss again after review)',
      ),
    reopened_at: z
      .string()
      .nullable()
      .describe('When the dismissal was re-opened (ISO timestamp), else null'),
    reopened_reason: z.string().nullable().describe('Why it was re-opened ("list entry changed"), else null'),
  })
  .strict()

export function dismissalsOf(ctx: OperationContext<'dismissals'>): DismissalStore {
  const store = ctx.deps.dismissals
  if (!store) throw new ServiceError('unavailable', 'dismissals are not available on this server')
  return store
}

export const DismissalCreateInput = z
  .object({
    subject: z
      .string()
      .trim()
      .min(2)
      .max(255)
      .describe(
        'The name, wallet address or registration number as it was screened; compared the way the matcher compares it (letter case, accents, punctuation and word order of names do not matter)',
      ),
    subject_type: SubjectTypeSchema.optional(),
    list: ListKeySchema.describe(
      'The list of the dismissed entry: ofac_sdn, eu or un (list_key of the match)',
    ),
    entry_id: z.string().trim().min(1).max(64).describe('entry_id of the dismissed match'),
    reason: z
      .string()
      .trim()
      .min(1)
      .max(2000)
      .describe('Why the match is not this subject (kept with the dismissal)'),
    dismissed_by: z
      .string()
      .trim()
      .min(1)
      .max(320)
      .describe('Who dismissed it, free text such as the analyst’s e-mail address'),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (!subjectKeyOf(input.subject_type ?? 'name', input.subject))
      ctx.addIssue({ code: 'custom', path: ['subject'], message: 'has no letters or digits to compare' })
  })

export const sanctionsDismissalCreate = defineOperation({
  id: 'sanctions_dismissal_create',
  http: { method: 'POST', path: '/v1/sanctions/dismissals', status: 201 },
  title: 'Dismiss a sanctions match',
  summary: 'Dismiss a false-positive sanctions match for a subject, until the list entry changes',
  description:
    "Records that a list entry matched by the subject is not that subject (who, why). The calling key's later sanctions screens (exact and fuzzy), entity checks, watchlist screens and alerts show that match with dismissal.status dismissed instead of raising it: it stays in matches but no longer makes possible_match true, and no alert fires for it. The entry's content is fingerprinted (SHA-256 of its JCS form); when a list version changes the entry, the dismissal re-opens (status reopened, 'list entry changed') and the match counts again. Dismissing the same subject and entry again replaces the earlier dismissal. 422 when the entry is not on the list held now. Free; needs an API key.",
  input: DismissalCreateInput,
  output: DismissalSchema,
  price: null,
  ports: ['dismissals', 'sanctionsLists'],
  access: { sandbox: 'run', tenant: true },
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    const store = dismissalsOf(ctx)
    const lists = ctx.deps.sanctionsLists
    if (!lists?.ready())
      throw new ServiceError('unavailable', 'the sanctions lists are not loaded yet', { retryAfter: 60 })
    const entry = lists.entry(input.list, input.entry_id)
    if (!entry) {
      throw new ServiceError('validation_failed', 'invalid request', {
        fields: [{ field: 'entry_id', message: `is not an entry of the ${input.list} list held now` }],
      })
    }
    const { dismissal } = await store.create(caller.keyId, {
      subject_type: (input.subject_type ?? 'name') as DismissalSubjectType,
      subject: input.subject,
      entry,
      reason: input.reason,
      dismissed_by: input.dismissed_by,
    })
    return dismissal satisfies Dismissal
  },
})

export const sanctionsDismissalList = defineOperation({
  id: 'sanctions_dismissal_list',
  http: { method: 'GET', path: '/v1/sanctions/dismissals' },
  title: 'List sanctions dismissals',
  summary: "The calling key's dismissed sanctions matches, newest first, re-opened ones included",
  input: z
    .object({
      limit: z.coerce
        .number()
        .int()
        .min(1)
        .max(500)
        .optional()
        .describe('Dismissals per page, 1-500 (default 100)'),
      cursor: z
        .string()
        .max(200)
        .optional()
        .describe('next_cursor of the previous page; omitted for the first page'),
    })
    .strict(),
  output: z
    .object({
      dismissals: z.array(DismissalSchema).describe('This page, newest first'),
      next_cursor: z.string().nullable().describe('Cursor of the next page, null on the last'),
    })
    .strict(),
  price: null,
  ports: ['dismissals'],
  access: { sandbox: 'run', tenant: true },
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    return dismissalsOf(ctx).list(caller.keyId, {
      limit: input.limit ?? 100,
      ...(input.cursor ? { cursor: input.cursor } : {}),
    })
  },
})

export const sanctionsDismissalDelete = defineOperation({
  id: 'sanctions_dismissal_delete',
  http: { method: 'DELETE', path: '/v1/sanctions/dismissals/{dismissal_id}', status: 204 },
  title: 'Delete a sanctions dismissal',
  summary: 'Withdraw a dismissal: the match counts again on the next screen',
  input: z.object({ dismissal_id: z.string().min(1).max(64).describe('Id of the dismissal') }).strict(),
  output: z.object({ deleted: z.literal(true).describe('The dismissal was removed') }).strict(),
  price: null,
  ports: ['dismissals'],
  access: { sandbox: 'run', tenant: true },
  destructive: true,
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    if (!(await dismissalsOf(ctx).remove(caller.keyId, input.dismissal_id)))
      throw new ServiceError('not_found', 'unknown dismissal')
    return { deleted: true as const }
  },
})

/**
 * The matches of a screen with the calling key's dismissals applied (see DismissalStore.apply).
 * Without a customer key (an x402 payer) or a dismissal store, the matches as they are.
 */
export async function withDismissals<M extends DismissableMatch>(
  ctx: OperationContext<'dismissals' | 'sanctionsLists'>,
  subjectType: DismissalSubjectType,
  subject: string,
  matches: readonly M[],
): Promise<Array<M & { dismissal?: MatchDismissal }>> {
  const store = ctx.deps.dismissals
  const lists = ctx.deps.sanctionsLists
  if (!store || !lists || ctx.caller.kind !== 'key' || matches.length === 0) return [...matches]
  return store.apply(ctx.caller.keyId, subjectType, subject, matches, lists.entry)
}

/** A match that counts towards the verdict: not dismissed (a re-opened one counts). */
export function isOpen(match: { dismissal?: MatchDismissal }): boolean {
  return match.dismissal?.status !== 'dismissed'
}

/**
 * The checks' sanctions port with the calling key's dismissals applied to name screens: a
 * dismissed match (entry unchanged) leaves `matches` for `dismissed`, so it no longer makes the
 * screen a possible match, and the check's evidence names it with who dismissed it, when and why.
 * A re-opened one stays a match.
 */
export function dismissalAwareScreen(
  ctx: OperationContext<'sanctions' | 'dismissals' | 'sanctionsLists'>,
): SanctionsNameScreen | undefined {
  const port = ctx.deps.sanctions
  if (!port || !ctx.deps.dismissals || ctx.caller.kind !== 'key') return port
  return {
    ...port,
    screenName: async (name, country, options) => {
      const result = await port.screenName(name, country, options)
      if (result.status !== 'ok' || result.matches.length === 0) return result
      const applied = await withDismissals(
        ctx,
        'name',
        name,
        result.matches.map((match) => ({ ...match, list_key: match.list_key as ListKey })),
      )
      const open = applied.filter(isOpen).map(({ dismissal: _dismissal, ...match }) => match)
      const dismissed = applied.flatMap(({ dismissal, ...match }) =>
        dismissal && !isOpen({ dismissal })
          ? [
              {
                ...match,
                dismissal: {
                  dismissal_id: dismissal.dismissal_id,
                  dismissed_by: dismissal.dismissed_by,
                  dismissed_at: dismissal.dismissed_at,
                  reason: dismissal.reason,
                },
              },
            ]
          : [],
      )
      if (dismissed.length === 0) return result
      return { ...result, possible_match: open.length > 0, matches: open, dismissed }
    },
  }
}
