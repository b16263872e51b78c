import { countryToAlpha2 } from './country-codes.ts'
import { classifyDocumentLabel } from './identifier-types.ts'
import { ListParseError } from './list-parse-error.ts'
import { isLatinName } from './name-normaliser.ts'
import type {
  EntryType,
  ListFormat,
  ParsedList,
  SanctionsAlias,
  SanctionsEntry,
  SanctionsIdentifier,
} from './types.ts'
import { childrenNamed, childText, collectXmlRecords, type ListInput, type XmlNode } from './xml-stream.ts'

/**
 * EU consolidated financial sanctions list parsers, for both XML formats the EU has published:
 * - FSF 1.1 (`export/sanctionEntity`, current): entry_id = sanctionEntity@logicalId, reference =
 *   euReferenceNumber.
 * - the legacy "global" format (`WHOLE/ENTITY`, before 2017): entry_id = ENTITY@Id.
 * The format is detected from the root element, so one refresh path handles either.
 */

const RECORDS = new Set(['sanctionEntity', 'ENTITY'])
const DATE = /^\d{4}-\d{2}-\d{2}/

function fail(format: ListFormat | 'unknown', reason: string): never {
  throw new ListParseError('eu', format, reason)
}

/** Collects names; the primary is the first Latin name in `preferred` order, all others aliases. */
function splitNames(
  names: Array<{ name: string; language: string; strong?: boolean }>,
): { name: string; aliases: SanctionsAlias[] } | null {
  const usable = names.filter((candidate) => candidate.name.length > 0)
  const primary =
    usable.find(
      (candidate) =>
        isLatinName(candidate.name) && (candidate.language === '' || candidate.language === 'EN'),
    ) ??
    usable.find((candidate) => isLatinName(candidate.name)) ??
    usable[0]
  if (!primary) return null
  const aliases: SanctionsAlias[] = []
  const keys = new Set<string>()
  for (const candidate of usable) {
    if (candidate === primary || candidate.name === primary.name) continue
    const alias: SanctionsAlias = {
      name: candidate.name,
      kind: isLatinName(candidate.name) ? 'aka' : 'original_script',
    }
    if (candidate.strong !== undefined) alias.quality = candidate.strong ? 'strong' : 'weak'
    const key = `${alias.name}|${alias.kind}`
    if (keys.has(key)) continue
    keys.add(key)
    aliases.push(alias)
  }
  return { name: primary.name, aliases }
}

function pushUnique(values: string[], value: string | null | undefined): void {
  if (value && !values.includes(value)) values.push(value)
}

function fsfEntry(node: XmlNode): SanctionsEntry {
  const format = 'eu_fsf_xml'
  const entryId = node.attributes.logicalId ?? ''
  if (!entryId) fail(format, 'sanctionEntity without logicalId')
  const subject = childrenNamed(node, 'subjectType')[0]
  const code = (subject?.attributes.code ?? '').toLowerCase()
  const classification = (subject?.attributes.classificationCode ?? '').toUpperCase()
  const entryType: EntryType =
    code === 'person' || classification === 'P'
      ? 'person'
      : code === 'enterprise' || classification === 'E'
        ? 'entity'
        : 'other'

  const names = childrenNamed(node, 'nameAlias').map((alias) => {
    const attrs = alias.attributes
    const whole =
      (attrs.wholeName ?? '').trim() ||
      [attrs.firstName, attrs.middleName, attrs.lastName]
        .map((part) => (part ?? '').trim())
        .filter(Boolean)
        .join(' ')
    return {
      name: whole,
      language: (attrs.nameLanguage ?? '').toUpperCase(),
      strong: attrs.strong === undefined ? undefined : attrs.strong !== 'false',
    }
  })
  const split = splitNames(names)
  if (!split) fail(format, `sanctionEntity ${entryId} has no nameAlias with a name`)

  const programmes: string[] = []
  const regulationDates: string[] = []
  for (const regulation of childrenNamed(node, 'regulation')) {
    pushUnique(programmes, (regulation.attributes.programme ?? '').trim())
    const published = regulation.attributes.publicationDate ?? ''
    if (DATE.test(published)) regulationDates.push(published.slice(0, 10))
  }

  const countries: string[] = []
  for (const element of ['citizenship', 'address', 'birthdate', 'identification']) {
    for (const child of childrenNamed(node, element))
      pushUnique(countries, countryToAlpha2(child.attributes.countryIso2Code))
  }

  const identifiers: SanctionsIdentifier[] = []
  for (const identification of childrenNamed(node, 'identification')) {
    const value = (identification.attributes.number ?? '').trim()
    if (!value) continue
    const typeCode = (identification.attributes.identificationTypeCode ?? '').trim()
    const description = (identification.attributes.identificationTypeDescription ?? '').trim()
    // The code is precise (passport, id, regnumber, fiscalcode...) except "other", where the
    // description says what the number is ("Tax Identification Number (INN)").
    const classifyBy = typeCode && typeCode.toLowerCase() !== 'other' ? typeCode : description || typeCode
    const identifier: SanctionsIdentifier = {
      type: classifyBy ? classifyDocumentLabel(classifyBy) : 'other',
      value,
    }
    const country = countryToAlpha2(identification.attributes.countryIso2Code)
    if (country) identifier.country = country
    if (description || typeCode) identifier.label = description || typeCode
    identifiers.push(identifier)
  }

  const birthDates: string[] = []
  for (const birth of childrenNamed(node, 'birthdate')) {
    const full = (birth.attributes.birthdate ?? '').trim()
    const year = (birth.attributes.year ?? '').trim()
    if (DATE.test(full)) pushUnique(birthDates, full.slice(0, 10))
    else if (/^\d{4}$/.test(year)) pushUnique(birthDates, year)
  }
  const nationalities: string[] = []
  for (const citizenship of childrenNamed(node, 'citizenship')) {
    pushUnique(nationalities, countryToAlpha2(citizenship.attributes.countryIso2Code))
  }
  const designation = node.attributes.designationDate ?? ''
  const listedOn = DATE.test(designation)
    ? designation.slice(0, 10)
    : regulationDates.length > 0
      ? [...regulationDates].sort()[0]!
      : null
  const entry: SanctionsEntry = {
    list: 'eu',
    entry_id: entryId,
    entry_type: entryType,
    name: split.name,
    aliases: split.aliases,
    programmes,
    countries,
    listed_on: listedOn,
    identifiers,
  }
  const reference = (node.attributes.euReferenceNumber ?? '').trim()
  if (reference) entry.reference = reference
  if (birthDates.length > 0) entry.birth_dates = birthDates
  if (nationalities.length > 0) entry.nationalities = nationalities
  return entry
}

/** Legacy passport NUMBER text: "AD001095 (passport-National passport) ((passport))". */
const LEGACY_DOCUMENT = /^(.*?)\s*\((passport|id|other)-([^)]*)\)/

function legacyEntry(node: XmlNode): SanctionsEntry {
  const format = 'eu_legacy_xml'
  const entryId = node.attributes.Id ?? ''
  if (!entryId) fail(format, 'ENTITY without Id')
  const type = node.attributes.Type ?? ''
  const entryType: EntryType = type === 'P' ? 'person' : type === 'E' ? 'entity' : 'other'
  const names = childrenNamed(node, 'NAME').map((nameNode) => ({
    name:
      childText(nameNode, 'WHOLENAME') ||
      ['FIRSTNAME', 'MIDDLENAME', 'LASTNAME']
        .map((part) => childText(nameNode, part))
        .filter(Boolean)
        .join(' '),
    language: childText(nameNode, 'LANGUAGE').toUpperCase(),
  }))
  const split = splitNames(names)
  if (!split) fail(format, `ENTITY ${entryId} has no NAME`)

  const programmes: string[] = []
  pushUnique(programmes, (node.attributes.programme ?? '').trim())
  for (const child of node.children) pushUnique(programmes, (child.attributes.programme ?? '').trim())

  const countries: string[] = []
  for (const element of ['CITIZEN', 'ADDRESS', 'BIRTH', 'PASSPORT']) {
    for (const child of childrenNamed(node, element))
      pushUnique(countries, countryToAlpha2(childText(child, 'COUNTRY')))
  }

  const identifiers: SanctionsIdentifier[] = []
  for (const passport of childrenNamed(node, 'PASSPORT')) {
    const raw = childText(passport, 'NUMBER')
    if (!raw) continue
    const match = LEGACY_DOCUMENT.exec(raw)
    const value = (match?.[1] ?? raw).trim()
    if (!value) continue
    const label = match?.[3]?.trim() || match?.[2] || 'passport'
    const identifier: SanctionsIdentifier = {
      type: classifyDocumentLabel(match?.[2] === 'id' ? 'id' : label),
      value,
    }
    const country = countryToAlpha2(childText(passport, 'COUNTRY'))
    if (country) identifier.country = country
    identifier.label = label
    identifiers.push(identifier)
  }

  const birthDates: string[] = []
  for (const birth of childrenNamed(node, 'BIRTH')) {
    const date = childText(birth, 'DATE')
    // The legacy file writes an unknown month or day as 00.
    const match = /^(\d{4})-(\d{2})-(\d{2})/.exec(date)
    if (match) pushUnique(birthDates, match[2] === '00' || match[3] === '00' ? match[1]! : match[0])
  }
  const nationalities: string[] = []
  for (const citizen of childrenNamed(node, 'CITIZEN'))
    pushUnique(nationalities, countryToAlpha2(childText(citizen, 'COUNTRY')))
  const regDate = node.attributes.reg_date ?? ''
  const entry: SanctionsEntry = {
    list: 'eu',
    entry_id: entryId,
    entry_type: entryType,
    name: split.name,
    aliases: split.aliases,
    programmes,
    countries,
    listed_on: DATE.test(regDate) ? regDate.slice(0, 10) : null,
    identifiers,
  }
  if (birthDates.length > 0) entry.birth_dates = birthDates
  if (nationalities.length > 0) entry.nationalities = nationalities
  return entry
}

/** "11/02/2016" (dd/mm/yyyy) or an ISO date/time to YYYY-MM-DD. */
function listDate(value: string | undefined): string | null {
  if (!value) return null
  if (DATE.test(value)) return value.slice(0, 10)
  const match = /^(\d{2})\/(\d{2})\/(\d{4})$/.exec(value.trim())
  return match ? `${match[3]}-${match[2]}-${match[1]}` : null
}

/**
 * Parses an EU consolidated list in FSF 1.1 (`export`) or legacy (`WHOLE`) XML, detected from
 * the root element. Throws ListParseError for malformed or truncated XML, an unknown root,
 * records without id or name, duplicate ids, or an empty list.
 */
export async function parseEuXml(input: ListInput): Promise<ParsedList> {
  const { rootName, rootAttributes, records } = await collectXmlRecords(input, RECORDS, 'eu', 'eu_fsf_xml')
  let format: ListFormat
  let entries: SanctionsEntry[]
  let publicationDate: string | null
  if (rootName === 'export') {
    format = 'eu_fsf_xml'
    entries = records.filter((record) => record.name === 'sanctionEntity').map(fsfEntry)
    publicationDate = listDate(rootAttributes.generationDate)
  } else if (rootName === 'WHOLE') {
    format = 'eu_legacy_xml'
    entries = records.filter((record) => record.name === 'ENTITY').map(legacyEntry)
    publicationDate = listDate(rootAttributes.Date)
  } else {
    fail('unknown', `root element is <${rootName}>, expected <export> (FSF 1.1) or <WHOLE> (legacy)`)
  }
  if (entries.length === 0) fail(format, 'no sanction entities')
  const ids = new Set<string>()
  for (const entry of entries) {
    if (ids.has(entry.entry_id)) fail(format, `duplicate entity id ${entry.entry_id}`)
    ids.add(entry.entry_id)
  }
  return { list_key: 'eu', publication_date: publicationDate, format, entries, entry_count: entries.length }
}
