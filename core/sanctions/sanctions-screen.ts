import { z } from 'zod'
import { nameKeys } from './name-normaliser.ts'
import { addressKey, REF_SLOTS, registrationKey, type SanctionsIndex } from './sanctions-index.ts'
import {
  AliasKindSchema,
  AliasQualitySchema,
  EntryTypeSchema,
  IdentifierTypeSchema,
  LIST_DISPLAY_NAMES,
  LIST_KEYS,
  type ListKey,
  ListKeySchema,
  type SanctionsEntry,
} from './types.ts'

/**
 * The screening core every check calls (sanctions screen, entity check, KYB, lead verify,
 * agent check). Spec (POST /v1/sanctions/screen): "Only exact normalised or
 * word-order-insensitive name matches; a match is not a determination"; `country` "orders
 * matches, never excludes"; results "may be truncated (matches_truncated)".
 */

export const MatchTypeSchema = z
  .enum(['name_exact', 'name_tokens', 'crypto_address', 'registration'])
  .describe('How the match was found')
export type MatchType = z.infer<typeof MatchTypeSchema>

export const MatchBasisSchema = z
  .object({
    field: z
      .enum(['primary_name', 'alias', 'crypto_address', 'registration'])
      .describe('Which part of the list entry matched'),
    value: z.string().describe('The listed value that matched (name, address or number as published)'),
    alias_kind: AliasKindSchema.optional(),
    alias_quality: AliasQualitySchema.optional(),
    currencies: z.array(z.string()).optional().describe('Currencies the matched address is listed under'),
    identifier_type: IdentifierTypeSchema.optional(),
    identifier_country: z.string().optional().describe('Issuing country of the matched registration number'),
  })
  .strict()
export type MatchBasis = z.infer<typeof MatchBasisSchema>

export const SanctionsMatchSchema = z
  .object({
    list: z.string().describe('Display name of the list'),
    list_key: ListKeySchema,
    entry_id: z.string().describe('Id of the entry within its list'),
    entry_type: EntryTypeSchema,
    matched_name: z.string().describe('The listed name that matched (primary name for address/registration)'),
    programmes: z.array(z.string()).describe('Sanctions programmes of the entry'),
    countries: z.array(z.string()).describe('ISO alpha-2 countries linked to the entry'),
    listed_on: z.string().nullable().describe('Listing date YYYY-MM-DD, null when the list gives none'),
    match_score: z.number().min(0).max(1).describe('Strength of the match, 0-1 (see NAME_MATCHING.md)'),
    match_type: MatchTypeSchema,
    basis: MatchBasisSchema,
  })
  .strict()
export type SanctionsMatch = z.infer<typeof SanctionsMatchSchema>

export interface ScreenResult {
  /** At most `limit` matches, best first (entries linked to `country` first when given). */
  matches: SanctionsMatch[]
  /** True when more matches existed than were returned. */
  truncated: boolean
  /** Number of matching entries before the cap. */
  total_matches: number
}

export interface ScreenOptions {
  /** ISO alpha-2; entries linked to it are ordered first. Never excludes a match. */
  country?: string
  /** Maximum matches returned (default 50). */
  limit?: number
}

export const DEFAULT_MATCH_LIMIT = 50

/**
 * Match scores. A name match on the primary name (or its original-script form) is the
 * strongest; the list's own weak/low aliases score lower; a word-order-only match scores
 * lower than the same name in order. Identifier matches are exact by construction.
 */
export const MATCH_SCORES = {
  primary: { name_exact: 1, name_tokens: 0.9 },
  strongAlias: { name_exact: 0.95, name_tokens: 0.85 },
  weakAlias: { name_exact: 0.7, name_tokens: 0.6 },
  cryptoAddress: 1,
  registration: 1,
  registrationOtherCountry: 0.5,
} as const

/** Tie-break order of lists in results: OFAC SDN, EU, UN. */
export const LIST_ORDER: Readonly<Record<ListKey, number>> = Object.fromEntries(
  LIST_KEYS.map((key, index) => [key, index]),
) as Record<ListKey, number>

interface Candidate {
  entryIndex: number
  score: number
  countryFirst: boolean
  match: () => SanctionsMatch
}

/** The fields of a match that describe the listed entry. */
export function baseMatch(
  entry: SanctionsEntry,
): Omit<SanctionsMatch, 'matched_name' | 'match_score' | 'match_type' | 'basis'> {
  return {
    list: LIST_DISPLAY_NAMES[entry.list],
    list_key: entry.list,
    entry_id: entry.entry_id,
    entry_type: entry.entry_type,
    programmes: entry.programmes.slice(),
    countries: entry.countries.slice(),
    listed_on: entry.listed_on,
  }
}

function finish(index: SanctionsIndex, candidates: Candidate[], limit: number | undefined): ScreenResult {
  const cap = Math.max(0, limit ?? DEFAULT_MATCH_LIMIT)
  candidates.sort(
    (a, b) =>
      Number(b.countryFirst) - Number(a.countryFirst) ||
      b.score - a.score ||
      LIST_ORDER[index.entries[a.entryIndex]!.list] - LIST_ORDER[index.entries[b.entryIndex]!.list] ||
      a.entryIndex - b.entryIndex,
  )
  const kept = candidates.length > cap ? candidates.slice(0, cap) : candidates
  return {
    matches: kept.map((candidate) => candidate.match()),
    truncated: candidates.length > cap,
    total_matches: candidates.length,
  }
}

function linkedTo(entry: SanctionsEntry, country: string | undefined): boolean {
  return country !== undefined && entry.countries.includes(country)
}

/**
 * Screens a person or company name: exact normalised match first, then word-order-insensitive
 * match (NAME_MATCHING.md). One match per entry (its best-scoring name); capped at
 * `options.limit` with `truncated` reported.
 */
export function screenName(index: SanctionsIndex, name: string, options: ScreenOptions = {}): ScreenResult {
  const keys = nameKeys(name)
  if (!keys) return { matches: [], truncated: false, total_matches: 0 }
  const country = options.country?.toUpperCase()
  const best = new Map<number, { ref: number; type: 'name_exact' | 'name_tokens'; score: number }>()
  const consider = (refs: readonly number[] | undefined, type: 'name_exact' | 'name_tokens') => {
    if (!refs) return
    for (const ref of refs) {
      const entryIndex = Math.floor(ref / REF_SLOTS)
      const aliasSlot = ref % REF_SLOTS
      const entry = index.entries[entryIndex]!
      const alias = aliasSlot === 0 ? undefined : entry.aliases[aliasSlot - 1]
      const tier =
        alias === undefined ||
        (alias.kind === 'original_script' && alias.quality === undefined) ||
        alias.kind === undefined
          ? MATCH_SCORES.primary
          : alias.quality === 'weak' || alias.quality === 'low'
            ? MATCH_SCORES.weakAlias
            : MATCH_SCORES.strongAlias
      const score = tier[type]
      const current = best.get(entryIndex)
      if (current === undefined || score > current.score) best.set(entryIndex, { ref, type, score })
    }
  }
  consider(index.byExactName.get(keys.exact), 'name_exact')
  consider(index.byTokenKey.get(keys.tokens), 'name_tokens')

  const candidates: Candidate[] = []
  for (const [entryIndex, hit] of best) {
    const entry = index.entries[entryIndex]!
    candidates.push({
      entryIndex,
      score: hit.score,
      countryFirst: linkedTo(entry, country),
      match: () => {
        const aliasSlot = hit.ref % REF_SLOTS
        const alias = aliasSlot === 0 ? undefined : entry.aliases[aliasSlot - 1]
        const basis: MatchBasis = alias
          ? { field: 'alias', value: alias.name }
          : { field: 'primary_name', value: entry.name }
        if (alias?.kind) basis.alias_kind = alias.kind
        if (alias?.quality) basis.alias_quality = alias.quality
        return {
          ...baseMatch(entry),
          matched_name: alias ? alias.name : entry.name,
          match_score: hit.score,
          match_type: hit.type,
          basis,
        }
      },
    })
  }
  return finish(index, candidates, options.limit)
}

/**
 * Screens a crypto wallet address against the listed digital currency addresses. EVM and
 * bech32 addresses match in any letter case; base58 and other forms only exactly.
 */
export function screenAddress(
  index: SanctionsIndex,
  address: string,
  options: Pick<ScreenOptions, 'limit'> = {},
): ScreenResult {
  const refs = index.byAddress.get(addressKey(address))
  if (!refs || address.trim() === '') return { matches: [], truncated: false, total_matches: 0 }
  const byEntry = new Map<number, number[]>()
  for (const ref of refs) {
    const entryIndex = Math.floor(ref / REF_SLOTS)
    const list = byEntry.get(entryIndex)
    if (list) list.push(ref % REF_SLOTS)
    else byEntry.set(entryIndex, [ref % REF_SLOTS])
  }
  const candidates: Candidate[] = []
  for (const [entryIndex, identifierIndexes] of byEntry) {
    const entry = index.entries[entryIndex]!
    candidates.push({
      entryIndex,
      score: MATCH_SCORES.cryptoAddress,
      countryFirst: false,
      match: () => {
        const identifiers = identifierIndexes.map((i) => entry.identifiers[i]!)
        const currencies = [...new Set(identifiers.map((identifier) => identifier.currency ?? ''))].filter(
          Boolean,
        )
        return {
          ...baseMatch(entry),
          matched_name: entry.name,
          match_score: MATCH_SCORES.cryptoAddress,
          match_type: 'crypto_address',
          basis: {
            field: 'crypto_address',
            value: identifiers[0]!.value,
            currencies,
            identifier_type: 'crypto_address',
          },
        }
      },
    })
  }
  return finish(index, candidates, options.limit)
}

/**
 * Screens a company registration (or tax/trade register) number, compared on letters and
 * digits only. `country` orders matches and lowers the score of a number issued by another
 * country (0.5); it never excludes one.
 */
export function screenRegistration(
  index: SanctionsIndex,
  number: string,
  country?: string,
  options: Pick<ScreenOptions, 'limit'> = {},
): ScreenResult {
  const key = registrationKey(number)
  const refs = key ? index.byRegistration.get(key) : undefined
  if (!refs) return { matches: [], truncated: false, total_matches: 0 }
  const wanted = country?.toUpperCase()
  const best = new Map<number, { identifierIndex: number; score: number; countryFirst: boolean }>()
  for (const ref of refs) {
    const entryIndex = Math.floor(ref / REF_SLOTS)
    const identifierIndex = ref % REF_SLOTS
    const entry = index.entries[entryIndex]!
    const issuer = entry.identifiers[identifierIndex]!.country
    const otherCountry = wanted !== undefined && issuer !== undefined && issuer !== wanted
    const score = otherCountry ? MATCH_SCORES.registrationOtherCountry : MATCH_SCORES.registration
    const countryFirst =
      wanted !== undefined && (issuer === wanted || (issuer === undefined && linkedTo(entry, wanted)))
    const current = best.get(entryIndex)
    if (current === undefined || score > current.score)
      best.set(entryIndex, { identifierIndex, score, countryFirst })
  }
  const candidates: Candidate[] = []
  for (const [entryIndex, hit] of best) {
    const entry = index.entries[entryIndex]!
    candidates.push({
      entryIndex,
      score: hit.score,
      countryFirst: hit.countryFirst,
      match: () => {
        const identifier = entry.identifiers[hit.identifierIndex]!
        const basis: MatchBasis = {
          field: 'registration',
          value: identifier.value,
          identifier_type: identifier.type,
        }
        if (identifier.country) basis.identifier_country = identifier.country
        return {
          ...baseMatch(entry),
          matched_name: entry.name,
          match_score: hit.score,
          match_type: 'registration',
          basis,
        }
      },
    })
  }
  return finish(index, candidates, options.limit)
}
