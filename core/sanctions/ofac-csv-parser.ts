import { parse } from 'csv-parse/sync'
import { countryToAlpha2 } from './country-codes.ts'
import { classifyDocumentLabel } from './identifier-types.ts'
import { ListParseError } from './list-parse-error.ts'
import type { EntryType, ParsedList, SanctionsAlias, SanctionsEntry, SanctionsIdentifier } from './types.ts'
import { detach } from './xml-stream.ts'

/**
 * OFAC SDN CSV parser (sdn.csv plus the optional alt.csv, add.csv and sdn_comments.csv).
 *
 * Format quirks handled: no header row, CRLF, "-0- " meaning empty, a trailing 0x1A byte, and
 * Remarks cut at 1,000 characters whose continuation sits in sdn_comments.csv (without it,
 * digital currency addresses are undercounted). Strong aliases come from alt.csv; the a.k.a.s
 * written in Remarks are OFAC's weak aliases. entry_id = ent_num.
 */

const FORMAT = 'ofac_sdn_csv'
const EOF_MARKER = String.fromCharCode(0x1a)
const REMARKS_CUT_AT = 1000

export interface OfacCsvFiles {
  /** sdn.csv (required). */
  sdn: string | Uint8Array
  /** alt.csv: strong aliases. */
  alt?: string | Uint8Array
  /** add.csv: addresses (only the country is used). */
  add?: string | Uint8Array
  /** sdn_comments.csv: continuation of cut Remarks. */
  comments?: string | Uint8Array
}

export interface OfacCsvOptions {
  /** The CSV carries no date; pass the publication date if the caller knows it. */
  publicationDate?: string | null
  /**
   * OFAC ends sdn.csv, alt.csv and add.csv with a 0x1A byte; its absence is how a download cut
   * exactly at a line end shows. Default true; set false for copies re-saved without it.
   */
  requireEofMarker?: boolean
}

function fail(reason: string, cause?: unknown): never {
  throw new ListParseError('ofac_sdn', FORMAT, reason, cause === undefined ? undefined : { cause })
}

/** ASCII in practice; decoded as UTF-8 when valid, otherwise as Windows-1252 (never replaced). */
function decode(input: string | Uint8Array): string {
  if (typeof input === 'string') return input
  try {
    return new TextDecoder('utf-8', { fatal: true }).decode(input)
  } catch {
    return new TextDecoder('windows-1252').decode(input)
  }
}

function rows(
  file: string,
  input: string | Uint8Array,
  minColumns: number,
  requireEofMarker: boolean,
): string[][] {
  const decoded = decode(input)
  const trimmed = decoded.trimEnd()
  const hasMarker = trimmed.endsWith(EOF_MARKER)
  if (requireEofMarker && !hasMarker) {
    fail(`${file} does not end with the 0x1A end-of-file marker (truncated download?)`)
  }
  const text = hasMarker ? trimmed.slice(0, -1) : decoded
  let records: string[][]
  try {
    records = parse(text, { relax_column_count: true, skip_empty_lines: true, trim: false }) as string[][]
  } catch (error) {
    fail(`${file} is not valid CSV: ${error instanceof Error ? error.message : String(error)}`, error)
  }
  for (const [index, record] of records.entries()) {
    if (record.length < minColumns)
      fail(`${file} row ${index + 1} has ${record.length} columns, expected ${minColumns}`)
    if (!/^\d+$/.test((record[0] ?? '').trim())) fail(`${file} row ${index + 1} has no numeric ent_num`)
  }
  return records
}

/** "-0- " is OFAC's empty value. */
function field(value: string | undefined): string {
  const trimmed = (value ?? '').trim()
  return trimmed === '-0-' ? '' : trimmed
}

/** Document labels OFAC writes in Remarks ("Passport A123 (Iran)"), longest first. */
const DOCUMENT_LABELS = [
  'Russian State Individual Business Registration Number Pattern (OGRNIP)',
  'Afghan Money Service Provider License Number',
  'Global Intermediary Identification Number',
  'Registration Certificate Number (Dubai)',
  'Dubai Chamber of Commerce Membership No.',
  'Unified Social Credit Code (USCC)',
  'Certificate of Incorporation Number',
  'Central Registration System Number',
  'Vessel Registration Identification',
  "Seafarer's Identification Document",
  'Economic Register Number (CBLS)',
  'Istanbul Chamber of Comm. No.',
  'Business Registration Document #',
  'Business Registration Number',
  'Commercial Registry Number',
  'Public Registration Number',
  'Government Gazette Number',
  'Turkish Identification Number',
  'Military Registration Number',
  'Chamber of Commerce Number',
  'National Foreign ID Number',
  'Stateless Person Passport',
  'Moroccan Personal ID No.',
  'Bosnian Personal ID No.',
  'Birth Certificate Number',
  'Travel Document Number',
  'MSB Registration Number',
  'Tazkira National ID Card',
  'Registered Charity No.',
  'Identification Number',
  'Electoral Registry No.',
  "Citizen's Card Number",
  'Legal Entity Number',
  'Diplomatic Passport',
  'Matricula Mercantil No',
  "Driver's License No.",
  'Folio Mercantil No.',
  'Tarjeta de Identidad',
  'Numero de Identidad',
  'Registration Number',
  'Italian Fiscal Code',
  'Residency Number',
  'Enterprise Number',
  'Trade License No.',
  'UAE Identification',
  'Personal ID Card',
  'Refugee ID Card',
  'Registration ID',
  'National ID No.',
  'Business Number',
  'UK Company Number',
  'Organization Code',
  'Company Number',
  'V.A.T. Number',
  'Permit Number',
  'Kenyan ID No.',
  'Romanian C.R.',
  'Fiscal Code',
  'Tax ID No.',
  'Cedula No.',
  'C.U.R.P.',
  'C.U.I.T.',
  'C.R. No.',
  'Passport',
  'R.F.C.',
  'D.N.I.',
  'N.I.F.',
  'C.I.F.',
  'NIT #',
  'RUC #',
  'RIF #',
  'MMSI',
  'SSN',
  'RTN',
]

const DCA = /Digital Currency Address - ([A-Za-z0-9]+) ([^\s;]+)/g
const REMARK_ALIAS = /\b([afn])\.k\.a\.,? '([^']+)'/g
const NATIONALITY = /^(?:nationality|citizen) (.+)$/
const VALUE_END = / \(| issued | expires /

function parseRemarks(remarks: string): {
  aliases: SanctionsAlias[]
  identifiers: SanctionsIdentifier[]
  countries: string[]
} {
  const aliases: SanctionsAlias[] = []
  for (const match of remarks.matchAll(REMARK_ALIAS)) {
    const kind = match[1] === 'f' ? 'fka' : match[1] === 'n' ? 'nka' : 'aka'
    aliases.push({ name: detach(match[2]!.trim()), kind, quality: 'weak' })
  }
  const identifiers: SanctionsIdentifier[] = []
  for (const match of remarks.matchAll(DCA)) {
    identifiers.push({
      type: 'crypto_address',
      value: detach(match[2]!.replace(/\.$/, '')),
      currency: match[1]!,
    })
  }
  const countries: string[] = []
  for (const rawSegment of remarks.split(';')) {
    let segment = rawSegment.trim().replace(/\.$/, '')
    if (segment.startsWith('alt. ')) segment = segment.slice(5)
    const nationality = NATIONALITY.exec(segment)
    if (nationality) {
      const iso = countryToAlpha2(nationality[1])
      if (iso && !countries.includes(iso)) countries.push(iso)
      continue
    }
    const label = DOCUMENT_LABELS.find((candidate) => segment.startsWith(`${candidate} `))
    if (!label) continue
    const rest = segment.slice(label.length + 1)
    const end = rest.search(VALUE_END)
    const value = (end < 0 ? rest : rest.slice(0, end)).trim()
    if (!value) continue
    const identifier: SanctionsIdentifier = {
      type: classifyDocumentLabel(label),
      value: detach(value),
      label,
    }
    const countryText = end >= 0 ? /\(([^)]+)\)/.exec(rest.slice(end))?.[1] : undefined
    const country = countryToAlpha2(countryText)
    if (country) {
      identifier.country = country
      if (!countries.includes(country)) countries.push(country)
    }
    identifiers.push(identifier)
  }
  return { aliases, identifiers, countries }
}

const ENTRY_TYPES: Readonly<Record<string, EntryType>> = {
  individual: 'person',
  vessel: 'vessel',
  aircraft: 'aircraft',
  '': 'entity',
}

/**
 * Parses the OFAC SDN CSV files into list entries. Throws ListParseError for rows with the
 * wrong shape, an empty sdn.csv, duplicate ent_nums, or side files pointing at unknown entries.
 */
export function parseOfacSdnCsv(files: OfacCsvFiles, options: OfacCsvOptions = {}): ParsedList {
  const strict = options.requireEofMarker ?? true
  const sdnRows = rows('sdn.csv', files.sdn, 12, strict)
  if (sdnRows.length === 0) fail('sdn.csv has no rows')

  const comments = new Map<string, string>()
  if (files.comments !== undefined) {
    for (const record of rows('sdn_comments.csv', files.comments, 2, false)) {
      const id = record[0]!.trim()
      comments.set(id, (comments.get(id) ?? '') + (record[1] ?? ''))
    }
  }
  const strongAliases = new Map<string, SanctionsAlias[]>()
  if (files.alt !== undefined) {
    for (const record of rows('alt.csv', files.alt, 4, strict)) {
      const name = field(record[3])
      if (!name) continue
      const type = field(record[2]).toLowerCase()
      const kind = type === 'fka' ? 'fka' : type === 'nka' ? 'nka' : 'aka'
      const id = record[0]!.trim()
      const list = strongAliases.get(id) ?? []
      list.push({ name: detach(name), kind, quality: 'strong' })
      strongAliases.set(id, list)
    }
  }
  const addressCountries = new Map<string, string[]>()
  if (files.add !== undefined) {
    for (const record of rows('add.csv', files.add, 5, strict)) {
      const iso = countryToAlpha2(field(record[4]))
      if (!iso) continue
      const id = record[0]!.trim()
      const list = addressCountries.get(id) ?? []
      if (!list.includes(iso)) list.push(iso)
      addressCountries.set(id, list)
    }
  }

  const entries: SanctionsEntry[] = []
  const ids = new Set<string>()
  const cutRemarks: string[] = []
  for (const record of sdnRows) {
    const entryId = record[0]!.trim()
    if (ids.has(entryId)) fail(`duplicate ent_num ${entryId}`)
    ids.add(entryId)
    const name = field(record[1])
    if (!name) fail(`ent_num ${entryId} has no SDN_Name`)
    const entryType = ENTRY_TYPES[field(record[2]).toLowerCase()] ?? 'other'
    const programmes = field(record[3])
      .split(/\]\s*\[/)
      .map((programme) => programme.replace(/[[\]]/g, '').trim())
      .filter((programme) => programme.length > 0)
    let remarks = field(record[11])
    const continuation = comments.get(entryId)
    if (continuation !== undefined) remarks += continuation
    else if ((record[11] ?? '').length >= REMARKS_CUT_AT) {
      // Cut at 1,000 characters with no sdn_comments.csv: the last item is incomplete (an
      // address cut to "1Gq" would be wrong), so it is dropped and reported.
      remarks = remarks.slice(0, Math.max(0, remarks.lastIndexOf(';')))
      cutRemarks.push(entryId)
    }
    const parsed = parseRemarks(remarks)

    const aliases: SanctionsAlias[] = []
    const aliasKeys = new Set<string>()
    for (const alias of [...(strongAliases.get(entryId) ?? []), ...parsed.aliases]) {
      const key = `${alias.name}|${alias.kind}`
      if (alias.name === name || aliasKeys.has(key)) continue
      aliasKeys.add(key)
      aliases.push(alias)
    }
    const countries = [...(addressCountries.get(entryId) ?? [])]
    const flag = countryToAlpha2(field(record[9]))
    for (const iso of [...parsed.countries, ...(flag ? [flag] : [])])
      if (!countries.includes(iso)) countries.push(iso)

    entries.push({
      list: 'ofac_sdn',
      entry_id: entryId,
      entry_type: entryType,
      name: detach(name),
      aliases,
      programmes,
      countries,
      listed_on: null,
      identifiers: parsed.identifiers,
    })
  }
  for (const id of [...comments.keys(), ...strongAliases.keys()]) {
    if (!ids.has(id)) fail(`side file refers to unknown ent_num ${id}`)
  }
  const list: ParsedList = {
    list_key: 'ofac_sdn',
    publication_date: options.publicationDate ?? null,
    format: FORMAT,
    entries,
    entry_count: entries.length,
  }
  if (cutRemarks.length > 0) {
    list.warnings = [
      `${cutRemarks.length} Remarks cut at ${REMARKS_CUT_AT} characters without sdn_comments.csv ` +
        `(ent_num ${cutRemarks.join(', ')}); their incomplete last item was dropped`,
    ]
  }
  return list
}
