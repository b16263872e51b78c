import { countryToAlpha2 } from './country-codes.ts'
import { classifyDocumentLabel } from './identifier-types.ts'
import { ListParseError } from './list-parse-error.ts'
import type {
  AliasKind,
  AliasQuality,
  ParsedList,
  SanctionsAlias,
  SanctionsEntry,
  SanctionsIdentifier,
} from './types.ts'
import { childrenNamed, childText, collectXmlRecords, type ListInput, type XmlNode } from './xml-stream.ts'

/**
 * UN Security Council Consolidated List (CONSOLIDATED_LIST XML) parser.
 *
 * entry_id is DATAID: the UN database's stable numeric record id, unique in every copy and kept
 * across versions (VERSIONNUM counts the edits). REFERENCE_NUMBER (e.g. QDi.317) is the public
 * reference and is kept as `reference`; it is not used as the id because the UN re-numbers
 * some records when they move between committees, and the list's own diffs key on DATAID.
 */

const FORMAT = 'un_xml'
const RECORDS = new Set(['INDIVIDUAL', 'ENTITY'])

function fail(reason: string): never {
  throw new ListParseError('un', FORMAT, reason)
}

const DATE = /^\d{4}-\d{2}-\d{2}/

function aliasOf(node: XmlNode): SanctionsAlias | null {
  const name = childText(node, 'ALIAS_NAME')
  if (!name) return null
  const quality = childText(node, 'QUALITY').toLowerCase()
  let kind: AliasKind = 'aka'
  let aliasQuality: AliasQuality | undefined
  if (quality === 'good') aliasQuality = 'good'
  else if (quality === 'low') aliasQuality = 'low'
  else if (quality === 'f.k.a.') kind = 'fka'
  else if (quality === 'n.k.a.') kind = 'nka'
  const alias: SanctionsAlias = { name, kind }
  if (aliasQuality) alias.quality = aliasQuality
  return alias
}

function recordToEntry(record: XmlNode): SanctionsEntry {
  const isPerson = record.name === 'INDIVIDUAL'
  const entryId = childText(record, 'DATAID')
  if (!entryId) fail(`${record.name} without DATAID`)
  const name = ['FIRST_NAME', 'SECOND_NAME', 'THIRD_NAME', 'FOURTH_NAME']
    .map((part) => childText(record, part))
    .filter((part) => part.length > 0)
    .join(' ')
  if (!name) fail(`${record.name} ${entryId} has no name`)

  const aliases: SanctionsAlias[] = []
  const aliasKeys = new Set<string>([`${name}|`])
  const addAlias = (alias: SanctionsAlias | null) => {
    if (!alias || alias.name === name) return
    const key = `${alias.name}|${alias.kind ?? ''}`
    if (aliasKeys.has(key)) return
    aliasKeys.add(key)
    aliases.push(alias)
  }
  for (const node of childrenNamed(record, isPerson ? 'INDIVIDUAL_ALIAS' : 'ENTITY_ALIAS'))
    addAlias(aliasOf(node))
  for (const node of childrenNamed(record, 'NAME_ORIGINAL_SCRIPT')) {
    const original = node.text.trim()
    if (original) addAlias({ name: original, kind: 'original_script' })
  }

  const countries: string[] = []
  const nationalities: string[] = []
  const addCountry = (value: string) => {
    const iso = countryToAlpha2(value)
    if (iso && !countries.includes(iso)) countries.push(iso)
  }
  for (const nationality of childrenNamed(record, 'NATIONALITY')) {
    for (const value of childrenNamed(nationality, 'VALUE')) {
      addCountry(value.text)
      const iso = countryToAlpha2(value.text)
      if (iso && !nationalities.includes(iso)) nationalities.push(iso)
    }
  }
  const birthDates: string[] = []
  for (const birth of childrenNamed(record, 'INDIVIDUAL_DATE_OF_BIRTH')) {
    const date = unBirthDate(birth)
    if (date && !birthDates.includes(date)) birthDates.push(date)
  }
  for (const address of childrenNamed(record, isPerson ? 'INDIVIDUAL_ADDRESS' : 'ENTITY_ADDRESS')) {
    addCountry(childText(address, 'COUNTRY'))
  }
  for (const place of childrenNamed(record, 'INDIVIDUAL_PLACE_OF_BIRTH'))
    addCountry(childText(place, 'COUNTRY'))

  const identifiers: SanctionsIdentifier[] = []
  for (const doc of childrenNamed(record, 'INDIVIDUAL_DOCUMENT')) {
    const value = childText(doc, 'NUMBER')
    if (!value) continue
    const label = childText(doc, 'TYPE_OF_DOCUMENT') || childText(doc, 'TYPE_OF_DOCUMENT2')
    const identifier: SanctionsIdentifier = { type: label ? classifyDocumentLabel(label) : 'other', value }
    const country = countryToAlpha2(childText(doc, 'ISSUING_COUNTRY') || childText(doc, 'COUNTRY_OF_ISSUE'))
    if (country) {
      identifier.country = country
      if (!countries.includes(country)) countries.push(country)
    }
    if (label) identifier.label = label
    if (!identifiers.some((known) => known.value === value && known.type === identifier.type)) {
      identifiers.push(identifier)
    }
  }

  const listedOn = childText(record, 'LISTED_ON')
  const programme = childText(record, 'UN_LIST_TYPE')
  const entry: SanctionsEntry = {
    list: 'un',
    entry_id: entryId,
    entry_type: isPerson ? 'person' : 'entity',
    name,
    aliases,
    programmes: programme ? [programme] : [],
    countries,
    listed_on: DATE.test(listedOn) ? listedOn.slice(0, 10) : null,
    identifiers,
  }
  const reference = childText(record, 'REFERENCE_NUMBER')
  if (reference) entry.reference = reference
  if (birthDates.length > 0) entry.birth_dates = birthDates
  if (nationalities.length > 0) entry.nationalities = nationalities
  return entry
}

/** INDIVIDUAL_DATE_OF_BIRTH: DATE (YYYY-MM-DD), YEAR, or FROM_YEAR / TO_YEAR (TYPE_OF_DATE BETWEEN). */
function unBirthDate(node: XmlNode): string | null {
  const date = childText(node, 'DATE')
  if (DATE.test(date)) return date.slice(0, 10)
  const year = childText(node, 'YEAR')
  if (/^\d{4}$/.test(year)) return year
  const from = childText(node, 'FROM_YEAR')
  const to = childText(node, 'TO_YEAR')
  if (/^\d{4}$/.test(from) && /^\d{4}$/.test(to)) return from === to ? from : `${from}/${to}`
  return null
}

/**
 * Parses the UN consolidated XML. Throws ListParseError for malformed or truncated XML, a wrong
 * root element, records without id or name, duplicate DATAIDs, or an empty list.
 */
export async function parseUnXml(input: ListInput): Promise<ParsedList> {
  const { rootName, rootAttributes, records, elementNames } = await collectXmlRecords(
    input,
    RECORDS,
    'un',
    FORMAT,
  )
  if (rootName !== 'CONSOLIDATED_LIST') fail(`root element is <${rootName}>, expected <CONSOLIDATED_LIST>`)
  if (!elementNames.has('INDIVIDUALS') || !elementNames.has('ENTITIES'))
    fail('missing <INDIVIDUALS> or <ENTITIES>')
  if (records.length === 0) fail('no INDIVIDUAL or ENTITY records')
  const entries = records.map(recordToEntry)
  const ids = new Set<string>()
  for (const entry of entries) {
    if (ids.has(entry.entry_id)) fail(`duplicate DATAID ${entry.entry_id}`)
    ids.add(entry.entry_id)
  }
  const generated = rootAttributes.dateGenerated ?? ''
  return {
    list_key: 'un',
    publication_date: DATE.test(generated) ? generated.slice(0, 10) : null,
    format: FORMAT,
    entries,
    entry_count: entries.length,
  }
}
