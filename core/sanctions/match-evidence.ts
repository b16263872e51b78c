import { z } from 'zod'
import { registrationKey } from './sanctions-index.ts'
import type { SanctionsEntry } from './types.ts'

/**
 * Evidence beside the name, for the fuzzy screen: what the caller knows about the party
 * (type, date of birth, nationality, an ID number) against what the list publishes. Each
 * comparison moves the name score up or down by a fixed amount, shown in the score breakdown,
 * and nothing the list does not publish changes a score. Amounts (NAME_MATCHING.md, "Evidence"):
 *
 * | evidence      | agrees                                   | conflicts                              |
 * | ------------- | ---------------------------------------- | -------------------------------------- |
 * | entity_type   | 0                                        | -0.20 (a person screened, a company listed) |
 * | birth_date    | +0.08 same full date, +0.05 same year    | -0.15 no listed date within a year     |
 * | nationality   | +0.05 a listed nationality (+0.03 a linked country when none is listed) | -0.08 listed nationalities, none this one |
 * | id_number     | +0.20 the same document or registration number | 0 (people hold several documents) |
 */

export const EvidenceEntityTypeSchema = z
  .enum(['person', 'organization', 'vessel', 'any'])
  .describe('What kind of party the name belongs to; a listed party of another kind scores lower')
export type EvidenceEntityType = z.infer<typeof EvidenceEntityTypeSchema>

export interface MatchEvidence {
  entity_type?: EvidenceEntityType
  /** YYYY, YYYY-MM or YYYY-MM-DD. */
  birth_date?: string
  /** ISO alpha-2. */
  nationality?: string
  id_number?: string
}

export const EvidenceAdjustmentSchema = z
  .object({
    field: z
      .enum(['entity_type', 'birth_date', 'nationality', 'id_number'])
      .describe('The evidence compared'),
    outcome: z.enum(['match', 'conflict']).describe('Whether the list agrees with the evidence given'),
    effect: z.number().describe('What it added to (or took from) the name score'),
    detail: z.string().describe('What was compared, in words'),
  })
  .strict()
export type EvidenceAdjustment = z.infer<typeof EvidenceAdjustmentSchema>

export const EVIDENCE_EFFECTS = {
  entityTypeConflict: -0.2,
  birthDateExact: 0.08,
  birthYear: 0.05,
  birthDateConflict: -0.15,
  nationality: 0.05,
  linkedCountry: 0.03,
  nationalityConflict: -0.08,
  idNumber: 0.2,
} as const

const KIND_OF_TYPE: Readonly<Record<SanctionsEntry['entry_type'], Exclude<EvidenceEntityType, 'any'>>> = {
  person: 'person',
  entity: 'organization',
  other: 'organization',
  vessel: 'vessel',
  aircraft: 'vessel',
}

interface YearRange {
  from: number
  to: number
  /** The full date when the list gives one day. */
  day: string | null
}

function yearRange(value: string): YearRange | null {
  const [fromText, toText] = value.split('/')
  const from = Number.parseInt(fromText?.slice(0, 4) ?? '', 10)
  const to = Number.parseInt((toText ?? fromText)?.slice(0, 4) ?? '', 10)
  if (!Number.isFinite(from) || !Number.isFinite(to)) return null
  const day = toText === undefined && /^\d{4}-\d{2}-\d{2}$/.test(value) ? value : null
  return { from: Math.min(from, to), to: Math.max(from, to), day }
}

function birthDateAdjustment(listed: readonly string[], given: string): EvidenceAdjustment | null {
  const year = Number.parseInt(given.slice(0, 4), 10)
  if (!Number.isFinite(year)) return null
  const ranges = listed.map(yearRange).filter((range): range is YearRange => range !== null)
  if (ranges.length === 0) return null
  const listedText = listed.join(', ')
  if (given.length === 10 && ranges.some((range) => range.day === given)) {
    return {
      field: 'birth_date',
      outcome: 'match',
      effect: EVIDENCE_EFFECTS.birthDateExact,
      detail: `listed date of birth ${given}`,
    }
  }
  if (ranges.some((range) => year >= range.from && year <= range.to)) {
    return {
      field: 'birth_date',
      outcome: 'match',
      effect: EVIDENCE_EFFECTS.birthYear,
      detail: `${year} is within the listed date(s) of birth ${listedText}`,
    }
  }
  if (ranges.some((range) => year >= range.from - 1 && year <= range.to + 1)) return null
  return {
    field: 'birth_date',
    outcome: 'conflict',
    effect: EVIDENCE_EFFECTS.birthDateConflict,
    detail: `${given} is more than a year from the listed date(s) of birth ${listedText}`,
  }
}

/**
 * Compares the evidence given with a listed entry; one adjustment per field that the list
 * publishes and the caller gave. Pure: the same entry and evidence always give the same list.
 */
export function evidenceAdjustments(entry: SanctionsEntry, evidence: MatchEvidence): EvidenceAdjustment[] {
  const adjustments: EvidenceAdjustment[] = []
  const wanted = evidence.entity_type
  if (wanted && wanted !== 'any' && KIND_OF_TYPE[entry.entry_type] !== wanted) {
    adjustments.push({
      field: 'entity_type',
      outcome: 'conflict',
      effect: EVIDENCE_EFFECTS.entityTypeConflict,
      detail: `a ${wanted} was screened; the listed party is a ${entry.entry_type}`,
    })
  }
  if (evidence.birth_date && entry.birth_dates && entry.birth_dates.length > 0) {
    const adjustment = birthDateAdjustment(entry.birth_dates, evidence.birth_date)
    if (adjustment) adjustments.push(adjustment)
  }
  const nationality = evidence.nationality?.toUpperCase()
  if (nationality) {
    const listed = entry.nationalities ?? []
    if (listed.includes(nationality)) {
      adjustments.push({
        field: 'nationality',
        outcome: 'match',
        effect: EVIDENCE_EFFECTS.nationality,
        detail: `listed nationality ${nationality}`,
      })
    } else if (listed.length > 0) {
      adjustments.push({
        field: 'nationality',
        outcome: 'conflict',
        effect: EVIDENCE_EFFECTS.nationalityConflict,
        detail: `listed nationalities ${listed.join(', ')}, not ${nationality}`,
      })
    } else if (entry.countries.includes(nationality)) {
      adjustments.push({
        field: 'nationality',
        outcome: 'match',
        effect: EVIDENCE_EFFECTS.linkedCountry,
        detail: `no nationality listed; the entry is linked to ${nationality}`,
      })
    }
  }
  if (evidence.id_number) {
    const key = registrationKey(evidence.id_number)
    const same = key
      ? entry.identifiers.find(
          (identifier) => identifier.type !== 'crypto_address' && registrationKey(identifier.value) === key,
        )
      : undefined
    if (same) {
      adjustments.push({
        field: 'id_number',
        outcome: 'match',
        effect: EVIDENCE_EFFECTS.idNumber,
        detail: `listed ${same.label ?? same.type} ${same.value}`,
      })
    }
  }
  return adjustments
}
