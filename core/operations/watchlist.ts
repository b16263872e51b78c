import { z } from 'zod'
import { ServiceError } from '../errors.ts'
import type { WatchlistEntry } from '../monitoring/watchlist-store.ts'
import {
  ADDRESS_SCREEN_LISTS,
  NAME_SCREEN_LISTS,
  noCoverage,
  SanctionsCoverageSchema,
} from '../sanctions/coverage.ts'
import { SanctionsMatchSchema } from '../sanctions/sanctions-screen.ts'
import type { SanctionsScreening } from '../sanctions/screening-index.ts'
import type { ListKey } from '../sanctions/types.ts'
import {
  countrySchema,
  validateCbeNumber,
  validateEntityName,
  validateKvkNumber,
  validateWalletForChain,
  walletChainOf,
  walletChainSchema,
} from '../validate/index.ts'
import { requiredIssue } from '../validate/required-issue.ts'
import { monitoringOf } from './compliance-alerts.ts'
import { defineOperation } from './define.ts'
import { keyCallerOf, type OperationContext } from './operation-context.ts'
import { isOpen, MatchDismissalSchema, withDismissals } from './sanctions-dismissals.ts'

/**
 * The per-key watchlist (spec: /v1/watchlist routes): names, wallets and
 * registration numbers a key wants alerts for, beside the ones it checked. Key-bound tenant:
 * without a customer key, 403 "Tenant context required".
 */

const pageInteger = (min: number, max: number) => z.coerce.number().int().min(min).max(max)
const REGISTRATION = /^[A-Za-z0-9][A-Za-z0-9 .\-/]{0,63}$/

export const WatchlistAddInput = z
  .object({
    type: z
      .enum(['name', 'wallet', 'registration'])
      .describe(
        'name (person or company, optional country), wallet (address with chain) or registration (number with country)',
      ),
    value: z
      .string()
      .describe(
        'The name (2-255 characters), wallet address, or registration number (KVK 8 digits for NL, CBE for BE)',
      ),
    country: countrySchema
      .optional()
      .describe('ISO alpha-2: optional for a name (orders matches), required for a registration number'),
    chain: walletChainSchema
      .optional()
      .describe(
        'Chain of a wallet: eth, base, polygon, arbitrum, btc or sol; omitted, the address format decides (sol, btc, else eth)',
      ),
    label: z.string().max(200).optional().describe('Your own note, up to 200 characters'),
  })
  .strict()
  .superRefine((input, context) => {
    const problem = (path: string, message: string) =>
      context.addIssue({ code: 'custom', path: [path], message })
    if (input.type === 'name') {
      const name = validateEntityName(input.value)
      if (!name.ok) problem('value', name.message)
      if (input.chain) problem('chain', 'only for type wallet')
    } else if (input.type === 'wallet') {
      const wallet = validateWalletForChain(input.value, walletChainOf(input.value.trim(), input.chain))
      if (!wallet.ok) problem('value', wallet.message)
      if (input.country) problem('country', 'not used for type wallet')
    } else {
      if (input.chain) problem('chain', 'only for type wallet')
      if (!input.country) context.addIssue(requiredIssue(['country'], 'is required for type registration'))
      else if (input.country === 'NL') {
        const kvk = validateKvkNumber(input.value)
        if (!kvk.ok) problem('value', kvk.message)
      } else if (input.country === 'BE') {
        const cbe = validateCbeNumber(input.value)
        if (!cbe.ok) problem('value', cbe.message)
      } else if (!REGISTRATION.test(input.value)) {
        problem('value', 'must be 1-64 letters, digits, spaces, dots, dashes or slashes')
      }
    }
  })

const WatchlistEntrySchema = z
  .object({
    watchlist_id: z.string(),
    type: z.enum(['name', 'wallet', 'registration']),
    value: z.string(),
    country: z.string().nullable(),
    chain: z.string().nullable(),
    label: z.string().nullable(),
    created_at: z.string().describe('When it was added (ISO timestamp)'),
  })
  .strict()

const ScreeningSchema = z
  .object({
    status: z
      .enum(['ok', 'partial', 'unavailable'])
      .describe(
        'ok: every list the screen promises was checked; partial: some were not (see coverage), never clean; unavailable: no list is loaded, so it could not be screened (never clean)',
      ),
    matches_today: z
      .boolean()
      .nullable()
      .describe(
        'Whether it matches a list entry now that the key has not dismissed; null when unavailable, or partial without an open match (not known)',
      ),
    matches: z
      .array(SanctionsMatchSchema.extend({ dismissal: MatchDismissalSchema.optional() }).strict())
      .describe('Matching entries now, best first (at most 10); dismissed ones carry dismissal'),
    coverage: SanctionsCoverageSchema,
    list_note: z.string(),
  })
  .strict()

const WatchlistEntryWithScreening = WatchlistEntrySchema.extend({ screening: ScreeningSchema }).strict()

type Screening = z.infer<typeof ScreeningSchema>

function screeningOf(result: SanctionsScreening | undefined, promised: readonly ListKey[]): Screening {
  // Nothing the screen promises was checked (an address screen without OFAC SDN): unavailable.
  if (!result || result.status === 'unavailable' || result.coverage.status === 'none') {
    return {
      status: 'unavailable',
      matches_today: null,
      matches: [],
      coverage: result?.coverage ?? noCoverage(promised, 'this server runs without sanctions lists'),
      list_note: result?.note ?? 'sanctions lists are not loaded on this server',
    }
  }
  const complete = result.coverage.status === 'complete'
  const matched = result.matches.length > 0
  return {
    status: complete ? 'ok' : 'partial',
    matches_today: matched ? true : complete ? false : null,
    matches: result.matches,
    coverage: result.coverage,
    list_note: result.note,
  }
}

/** Screens an entry against the lists held now, by the same rules as the checks. */
function screenRaw(entry: WatchlistEntry, ctx: OperationContext<'sanctionsLists'>): Screening {
  const lists = ctx.deps.sanctionsLists
  const promised = entry.type === 'wallet' ? ADDRESS_SCREEN_LISTS : NAME_SCREEN_LISTS
  if (!lists) return screeningOf(undefined, promised)
  const limit = { limit: 10 }
  if (entry.type === 'wallet') return screeningOf(lists.screenAddress(entry.value, limit), promised)
  if (entry.type === 'registration')
    return screeningOf(lists.screenRegistration(entry.value, entry.country ?? undefined, limit), promised)
  return screeningOf(
    lists.screenName(entry.value, { ...limit, ...(entry.country ? { country: entry.country } : {}) }),
    promised,
  )
}

/**
 * The entry screened now with the key's dismissals applied: a dismissed match stays listed but
 * does not make matches_today true.
 */
async function screenEntry(
  entry: WatchlistEntry,
  ctx: OperationContext<'sanctionsLists' | 'dismissals'>,
): Promise<Screening> {
  const screening = screenRaw(entry, ctx)
  if (screening.matches.length === 0) return screening
  const matches = await withDismissals(ctx, entry.type, entry.value, screening.matches)
  const open = matches.some(isOpen)
  return {
    ...screening,
    matches,
    matches_today: open ? true : screening.status === 'ok' ? false : null,
  }
}

const WatchlistIdInput = z
  .object({ watchlist_id: z.string().min(1).max(64).describe('Id of the watchlist entry') })
  .strict()

export const watchlistAdd = defineOperation({
  id: 'watchlist_add',
  http: { method: 'POST', path: '/v1/watchlist', status: 201 },
  summary: 'Watch a name, wallet or registration number for sanctions list changes',
  description:
    'The entry is screened at once (screening.matches_today); from then on every OFAC, EU or UN list change that touches it is an alert of this key (GET /v1/compliance/alerts) and a sanctions.match.new webhook event. At most 10,000 entries per key (422 beyond). Free; needs an API key.',
  input: WatchlistAddInput,
  output: WatchlistEntryWithScreening,
  price: null,
  ports: ['monitoring', 'sanctionsLists', 'dismissals'],
  access: { sandbox: 'run', tenant: true },
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    const entry = await monitoringOf(ctx).watchlist.add(caller.keyId, {
      type: input.type,
      value: input.value.trim(),
      country: input.country ?? null,
      chain: input.type === 'wallet' ? walletChainOf(input.value.trim(), input.chain) : null,
      label: input.label ?? null,
    })
    return { ...entry, screening: await screenEntry(entry, ctx) }
  },
})

export const watchlistList = defineOperation({
  id: 'watchlist_list',
  http: { method: 'GET', path: '/v1/watchlist' },
  summary: "The calling key's watchlist, oldest first",
  input: z
    .object({
      limit: pageInteger(1, 500).optional().describe('Entries per page, 1-500 (default 100)'),
      offset: pageInteger(0, 1_000_000).optional().describe('Entries to skip (default 0)'),
    })
    .strict(),
  output: z
    .object({
      total: z.number().int().min(0),
      limit: z.number().int(),
      offset: z.number().int(),
      entries: z.array(WatchlistEntrySchema),
    })
    .strict(),
  price: null,
  ports: ['monitoring'],
  access: { sandbox: 'run', tenant: true },
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    const limit = input.limit ?? 100
    const offset = input.offset ?? 0
    const page = await monitoringOf(ctx).watchlist.list(caller.keyId, { limit, offset })
    return { total: page.total, limit, offset, entries: page.entries }
  },
})

export const watchlistGet = defineOperation({
  id: 'watchlist_get',
  http: { method: 'GET', path: '/v1/watchlist/{watchlist_id}' },
  summary: 'One watchlist entry, screened against the lists now',
  input: WatchlistIdInput,
  output: WatchlistEntryWithScreening,
  price: null,
  ports: ['monitoring', 'sanctionsLists', 'dismissals'],
  access: { sandbox: 'run', tenant: true },
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    const entry = await monitoringOf(ctx).watchlist.get(caller.keyId, input.watchlist_id)
    if (!entry) throw new ServiceError('not_found', 'unknown watchlist entry')
    return { ...entry, screening: await screenEntry(entry, ctx) }
  },
})

export const watchlistDelete = defineOperation({
  id: 'watchlist_delete',
  http: { method: 'DELETE', path: '/v1/watchlist/{watchlist_id}', status: 204 },
  summary: 'Stop watching an entry',
  input: WatchlistIdInput,
  output: z.object({ deleted: z.literal(true) }).strict(),
  price: null,
  ports: ['monitoring'],
  access: { sandbox: 'run', tenant: true },
  destructive: true,
  run: async (input, ctx) => {
    const caller = keyCallerOf(ctx)
    if (!(await monitoringOf(ctx).watchlist.remove(caller.keyId, input.watchlist_id))) {
      throw new ServiceError('not_found', 'unknown watchlist entry')
    }
    return { deleted: true as const }
  },
})
