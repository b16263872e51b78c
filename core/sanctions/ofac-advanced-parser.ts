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
  /** Birthdate features as YYYY-MM-DD, YYYY or FROM/TO. */
  birthDates: string[]
  /** Location ids of Nationality Country and Citizenship Country features. */
  nationalityLocationIds: string[]
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
  birthdateFeatures: Set<string>
  nationalityFeatures: Set<string>
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
    birthdateFeatures: idsWithText(refs, 'FeatureType', 'Birthdate'),
    nationalityFeatures: new Set([
      ...idsWithText(refs, 'FeatureType', 'Nationality Country'),
      ...idsWithText(refs, 'FeatureType', 'Citizenship Country'),
    ]),
    programmeMeasures: idsWithText(refs, 'SanctionsType', 'Program'),
    sdnListIds: idsWithText(refs, 'List', 'SDN List'),
  }
}

type Attrs = Record<string, string>

/**
 * The elements of one top-level section, from depth 3 down (depth counts the root as 1). The
 * parse loop hands each element to the handler of the section it is in, so every section's
 * state and rules live in one small function instead of one switch over all of them.
 */
interface SectionHandler {
  open(name: string, attrs: Attrs, depth: number): void
  close(name: string, depth: number): void
}

/** What the sections leave for later sections and for the result. */
interface ParseState {
  /** ReferenceValueSets, by table then id. */
  refs: Map<string, Map<string, RefValue>>
  /** Built from `refs` when DistinctParties starts (the schema puts the references first). */
  tables: Tables | null
  locationCountry: Map<string, string>
  idDocsByIdentity: Map<string, RawIdDoc[]>
  entries: SanctionsEntry[]
  pendingByProfile: Map<string, PendingEntry>
  seenRefs: Set<string>
  sections: Set<string>
  issue: { year: string; month: string; day: string }
}

/** The text of the element being read; kept after `stop()` until the next `start()`. */
interface TextCapture {
  active: boolean
  text: string
  start(): void
  stop(): void
}

type XmlParser = ReturnType<typeof createXmlParser>

/**
 * The text collector the handlers share. The text handler is attached only while an element's
 * text is wanted: saxes then skips slicing the millions of whitespace runs between tags (a
 * measurable share of the parse).
 */
function createTextCapture(parser: XmlParser): TextCapture {
  const onText = (chunk: string) => {
    capture.text += chunk
  }
  const capture: TextCapture = {
    active: false,
    text: '',
    start() {
      capture.active = true
      capture.text = ''
      parser.on('text', onText)
    },
    stop() {
      capture.active = false
      parser.off('text')
    },
  }
  return capture
}

/**
 * Checks the schema order as each section starts: Locations and IDRegDocuments must come before
 * DistinctParties, which resolves against them, and DistinctParties after ReferenceValueSets,
 * whose tables it needs (built here).
 */
function enterSection(state: ParseState, name: string): void {
  if (state.sections.has('DistinctParties') && (name === 'Locations' || name === 'IDRegDocuments')) {
    fail(`<${name}> after <DistinctParties> (out of schema order)`)
  }
  if (name === 'DistinctParties') {
    if (!state.sections.has('ReferenceValueSets')) fail('<DistinctParties> before <ReferenceValueSets>')
    state.tables = buildTables(state.refs)
  }
  state.sections.add(name)
}

/** DateOfIssue: the Year, Month and Day that become the list's publication date. */
function dateOfIssueSection(state: ParseState, capture: TextCapture): SectionHandler {
  return {
    open(_name, _attrs, depth) {
      if (depth === 3) capture.start()
    },
    close(name) {
      if (!capture.active) return
      capture.stop()
      if (name === 'Year') state.issue.year = capture.text.trim()
      else if (name === 'Month') state.issue.month = capture.text.trim()
      else if (name === 'Day') state.issue.day = capture.text.trim()
    },
  }
}

/**
 * ReferenceValueSets: every reference value (the depth-4 elements, e.g. `<Country ID ISO2>`) by
 * table and id, with its text and attributes, so later sections can be resolved by text.
 */
function referenceValuesSection(state: ParseState, capture: TextCapture): SectionHandler {
  let element: { name: string; attributes: Attrs } | null = null
  return {
    open(name, attrs, depth) {
      if (depth !== 4) return
      element = { name, attributes: attrs }
      capture.start()
    },
    close(_name, depth) {
      if (depth !== 3 || !element) return
      capture.stop()
      const id = element.attributes.ID
      if (id !== undefined) {
        let set = state.refs.get(element.name)
        if (!set) {
          set = new Map()
          state.refs.set(element.name, set)
        }
        set.set(id, { text: detach(capture.text.trim()), attributes: element.attributes })
      }
      element = null
    },
  }
}

/** Locations: the country of each location, for the party features that point at one. */
function locationsSection(state: ParseState): SectionHandler {
  let locationId = ''
  return {
    open(name, attrs) {
      if (name === 'Location') locationId = attrs.ID ?? ''
      else if (name === 'LocationCountry' && attrs.CountryID)
        state.locationCountry.set(locationId, attrs.CountryID)
    },
    close() {},
  }
}

/**
 * IDRegDocuments: identity documents and registrations (type, issuing country, number) by the
 * identity they belong to; a party picks up those of its identities when it is resolved.
 */
function idDocumentsSection(state: ParseState, capture: TextCapture): SectionHandler {
  let idDoc: (RawIdDoc & { identityId: string }) | null = null
  return {
    open(name, attrs) {
      if (name === 'IDRegDocument') {
        idDoc = {
          typeId: attrs.IDRegDocTypeID ?? '',
          countryId: attrs['IssuedBy-CountryID'] ?? '',
          identityId: attrs.IdentityID ?? '',
          number: '',
        }
      } else if (name === 'IDRegistrationNo') capture.start()
    },
    close(name) {
      if (name === 'IDRegistrationNo' && idDoc) {
        capture.stop()
        idDoc.number = detach(capture.text.trim())
      } else if (name === 'IDRegDocument' && idDoc) {
        const list = state.idDocsByIdentity.get(idDoc.identityId)
        const doc = { typeId: idDoc.typeId, countryId: idDoc.countryId, number: idDoc.number }
        if (list) list.push(doc)
        else state.idDocsByIdentity.set(idDoc.identityId, [doc])
        idDoc = null
      }
    },
  }
}

/**
 * DistinctParties: a party's profile and identities here, its names and features in their own
 * handlers. Each party becomes its final entry as soon as it closes, so only compact entries
 * are retained.
 */
function distinctPartiesSection(state: ParseState, capture: TextCapture): SectionHandler {
  let party: RawParty | null = null
  const current = () => party
  const names = partyNamesHandler(capture, current)
  const features = partyFeaturesHandler(state, capture, current)
  return {
    open(name, attrs, depth) {
      if (name === 'DistinctParty') party = newParty(attrs.FixedRef ?? '')
      else if (name === 'Profile') {
        if (party) {
          party.profileId = attrs.ID ?? ''
          party.subTypeId = attrs.PartySubTypeID ?? ''
        }
      } else if (name === 'Identity') {
        if (party && attrs.ID) party.identityIds.push(attrs.ID)
      } else {
        names.open(name, attrs, depth)
        features.open(name, attrs, depth)
      }
    },
    close(name, depth) {
      if (name !== 'DistinctParty') {
        names.close(name, depth)
        features.close(name, depth)
        return
      }
      if (party && state.tables) addParty(state, party, state.tables)
      party = null
    },
  }
}

function newParty(fixedRef: string): RawParty {
  return {
    fixedRef,
    profileId: '',
    subTypeId: '',
    identityIds: [],
    aliases: [],
    groupTypes: new Map(),
    countryIds: [],
    addresses: [],
    birthDates: [],
    nationalityLocationIds: [],
  }
}

/**
 * Resolves a closed party into its entry and keeps it, waiting under its profile id for the
 * programmes and dates of SanctionsEntries. A FixedRef seen twice is an error, not a merge.
 */
function addParty(state: ParseState, party: RawParty, tables: Tables): void {
  const entry = resolveParty(party, tables, state.idDocsByIdentity)
  if (state.seenRefs.has(entry.entry_id)) fail(`duplicate DistinctParty FixedRef ${entry.entry_id}`)
  state.seenRefs.add(entry.entry_id)
  state.entries.push(entry)
  state.pendingByProfile.set(party.profileId, { entry, sdnDate: null, otherDate: null })
}

/**
 * A party's names: Alias > DocumentedName > NamePartValue, each part with its group and script,
 * and the NamePartGroups that say which part is a last name, first name, ... (typed by
 * resolveParty).
 */
function partyNamesHandler(capture: TextCapture, current: () => RawParty | null): SectionHandler {
  let alias: RawAlias | null = null
  let docName: DocName | null = null
  let namePart: { groupId: string; scriptId: string } | null = null
  return {
    open(name, attrs) {
      switch (name) {
        case 'Alias':
          alias = {
            typeId: attrs.AliasTypeID ?? '',
            primary: attrs.Primary === 'true',
            lowQuality: attrs.LowQuality === 'true',
            names: [],
          }
          current()?.aliases.push(alias)
          return
        case 'DocumentedName':
          docName = { statusId: attrs.DocNameStatusID ?? '', parts: [] }
          alias?.names.push(docName)
          return
        case 'NamePartValue':
          namePart = { groupId: attrs.NamePartGroupID ?? '', scriptId: attrs.ScriptID ?? '' }
          capture.start()
          return
        case 'NamePartGroup': {
          const party = current()
          if (party && attrs.ID) party.groupTypes.set(attrs.ID, attrs.NamePartTypeID ?? '')
          return
        }
        default:
          return
      }
    },
    close(name) {
      switch (name) {
        case 'NamePartValue':
          if (namePart && docName) docName.parts.push({ ...namePart, text: capture.text.trim() })
          capture.stop()
          namePart = null
          return
        case 'DocumentedName':
          docName = null
          return
        case 'Alias':
          alias = null
          return
        default:
          return
      }
    },
  }
}

/** A date part (Year, Month, Day) of a birthdate's DatePeriod: Start/From and End/To matter. */
interface DatePoint {
  year: string
  month: string
  day: string
}

/** A birthdate DatePeriod as the list states it: one day, one year, or a FROM/TO range. */
function birthDateOf(from: DatePoint, to: DatePoint): string | null {
  const start = isoDate(from.year, from.month || '1', from.day || '1')
  const end = isoDate(to.year || from.year, to.month || '12', to.day || '31')
  if (!start || !end) return null
  if (start === end) return start
  if (start.endsWith('-01-01') && end.endsWith('-12-31') && start.slice(0, 4) === end.slice(0, 4)) {
    return start.slice(0, 4)
  }
  if (start.endsWith('-01-01') && end.endsWith('-12-31')) return `${start.slice(0, 4)}/${end.slice(0, 4)}`
  return `${start}/${end}`
}

/**
 * A party's features: digital currency addresses (a FeatureType "Digital Currency Address -
 * XXX", the address in VersionDetail), the countries of located features (VersionLocation),
 * dates of birth (FeatureType "Birthdate", a DatePeriod from Start/From to End/To) and
 * nationalities ("Nationality Country", "Citizenship Country").
 */
function partyFeaturesHandler(
  state: ParseState,
  capture: TextCapture,
  current: () => RawParty | null,
): SectionHandler {
  let inFeature = false
  let featureCurrency: string | undefined
  let birthdate = false
  let nationality = false
  let edge: 'Start' | 'End' | null = null
  let bound: 'From' | 'To' | null = null
  let from: DatePoint = { year: '', month: '', day: '' }
  let to: DatePoint = { year: '', month: '', day: '' }
  return {
    open(name, attrs) {
      if (name === 'Feature') {
        inFeature = true
        const typeId = attrs.FeatureTypeID ?? ''
        featureCurrency = state.tables?.currencyOfFeature.get(typeId)
        birthdate = state.tables?.birthdateFeatures.has(typeId) ?? false
        nationality = state.tables?.nationalityFeatures.has(typeId) ?? false
        from = { year: '', month: '', day: '' }
        to = { year: '', month: '', day: '' }
      } else if (name === 'VersionDetail') {
        if (featureCurrency) capture.start()
      } else if (name === 'VersionLocation') {
        const countryId = attrs.LocationID ? state.locationCountry.get(attrs.LocationID) : undefined
        const party = current()
        if (party && inFeature && countryId) party.countryIds.push(countryId)
        if (party && inFeature && nationality && countryId) party.nationalityLocationIds.push(countryId)
      } else if (birthdate && (name === 'Start' || name === 'End')) edge = name
      else if (birthdate && (name === 'From' || name === 'To')) bound = name
      else if (birthdate && edge && bound && (name === 'Year' || name === 'Month' || name === 'Day')) {
        capture.start()
      }
    },
    close(name) {
      if (name === 'VersionDetail') {
        const party = current()
        if (capture.active && party && featureCurrency) {
          const value = capture.text.trim()
          if (value) party.addresses.push({ currency: featureCurrency, value: detach(value) })
        }
        capture.stop()
      } else if (birthdate && capture.active && (name === 'Year' || name === 'Month' || name === 'Day')) {
        capture.stop()
        const key = name === 'Year' ? 'year' : name === 'Month' ? 'month' : 'day'
        if (edge === 'Start' && bound === 'From') from[key] = capture.text.trim()
        if (edge === 'End' && bound === 'To') to[key] = capture.text.trim()
      } else if (name === 'From' || name === 'To') bound = null
      else if (name === 'Start' || name === 'End') edge = null
      else if (name === 'Feature') {
        const party = current()
        if (birthdate && party) {
          const date = birthDateOf(from, to)
          if (date && !party.birthDates.includes(date)) party.birthDates.push(date)
        }
        inFeature = false
        featureCurrency = undefined
        birthdate = false
        nationality = false
      }
    },
  }
}

/**
 * SanctionsEntries: fills in the entry of each profile (parties come first in the schema) with
 * its programmes (SanctionsMeasure of type "Program", the programme in its Comment) and its
 * listing date (the earliest EntryEvent date on the SDN List, else on any other list).
 */
function sanctionsEntriesSection(state: ParseState, capture: TextCapture): SectionHandler {
  let pending: PendingEntry | null = null
  let onSdnList = false
  let inEvent = false
  let eventDate: { year: string; month: string; day: string } | null = null
  let measure: { typeId: string; comment: string } | null = null
  return {
    open(name, attrs) {
      if (name === 'SanctionsEntry') {
        pending = state.pendingByProfile.get(attrs.ProfileID ?? '') ?? null
        if (!pending) fail(`SanctionsEntry for unknown ProfileID ${attrs.ProfileID}`)
        onSdnList = state.tables?.sdnListIds.has(attrs.ListID ?? '') ?? false
      } else if (name === 'EntryEvent') inEvent = true
      else if (name === 'Date' && inEvent) eventDate = { year: '', month: '', day: '' }
      else if (eventDate && (name === 'Year' || name === 'Month' || name === 'Day')) capture.start()
      else if (name === 'SanctionsMeasure') measure = { typeId: attrs.SanctionsTypeID ?? '', comment: '' }
      else if (name === 'Comment' && measure) capture.start()
    },
    close(name) {
      if (capture.active) {
        capture.stop()
        if (eventDate) {
          if (name === 'Year') eventDate.year = capture.text.trim()
          else if (name === 'Month') eventDate.month = capture.text.trim()
          else if (name === 'Day') eventDate.day = capture.text.trim()
        } else if (measure && name === 'Comment') measure.comment = capture.text.trim()
      } else if (name === 'Date' && eventDate && pending) {
        recordEventDate(pending, eventDate, onSdnList)
        eventDate = null
      } else if (name === 'EntryEvent') inEvent = false
      else if (name === 'SanctionsMeasure' && measure && pending) {
        addProgramme(pending.entry, measure, state.tables)
        measure = null
      } else if (name === 'SanctionsEntry') pending = null
    },
  }
}

/** Keeps the earliest valid event date, separately for the SDN List and for other lists. */
function recordEventDate(
  pending: PendingEntry,
  eventDate: { year: string; month: string; day: string },
  onSdnList: boolean,
): void {
  const date = isoDate(eventDate.year, eventDate.month, eventDate.day)
  if (date && onSdnList && (pending.sdnDate === null || date < pending.sdnDate)) pending.sdnDate = date
  if (date && !onSdnList && (pending.otherDate === null || date < pending.otherDate)) pending.otherDate = date
}

/** Adds a measure's programme to the entry once; other measure types carry no programme. */
function addProgramme(
  entry: SanctionsEntry,
  measure: { typeId: string; comment: string },
  tables: Tables | null,
): void {
  const programmes = entry.programmes
  if (
    tables?.programmeMeasures.has(measure.typeId) &&
    measure.comment &&
    !programmes.includes(measure.comment)
  ) {
    programmes.push(detach(measure.comment))
  }
}

/**
 * Parses an OFAC SDN Advanced XML document into list entries (entry_id = DistinctParty
 * FixedRef). Throws ListParseError for malformed or truncated input, sections missing or out of
 * schema order, or an empty list; never returns a partial list.
 */
export async function parseOfacAdvancedXml(input: ListInput): Promise<ParsedList> {
  const parser = createXmlParser()
  const capture = createTextCapture(parser)
  const state: ParseState = {
    refs: new Map(),
    tables: null,
    locationCountry: new Map(),
    idDocsByIdentity: new Map(),
    entries: [],
    pendingByProfile: new Map(),
    seenRefs: new Set(),
    sections: new Set(),
    issue: { year: '', month: '', day: '' },
  }
  const handlers = new Map<string, SectionHandler>([
    ['DateOfIssue', dateOfIssueSection(state, capture)],
    ['ReferenceValueSets', referenceValuesSection(state, capture)],
    ['Locations', locationsSection(state)],
    ['IDRegDocuments', idDocumentsSection(state, capture)],
    ['DistinctParties', distinctPartiesSection(state, capture)],
    ['SanctionsEntries', sanctionsEntriesSection(state, capture)],
  ])

  let depth = 0
  let rootName = ''
  let section: SectionHandler | undefined
  parser.on('opentag', (tag) => {
    depth++
    const name = localName(tag.name)
    if (depth === 1) {
      rootName = name
      if (name !== 'Sanctions') fail(`root element is <${name}>, expected <Sanctions>`)
      return
    }
    if (depth === 2) {
      enterSection(state, name)
      section = handlers.get(name)
      return
    }
    section?.open(name, tag.attributes as Attrs, depth)
  })
  parser.on('closetag', (tag) => {
    depth--
    if (depth === 1) {
      section = undefined
      return
    }
    section?.close(localName(tag.name), depth)
  })

  await feedXml(parser, input, 'ofac_sdn', FORMAT)

  if (rootName !== 'Sanctions') fail('no <Sanctions> root element')
  return finishList(state)
}

/** The checks on the whole document, then the listing dates and the result. */
function finishList(state: ParseState): ParsedList {
  for (const required of ['DateOfIssue', 'ReferenceValueSets', 'DistinctParties', 'SanctionsEntries']) {
    if (!state.sections.has(required)) fail(`missing <${required}> section`)
  }
  const { entries } = state
  if (entries.length === 0) fail('no DistinctParty entries')
  const publicationDate = isoDate(state.issue.year, state.issue.month, state.issue.day)
  if (!publicationDate) fail('DateOfIssue has no valid date')
  for (const { entry, sdnDate, otherDate } of state.pendingByProfile.values()) {
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

/** A closed party as its list entry; programmes and listed_on are filled in by SanctionsEntries. */
function resolveParty(
  party: RawParty,
  tables: Tables,
  idDocsByIdentity: Map<string, RawIdDoc[]>,
): SanctionsEntry {
  if (!party.fixedRef) fail('DistinctParty without FixedRef')
  const entryType = entryTypeOf(tables, party.subTypeId)
  const joinName = (doc: DocName): string => joinDocName(doc, entryType, party, tables)

  const primaryDoc = primaryDocOf(party, tables)
  const name = joinName(primaryDoc)
  if (!name) fail(`party ${party.fixedRef} has an empty primary name`)
  const aliases = aliasesOf(party, tables, primaryDoc, name, joinName)
  const { countries, identifiers } = identifiersOf(party, tables, idDocsByIdentity)

  const entry: SanctionsEntry = {
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
  if (party.birthDates.length > 0) entry.birth_dates = party.birthDates
  const nationalities = [
    ...new Set(party.nationalityLocationIds.map((id) => tables.countryIso.get(id)).filter(Boolean)),
  ] as string[]
  if (nationalities.length > 0) entry.nationalities = nationalities
  return entry
}

/**
 * Person names as the SDN CSV writes them, "Surname, Given names". The surname is the Last Name
 * parts plus the Matronymic; a Patronymic belongs to the surname only when there is no Last
 * Name (Spanish "CASTELLANOS GARZON, Henry"), otherwise it follows the given names (Russian
 * "KOSTIN, Andrey Leonidovich"). Given names are ordered First, Middle, then the rest.
 * Other parties' names are their parts in document order.
 */
function joinDocName(doc: DocName, entryType: EntryType, party: RawParty, tables: Tables): string {
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

function isLatin(doc: DocName, tables: Tables): boolean {
  return doc.parts.every((part) => tables.latinScripts.has(part.scriptId))
}

/** The entry's name: of the primary alias, the "Primary Latin" name, else a Latin one, else the first. */
function primaryDocOf(party: RawParty, tables: Tables): DocName {
  const primaryAlias = party.aliases.find((candidate) => candidate.primary)
  if (!primaryAlias || primaryAlias.names.length === 0) fail(`party ${party.fixedRef} has no primary name`)
  return (
    primaryAlias.names.find((doc) => tables.primaryLatinStatus.has(doc.statusId)) ??
    primaryAlias.names.find((doc) => isLatin(doc, tables)) ??
    primaryAlias.names[0]!
  )
}

/**
 * Every other documented name as an alias, once per name and kind: a.k.a./f.k.a./n.k.a. with
 * OFAC's weak/strong quality, names in another script as `original_script`.
 */
function aliasesOf(
  party: RawParty,
  tables: Tables,
  primaryDoc: DocName,
  name: string,
  joinName: (doc: DocName) => string,
): SanctionsAlias[] {
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
      const aliasKind: AliasKind | undefined = isLatin(doc, tables) ? kind : 'original_script'
      const key = `${aliasName}|${aliasKind ?? ''}`
      if (!aliasName || aliasName === name || aliasKeys.has(key)) continue
      aliasKeys.add(key)
      const entryAlias: SanctionsAlias = { name: aliasName }
      if (aliasKind) entryAlias.kind = aliasKind
      if (quality) entryAlias.quality = quality
      aliases.push(entryAlias)
    }
  }
  return aliases
}

/**
 * The party's digital currency addresses and identity documents as identifiers (each once), and
 * its countries: those of its located features, then the issuing countries of its documents.
 */
function identifiersOf(
  party: RawParty,
  tables: Tables,
  idDocsByIdentity: Map<string, RawIdDoc[]>,
): { countries: string[]; identifiers: SanctionsIdentifier[] } {
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
  return { countries, identifiers }
}
