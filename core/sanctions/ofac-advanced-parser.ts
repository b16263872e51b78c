import { classifyDocumentLabel } from './identifier-types.ts'
import { ListParseError } from './list-parse-error.ts'
import type {
  AliasKind,
  AliasQuality,
  EntryType,
  ParsedList,
  SanctionsAlias,
  SanctionsEntry,
  SanctionsIdentifier,
} from './types.ts'
import { createXmlParser, detach, feedXml, type ListInput, localName } from './xml-stream.ts'

/**
 * OFAC SDN Advanced XML (sdn_advanced.xml, ~120 MB) parser, streamed through saxes.
 *
 * The file is relational and ordered by its schema: reference tables (ReferenceValueSets),
 * Locations, IDRegDocuments, DistinctParties (names, features), then SanctionsEntries
 * (programmes, listing dates). Each party is turned into its final entry as soon as it closes,
 * so only compact entries are retained; programmes and dates are filled in when the
 * SanctionsEntries section streams by. Reference values are resolved by their text, never by
 * id, since OFAC adds ids over time (a new "Digital Currency Address - XXX" type per currency).
 */

const FORMAT = 'ofac_sdn_advanced_xml'
const DCA_PREFIX = 'Digital Currency Address - '

interface RefValue {
  text: string
  attributes: Record<string, string>
}

interface DocName {
  statusId: string
  parts: Array<{ groupId: string; scriptId: string; text: string }>
}

interface RawAlias {
  typeId: string
  primary: boolean
  lowQuality: boolean
  names: DocName[]
}

interface RawParty {
  fixedRef: string
  profileId: string
  subTypeId: string
  identityIds: string[]
  aliases: RawAlias[]
  groupTypes: Map<string, string>
  countryIds: string[]
  addresses: Array<{ currency: string; value: string }>
}

interface RawIdDoc {
  typeId: string
  countryId: string
  number: string
}

/** Reference tables resolved by text, built once ReferenceValueSets has been read. */
interface Tables {
  refs: Map<string, Map<string, RefValue>>
  countryIso: Map<string, string>
  namePartTypes: Map<string, string>
  latinScripts: Set<string>
  primaryLatinStatus: Set<string>
  currencyOfFeature: Map<string, string>
  programmeMeasures: Set<string>
  sdnListIds: Set<string>
}

interface PendingEntry {
  entry: SanctionsEntry
  sdnDate: string | null
  otherDate: string | null
}

function fail(reason: string): never {
  throw new ListParseError('ofac_sdn', FORMAT, reason)
}

function pad2(value: string): string {
  return value.length === 1 ? `0${value}` : value
}

function isoDate(year: string, month: string, day: string): string | null {
  if (!/^\d{4}$/.test(year) || !/^\d{1,2}$/.test(month) || !/^\d{1,2}$/.test(day)) return null
  return `${year}-${pad2(month)}-${pad2(day)}`
}

function idsWithText(refs: Map<string, Map<string, RefValue>>, table: string, text: string): Set<string> {
  const ids = new Set<string>()
  for (const [id, value] of refs.get(table) ?? []) if (value.text === text) ids.add(id)
  return ids
}

function buildTables(refs: Map<string, Map<string, RefValue>>): Tables {
  const countryIso = new Map<string, string>()
  for (const [id, value] of refs.get('Country') ?? []) {
    const iso2 = value.attributes.ISO2
    if (iso2 && /^[A-Z]{2}$/.test(iso2)) countryIso.set(id, iso2)
  }
  const namePartTypes = new Map<string, string>()
  for (const [id, value] of refs.get('NamePartType') ?? []) namePartTypes.set(id, value.text)
  const currencyOfFeature = new Map<string, string>()
  for (const [id, value] of refs.get('FeatureType') ?? []) {
    if (value.text.startsWith(DCA_PREFIX))
      currencyOfFeature.set(id, value.text.slice(DCA_PREFIX.length).trim())
  }
  if (!refs.has('PartySubType') || !refs.has('NamePartType') || !refs.has('FeatureType')) {
    fail('ReferenceValueSets lacks PartySubType, NamePartType or FeatureType values')
  }
  return {
    refs,
    countryIso,
    namePartTypes,
    latinScripts: idsWithText(refs, 'Script', 'Latin'),
    primaryLatinStatus: idsWithText(refs, 'DocNameStatus', 'Primary Latin'),
    currencyOfFeature,
    programmeMeasures: idsWithText(refs, 'SanctionsType', 'Program'),
    sdnListIds: idsWithText(refs, 'List', 'SDN List'),
  }
}

/**
 * Parses an OFAC SDN Advanced XML document into list entries (entry_id = DistinctParty
 * FixedRef). Throws ListParseError for malformed or truncated input, sections missing or out of
 * schema order, or an empty list; never returns a partial list.
 */
export async function parseOfacAdvancedXml(input: ListInput): Promise<ParsedList> {
  const parser = createXmlParser()

  const refs = new Map<string, Map<string, RefValue>>()
  let tables: Tables | null = null
  const locationCountry = new Map<string, string>()
  const idDocsByIdentity = new Map<string, RawIdDoc[]>()
  const entries: SanctionsEntry[] = []
  const pendingByProfile = new Map<string, PendingEntry>()
  const seenRefs = new Set<string>()
  const sections = new Set<string>()
  const issue = { year: '', month: '', day: '' }

  let depth = 0
  let rootName = ''
  let section = ''
  let capture = false
  let text = ''

  let refElement: { name: string; attributes: Record<string, string> } | null = null
  let locationId = ''
  let idDoc: (RawIdDoc & { identityId: string }) | null = null
  let party: RawParty | null = null
  let alias: RawAlias | null = null
  let docName: DocName | null = null
  let namePart: { groupId: string; scriptId: string } | null = null
  let featureCurrency: string | undefined
  let inFeature = false
  let pending: PendingEntry | null = null
  let onSdnList = false
  let inEvent = false
  let eventDate: { year: string; month: string; day: string } | null = null
  let measure: { typeId: string; comment: string } | null = null

  // The text handler is attached only while an element's text is wanted: saxes then skips
  // slicing the millions of whitespace runs between tags (a measurable share of the parse).
  const onText = (chunk: string) => {
    text += chunk
  }
  const startCapture = () => {
    capture = true
    text = ''
    parser.on('text', onText)
  }
  const stopCapture = () => {
    capture = false
    parser.off('text')
  }

  const enterSection = (name: string) => {
    if (sections.has('DistinctParties') && (name === 'Locations' || name === 'IDRegDocuments')) {
      fail(`<${name}> after <DistinctParties> (out of schema order)`)
    }
    if (name === 'DistinctParties') {
      if (!sections.has('ReferenceValueSets')) fail('<DistinctParties> before <ReferenceValueSets>')
      tables = buildTables(refs)
    }
    section = name
    sections.add(name)
  }

  parser.on('opentag', (tag) => {
    depth++
    const name = localName(tag.name)
    const attrs = tag.attributes as Record<string, string>
    if (depth === 1) {
      rootName = name
      if (name !== 'Sanctions') fail(`root element is <${name}>, expected <Sanctions>`)
      return
    }
    if (depth === 2) {
      enterSection(name)
      return
    }
    switch (section) {
      case 'DateOfIssue':
        if (depth === 3) startCapture()
        return
      case 'ReferenceValueSets':
        if (depth === 4) {
          refElement = { name, attributes: attrs }
          startCapture()
        }
        return
      case 'Locations':
        if (name === 'Location') locationId = attrs.ID ?? ''
        else if (name === 'LocationCountry' && attrs.CountryID)
          locationCountry.set(locationId, attrs.CountryID)
        return
      case 'IDRegDocuments':
        if (name === 'IDRegDocument') {
          idDoc = {
            typeId: attrs.IDRegDocTypeID ?? '',
            countryId: attrs['IssuedBy-CountryID'] ?? '',
            identityId: attrs.IdentityID ?? '',
            number: '',
          }
        } else if (name === 'IDRegistrationNo') startCapture()
        return
      case 'DistinctParties':
        openPartyElement(name, attrs)
        return
      case 'SanctionsEntries':
        openSanctionsElement(name, attrs)
        return
      default:
        return
    }
  })

  function openPartyElement(name: string, attrs: Record<string, string>): void {
    switch (name) {
      case 'DistinctParty':
        party = {
          fixedRef: attrs.FixedRef ?? '',
          profileId: '',
          subTypeId: '',
          identityIds: [],
          aliases: [],
          groupTypes: new Map(),
          countryIds: [],
          addresses: [],
        }
        return
      case 'Profile':
        if (party) {
          party.profileId = attrs.ID ?? ''
          party.subTypeId = attrs.PartySubTypeID ?? ''
        }
        return
      case 'Identity':
        if (party && attrs.ID) party.identityIds.push(attrs.ID)
        return
      case 'Alias':
        alias = {
          typeId: attrs.AliasTypeID ?? '',
          primary: attrs.Primary === 'true',
          lowQuality: attrs.LowQuality === 'true',
          names: [],
        }
        party?.aliases.push(alias)
        return
      case 'DocumentedName':
        docName = { statusId: attrs.DocNameStatusID ?? '', parts: [] }
        alias?.names.push(docName)
        return
      case 'NamePartValue':
        namePart = { groupId: attrs.NamePartGroupID ?? '', scriptId: attrs.ScriptID ?? '' }
        startCapture()
        return
      case 'NamePartGroup':
        if (party && attrs.ID) party.groupTypes.set(attrs.ID, attrs.NamePartTypeID ?? '')
        return
      case 'Feature':
        inFeature = true
        featureCurrency = tables?.currencyOfFeature.get(attrs.FeatureTypeID ?? '')
        return
      case 'VersionDetail':
        if (featureCurrency) startCapture()
        return
      case 'VersionLocation': {
        const countryId = attrs.LocationID ? locationCountry.get(attrs.LocationID) : undefined
        if (party && inFeature && countryId) party.countryIds.push(countryId)
        return
      }
      default:
        return
    }
  }

  function openSanctionsElement(name: string, attrs: Record<string, string>): void {
    if (name === 'SanctionsEntry') {
      pending = pendingByProfile.get(attrs.ProfileID ?? '') ?? null
      if (!pending) fail(`SanctionsEntry for unknown ProfileID ${attrs.ProfileID}`)
      onSdnList = tables?.sdnListIds.has(attrs.ListID ?? '') ?? false
    } else if (name === 'EntryEvent') inEvent = true
    else if (name === 'Date' && inEvent) eventDate = { year: '', month: '', day: '' }
    else if (eventDate && (name === 'Year' || name === 'Month' || name === 'Day')) startCapture()
    else if (name === 'SanctionsMeasure') measure = { typeId: attrs.SanctionsTypeID ?? '', comment: '' }
    else if (name === 'Comment' && measure) startCapture()
  }

  parser.on('closetag', (tag) => {
    depth--
    const name = localName(tag.name)
    if (depth === 1) {
      section = ''
      return
    }
    switch (section) {
      case 'DateOfIssue':
        if (capture) {
          stopCapture()
          if (name === 'Year') issue.year = text.trim()
          else if (name === 'Month') issue.month = text.trim()
          else if (name === 'Day') issue.day = text.trim()
        }
        return
      case 'ReferenceValueSets':
        if (depth === 3 && refElement) {
          stopCapture()
          const id = refElement.attributes.ID
          if (id !== undefined) {
            let set = refs.get(refElement.name)
            if (!set) {
              set = new Map()
              refs.set(refElement.name, set)
            }
            set.set(id, { text: detach(text.trim()), attributes: refElement.attributes })
          }
          refElement = null
        }
        return
      case 'IDRegDocuments':
        if (name === 'IDRegistrationNo' && idDoc) {
          stopCapture()
          idDoc.number = detach(text.trim())
        } else if (name === 'IDRegDocument' && idDoc) {
          const list = idDocsByIdentity.get(idDoc.identityId)
          const doc = { typeId: idDoc.typeId, countryId: idDoc.countryId, number: idDoc.number }
          if (list) list.push(doc)
          else idDocsByIdentity.set(idDoc.identityId, [doc])
          idDoc = null
        }
        return
      case 'DistinctParties':
        closePartyElement(name)
        return
      case 'SanctionsEntries':
        closeSanctionsElement(name)
        return
      default:
        return
    }
  })

  function closePartyElement(name: string): void {
    switch (name) {
      case 'NamePartValue':
        if (namePart && docName) docName.parts.push({ ...namePart, text: text.trim() })
        stopCapture()
        namePart = null
        return
      case 'VersionDetail':
        if (capture && party && featureCurrency) {
          const value = text.trim()
          if (value) party.addresses.push({ currency: featureCurrency, value: detach(value) })
        }
        stopCapture()
        return
      case 'Feature':
        inFeature = false
        featureCurrency = undefined
        return
      case 'DocumentedName':
        docName = null
        return
      case 'Alias':
        alias = null
        return
      case 'DistinctParty':
        if (party && tables) {
          const entry = resolveParty(party, tables, idDocsByIdentity)
          if (seenRefs.has(entry.entry_id)) fail(`duplicate DistinctParty FixedRef ${entry.entry_id}`)
          seenRefs.add(entry.entry_id)
          entries.push(entry)
          pendingByProfile.set(party.profileId, { entry, sdnDate: null, otherDate: null })
        }
        party = null
        return
      default:
        return
    }
  }

  function closeSanctionsElement(name: string): void {
    if (capture) {
      stopCapture()
      if (eventDate) {
        if (name === 'Year') eventDate.year = text.trim()
        else if (name === 'Month') eventDate.month = text.trim()
        else if (name === 'Day') eventDate.day = text.trim()
      } else if (measure && name === 'Comment') measure.comment = text.trim()
    } else if (name === 'Date' && eventDate && pending) {
      const date = isoDate(eventDate.year, eventDate.month, eventDate.day)
      if (date && onSdnList && (pending.sdnDate === null || date < pending.sdnDate)) pending.sdnDate = date
      if (date && !onSdnList && (pending.otherDate === null || date < pending.otherDate))
        pending.otherDate = date
      eventDate = null
    } else if (name === 'EntryEvent') inEvent = false
    else if (name === 'SanctionsMeasure' && measure && pending) {
      const programmes = pending.entry.programmes
      if (
        tables?.programmeMeasures.has(measure.typeId) &&
        measure.comment &&
        !programmes.includes(measure.comment)
      ) {
        programmes.push(detach(measure.comment))
      }
      measure = null
    } else if (name === 'SanctionsEntry') pending = null
  }

  await feedXml(parser, input, 'ofac_sdn', FORMAT)

  if (rootName !== 'Sanctions') fail('no <Sanctions> root element')
  for (const required of ['DateOfIssue', 'ReferenceValueSets', 'DistinctParties', 'SanctionsEntries']) {
    if (!sections.has(required)) fail(`missing <${required}> section`)
  }
  if (entries.length === 0) fail('no DistinctParty entries')
  const publicationDate = isoDate(issue.year, issue.month, issue.day)
  if (!publicationDate) fail('DateOfIssue has no valid date')
  for (const { entry, sdnDate, otherDate } of pendingByProfile.values()) {
    entry.listed_on = sdnDate ?? otherDate
  }
  return {
    list_key: 'ofac_sdn',
    publication_date: publicationDate,
    format: FORMAT,
    entries,
    entry_count: entries.length,
  }
}

function entryTypeOf(tables: Tables, subTypeId: string): EntryType {
  const subType = tables.refs.get('PartySubType')?.get(subTypeId)
  if (!subType) fail(`unknown PartySubTypeID ${subTypeId}`)
  const subText = subType.text.toLowerCase()
  if (subText === 'vessel') return 'vessel'
  if (subText === 'aircraft') return 'aircraft'
  const partyType = tables.refs
    .get('PartyType')
    ?.get(subType.attributes.PartyTypeID ?? '')
    ?.text.toLowerCase()
  if (partyType === 'individual') return 'person'
  if (partyType === 'entity') return 'entity'
  return 'other'
}

const ALIAS_KINDS: Readonly<Record<string, AliasKind>> = { 'a.k.a.': 'aka', 'f.k.a.': 'fka', 'n.k.a.': 'nka' }

function resolveParty(
  party: RawParty,
  tables: Tables,
  idDocsByIdentity: Map<string, RawIdDoc[]>,
): SanctionsEntry {
  if (!party.fixedRef) fail('DistinctParty without FixedRef')
  const entryType = entryTypeOf(tables, party.subTypeId)

  /**
   * Person names as the SDN CSV writes them, "Surname, Given names". The surname is the Last Name
   * parts plus the Matronymic; a Patronymic belongs to the surname only when there is no Last
   * Name (Spanish "CASTELLANOS GARZON, Henry"), otherwise it follows the given names (Russian
   * "KOSTIN, Andrey Leonidovich"). Given names are ordered First, Middle, then the rest.
   * Other parties' names are their parts in document order.
   */
  const joinName = (doc: DocName): string => {
    if (entryType !== 'person') return detach(doc.parts.map((part) => part.text).join(' '))
    const typed = doc.parts.map((part) => ({
      text: part.text,
      type: tables.namePartTypes.get(party.groupTypes.get(part.groupId) ?? '') ?? '',
    }))
    const hasLast = typed.some((part) => part.type === 'Last Name')
    const surnameRank = (type: string): number =>
      type === 'Last Name' ? 1 : type === 'Patronymic' && !hasLast ? 2 : type === 'Matronymic' ? 3 : 0
    const givenRank = (type: string): number => (type === 'First Name' ? 0 : type === 'Middle Name' ? 1 : 2)
    const surname = typed
      .filter((part) => surnameRank(part.type) > 0)
      .sort((a, b) => surnameRank(a.type) - surnameRank(b.type))
      .map((part) => part.text)
    const given = typed
      .filter((part) => surnameRank(part.type) === 0)
      .sort((a, b) => givenRank(a.type) - givenRank(b.type))
      .map((part) => part.text)
    if (surname.length === 0) return detach(given.join(' '))
    if (given.length === 0) return detach(surname.join(' '))
    return detach(`${surname.join(' ')}, ${given.join(' ')}`)
  }
  const isLatin = (doc: DocName): boolean => doc.parts.every((part) => tables.latinScripts.has(part.scriptId))

  const primaryAlias = party.aliases.find((candidate) => candidate.primary)
  if (!primaryAlias || primaryAlias.names.length === 0) fail(`party ${party.fixedRef} has no primary name`)
  const primaryDoc =
    primaryAlias.names.find((doc) => tables.primaryLatinStatus.has(doc.statusId)) ??
    primaryAlias.names.find(isLatin) ??
    primaryAlias.names[0]!
  const name = joinName(primaryDoc)
  if (!name) fail(`party ${party.fixedRef} has an empty primary name`)

  const aliases: SanctionsAlias[] = []
  const aliasKeys = new Set<string>()
  for (const rawAlias of party.aliases) {
    const aliasType = tables.refs.get('AliasType')?.get(rawAlias.typeId)?.text.toLowerCase() ?? ''
    const kind = rawAlias.primary ? undefined : ALIAS_KINDS[aliasType]
    const quality: AliasQuality | undefined = rawAlias.primary
      ? undefined
      : rawAlias.lowQuality
        ? 'weak'
        : 'strong'
    for (const doc of rawAlias.names) {
      if (doc === primaryDoc) continue
      const aliasName = joinName(doc)
      const aliasKind: AliasKind | undefined = isLatin(doc) ? kind : 'original_script'
      const key = `${aliasName}|${aliasKind ?? ''}`
      if (!aliasName || aliasName === name || aliasKeys.has(key)) continue
      aliasKeys.add(key)
      const entryAlias: SanctionsAlias = { name: aliasName }
      if (aliasKind) entryAlias.kind = aliasKind
      if (quality) entryAlias.quality = quality
      aliases.push(entryAlias)
    }
  }

  const countries: string[] = []
  const addCountry = (countryId: string) => {
    const iso = tables.countryIso.get(countryId)
    if (iso && !countries.includes(iso)) countries.push(iso)
  }
  for (const countryId of party.countryIds) addCountry(countryId)

  const identifiers: SanctionsIdentifier[] = []
  const identifierKeys = new Set<string>()
  const addIdentifier = (identifier: SanctionsIdentifier) => {
    const key = `${identifier.type}|${identifier.currency ?? ''}|${identifier.value}|${identifier.country ?? ''}`
    if (identifierKeys.has(key)) return
    identifierKeys.add(key)
    identifiers.push(identifier)
  }
  for (const address of party.addresses) {
    addIdentifier({ type: 'crypto_address', value: address.value, currency: address.currency })
  }
  for (const identityId of party.identityIds) {
    for (const doc of idDocsByIdentity.get(identityId) ?? []) {
      if (!doc.number) continue
      const label = tables.refs.get('IDRegDocType')?.get(doc.typeId)?.text ?? ''
      const identifier: SanctionsIdentifier = { type: classifyDocumentLabel(label), value: doc.number }
      const country = tables.countryIso.get(doc.countryId)
      if (country) identifier.country = country
      if (label) identifier.label = label
      addIdentifier(identifier)
      addCountry(doc.countryId)
    }
  }

  return {
    list: 'ofac_sdn',
    entry_id: party.fixedRef,
    entry_type: entryType,
    name,
    aliases,
    programmes: [],
    countries,
    listed_on: null,
    identifiers,
  }
}
