import type { Clock } from '../context.ts'
import { countryRisk } from '../reference/index.ts'
import type { SanctionsCoverage } from '../sanctions/coverage.ts'
import {
  assessCountryRisk,
  assessDns,
  assessIban,
  assessKboEnterprise,
  assessKvkCompany,
  assessKvkSearch,
  assessRdap,
  assessSanctions,
  assessTls,
  assessVies,
  assessWallet,
  compareCompanyNames,
  normaliseCompanyName,
  notCheckedAssessment,
  type SanctionsNameScreenResult,
  type SanctionsScreening,
  type SourceAssessment,
  scoreAssessments,
  type TrustAssessment,
  unavailableAssessment,
} from '../scoring/index.ts'
import {
  fanOut,
  type KboEnterprise,
  type KvkCompany,
  type KvkSearchData,
  type SourceResult,
  type ViesCheck,
} from '../sources/index.ts'
import { formatCbeNumber } from '../validate/index.ts'
import type { CompanySources } from './company-sources.ts'
import { cbeOf } from './entity-hash.ts'
import type { SanctionsNameScreen } from './sanctions-name-screen.ts'

/** What a company check is asked to look at (entity check and KYB share this). */
export interface CompanyCheckRequest {
  /** Name to screen and compare; KYB may leave it out (then the register's names are used). */
  entity_name?: string
  country: string
  kvk_number?: string
  cbe_number?: string
  vat_number?: string
  /** Host to probe (DNS, TLS) and its registrable domain (RDAP answers for registered names). */
  domain?: { host: string; registrable: string }
  iban?: string
  wallet?: { address: string; chain: string }
  /** NL without a KVK number: search KVK by name (entity check). */
  search_register_by_name: boolean
  /** Enhanced tier: screen the register's names, profile the best KVK hit, add register_profile. */
  enhanced: boolean
  /** How names are screened against the sanctions lists (default exact; the enhanced tiers use fuzzy). */
  sanctions_match?: 'exact' | 'fuzzy'
}

export interface CompanyCheckDeps {
  sources: CompanySources
  sanctions?: SanctionsNameScreen
  clock: Clock
}

/** Register details added by the enhanced tier. */
export interface RegisterProfile {
  register: 'KVK' | 'KBO'
  number: string
  name: string | null
  other_names: string[]
  legal_form: string | null
  registered_on: string | null
  active: boolean | null
  address: string | null
  activities: { code: string; description: string | null; main: boolean }[]
  vat?: { name: string | null; address: string | null }
}

export interface CompanyCheckOutcome {
  trust: TrustAssessment
  assessments: SourceAssessment[]
  /** Which register was consulted. */
  register_checked: 'KVK' | 'KBO' | 'none'
  /** The register answered and the number is an active registration. */
  register_verified: boolean
  /** The register answered: the number / name is unknown or the registration ended. */
  register_failed: boolean
  sanctions: SanctionsScreening
  vat_invalid: boolean
  register_profile?: RegisterProfile
}

type Calls = Record<string, () => Promise<SourceResult<unknown>>>

/**
 * One company check: every applicable source at once (DESIGN "Upstream sources": parallel
 * fan-out, the check costs the slowest source), then the findings scored (core/scoring). A
 * source that is not configured or does not answer is `unavailable` (spec: never clean).
 * The enhanced tier adds a second, short round: the register's names screened and, for NL by
 * name, the best hit's Basisprofiel.
 */
export async function runCompanyCheck(
  request: CompanyCheckRequest,
  deps: CompanyCheckDeps,
): Promise<CompanyCheckOutcome> {
  const { sources, clock } = deps
  const now = () => clock.now()
  const stamp = () => now().toISOString()
  const missing = (source: string) => async (): Promise<SourceResult<never>> => ({
    source,
    status: 'unavailable',
    reason: 'not_configured',
    fetched_at: stamp(),
    latency_ms: 0,
  })

  const country = request.country
  const cbe = cbeOf(request.cbe_number, request.vat_number)
  const wantsKvkLookup = request.kvk_number !== undefined
  const wantsKvkSearch =
    !wantsKvkLookup &&
    country === 'NL' &&
    request.search_register_by_name &&
    request.entity_name !== undefined
  const wantsKbo = cbe !== null || request.cbe_number !== undefined

  const { kvk: kvkSource, kbo: kboSource, vies: viesSource, rdap, dns, tls } = sources
  const calls: Calls = {}
  if (request.kvk_number !== undefined) {
    const number = request.kvk_number
    calls.kvk = kvkSource ? () => kvkSource.lookupCompany(number) : missing('kvk')
  } else if (wantsKvkSearch && request.entity_name) {
    const name = request.entity_name
    calls.kvk = kvkSource ? () => kvkSource.searchCompanies({ name, limit: 10 }) : missing('kvk')
  }
  if (wantsKbo) {
    // An invalid number is still asked, so the lookup answers "not found: invalid number".
    const number = cbe ? formatCbeNumber(cbe) : (request.cbe_number as string)
    calls.kbo = kboSource ? () => kboSource.lookupEnterprise(number) : missing('kbo')
  }
  if (request.vat_number) {
    const vatNumber = request.vat_number
    calls.vies = viesSource ? () => viesSource.checkVat({ vatNumber }) : missing('vies')
  }
  if (request.domain) {
    const { host, registrable } = request.domain
    calls.rdap = rdap ? () => rdap.lookupDomain(registrable) : missing('rdap')
    calls.dns = dns ? () => dns.probe(host) : missing('dns')
    calls.tls = tls ? () => tls.probe(host) : missing('tls')
  }

  const givenName = request.entity_name
  const [results, firstScreening] = await Promise.all([
    fanOut(calls, now),
    givenName ? screenNames(deps, [givenName], country, request.sanctions_match) : Promise.resolve(undefined),
  ])

  let kvk = results.kvk as SourceResult<KvkCompany> | SourceResult<KvkSearchData> | undefined
  let kvkIsLookup = wantsKvkLookup
  const kbo = results.kbo as SourceResult<KboEnterprise> | undefined
  const vies = results.vies as SourceResult<ViesCheck> | undefined

  // Enhanced, NL by name: the Basisprofiel of the best active exact hit.
  if (request.enhanced && wantsKvkSearch && kvk?.status === 'ok' && kvkSource && givenName) {
    const hits = (kvk.data as KvkSearchData).results
    const best = hits.find(
      (hit) => hit.active && compareCompanyNames(givenName, [hit.name]).verdict === 'match',
    )
    if (best) {
      const profile = await kvkSource.lookupCompany(best.kvk_number)
      if (profile.status === 'ok') {
        kvk = profile
        kvkIsLookup = true
      }
    }
  }

  const registerNames = namesFromRegisters(kvkIsLookup ? (kvk as SourceResult<KvkCompany>) : undefined, kbo)
  let screening = firstScreening
  const extraNames = request.enhanced || !givenName ? registerNames : []
  if (extraNames.length > 0 || !screening) {
    const seen = new Set(givenName ? [normaliseCompanyName(givenName)] : [])
    const fresh = extraNames.filter((name) => {
      const key = normaliseCompanyName(name)
      if (seen.has(key)) return false
      seen.add(key)
      return true
    })
    if (fresh.length > 0) {
      const more = await screenNames(deps, fresh, country, request.sanctions_match)
      screening = screening ? mergeScreenings(screening, more) : more
    }
  }
  screening ??= {
    names: [],
    fetched_at: stamp(),
    result: { status: 'unavailable', reason: 'no_name_to_screen' },
  }

  const nameForComparison = givenName ?? registerNames[0] ?? ''
  const assessments: SourceAssessment[] = []
  if (kvk) {
    assessments.push(
      kvkIsLookup
        ? assessKvkCompany(kvk as SourceResult<KvkCompany>, nameForComparison, now())
        : assessKvkSearch(kvk as SourceResult<KvkSearchData>, nameForComparison),
    )
  }
  if (kbo) assessments.push(assessKboEnterprise(kbo, nameForComparison, now()))
  if (!kvk && !kbo) {
    assessments.push(
      country === 'BE'
        ? notCheckedAssessment(
            'kbo',
            'register',
            'register_not_checked',
            'the KBO open data are looked up by enterprise number: send cbe_number or a BE vat_number',
          )
        : country === 'NL'
          ? notCheckedAssessment(
              'kvk',
              'register',
              'register_not_checked',
              'no KVK number and no name to search',
            )
          : notCheckedAssessment(
              'register',
              'register',
              'register_not_covered',
              `no business register is covered for ${country} (covered: NL KVK, BE KBO)`,
            ),
    )
  }
  if (vies) assessments.push(assessVies(vies, nameForComparison, country))
  if (results.rdap) assessments.push(assessRdap(results.rdap as never, now()))
  if (results.dns) assessments.push(assessDns(results.dns as never))
  if (results.tls) assessments.push(assessTls(results.tls as never))
  if (request.iban) assessments.push(assessIban(request.iban, country, stamp()))
  if (request.wallet) {
    const screen = await screenWallet(deps, request.wallet.address)
    assessments.push(assessWallet(request.wallet.address, request.wallet.chain, stamp(), screen))
  }
  const risk = countryRisk(country)
  assessments.push(
    risk
      ? assessCountryRisk(risk, stamp())
      : unavailableAssessment('country_risk', 'country_risk', 'unknown_country', stamp(), 'Country risk'),
  )
  assessments.push(assessSanctions(screening))

  const trust = scoreAssessments(assessments)
  const registerAssessments = assessments.filter((a) => a.role === 'register' && a.status === 'ok')
  const registerFactors = registerAssessments.flatMap((a) => a.factors.map((f) => f.factor))
  const outcome: CompanyCheckOutcome = {
    trust,
    assessments,
    register_checked: kvk ? 'KVK' : kbo ? 'KBO' : 'none',
    register_verified:
      registerFactors.includes('registered_active') && !registerFactors.includes('register_name_mismatch'),
    register_failed: registerFactors.some((f) => f === 'not_in_register' || f === 'registration_ended'),
    sanctions: screening,
    vat_invalid: vies?.status === 'ok' && !vies.data.valid,
  }
  if (request.enhanced) {
    const profile = registerProfile(kvkIsLookup ? (kvk as SourceResult<KvkCompany>) : undefined, kbo, vies)
    if (profile) outcome.register_profile = profile
  }
  return outcome
}

/** The `sanctions_coverage` field of a check's answer (absent when no screen could report one). */
export function sanctionsCoverageOf(outcome: Pick<CompanyCheckOutcome, 'sanctions'>): {
  sanctions_coverage?: SanctionsCoverage
} {
  const { result } = outcome.sanctions
  return result.coverage ? { sanctions_coverage: result.coverage } : {}
}

/** Screens a wallet address; no port (or no address screen) wired means not screened. */
async function screenWallet(deps: CompanyCheckDeps, address: string): Promise<SanctionsNameScreenResult> {
  if (!deps.sanctions?.screenAddress) return { status: 'unavailable', reason: 'sanctions_lists_not_loaded' }
  try {
    return await deps.sanctions.screenAddress(address)
  } catch {
    return { status: 'unavailable', reason: 'internal_error' }
  }
}

/** Screens names (in parallel); no port wired means the lists are not loaded: unavailable. */
async function screenNames(
  deps: CompanyCheckDeps,
  names: string[],
  country: string,
  match: 'exact' | 'fuzzy' = 'exact',
): Promise<SanctionsScreening> {
  const fetchedAt = deps.clock.now().toISOString()
  if (!deps.sanctions) {
    return {
      names,
      fetched_at: fetchedAt,
      result: { status: 'unavailable', reason: 'sanctions_lists_not_loaded' },
    }
  }
  const screen = deps.sanctions
  const results = await Promise.all(
    names.map(async (name): Promise<SanctionsNameScreenResult> => {
      try {
        return match === 'fuzzy'
          ? await screen.screenName(name, country, { match })
          : await screen.screenName(name, country)
      } catch {
        return { status: 'unavailable', reason: 'internal_error' }
      }
    }),
  )
  return { names, fetched_at: fetchedAt, result: results.reduce(mergeResults) }
}

function mergeScreenings(a: SanctionsScreening, b: SanctionsScreening): SanctionsScreening {
  return {
    names: [...a.names, ...b.names],
    fetched_at: a.fetched_at,
    result: mergeResults(a.result, b.result),
  }
}

/**
 * A match anywhere wins; otherwise any unavailable screen makes the whole screening unavailable.
 * The coverage of two screens is the weaker one (fewer lists checked).
 */
function mergeResults(a: SanctionsNameScreenResult, b: SanctionsNameScreenResult): SanctionsNameScreenResult {
  if (a.status === 'ok' && b.status === 'ok') {
    return {
      status: 'ok',
      possible_match: a.possible_match || b.possible_match,
      matches: [...a.matches, ...b.matches],
      ...(a.dismissed || b.dismissed ? { dismissed: [...(a.dismissed ?? []), ...(b.dismissed ?? [])] } : {}),
      list_dates: { ...a.list_dates, ...b.list_dates },
      coverage: b.coverage.lists_checked.length < a.coverage.lists_checked.length ? b.coverage : a.coverage,
    }
  }
  const match = [a, b].find((r) => r.status === 'ok' && r.possible_match)
  if (match) return match
  return a.status === 'unavailable' ? a : b
}

function namesFromRegisters(
  kvk: SourceResult<KvkCompany> | undefined,
  kbo: SourceResult<KboEnterprise> | undefined,
): string[] {
  const names: string[] = []
  if (kvk?.status === 'ok' && kvk.data.found) {
    for (const name of [kvk.data.name, kvk.data.statutory_name, ...kvk.data.trade_names])
      if (name) names.push(name)
  }
  if (kbo?.status === 'ok' && kbo.data.found) {
    for (const name of [kbo.data.name, ...kbo.data.names.map((n) => n.name)]) if (name) names.push(name)
  }
  const seen = new Set<string>()
  return names.filter((name) => {
    const key = normaliseCompanyName(name)
    if (seen.has(key)) return false
    seen.add(key)
    return true
  })
}

function registerProfile(
  kvk: SourceResult<KvkCompany> | undefined,
  kbo: SourceResult<KboEnterprise> | undefined,
  vies: SourceResult<ViesCheck> | undefined,
): RegisterProfile | undefined {
  const vat = vies?.status === 'ok' ? { vat: { name: vies.data.name, address: vies.data.address } } : {}
  if (kvk?.status === 'ok' && kvk.data.found) {
    const c = kvk.data
    return {
      register: 'KVK',
      number: c.kvk_number,
      name: c.name,
      other_names: [c.statutory_name, ...c.trade_names].filter((n): n is string => !!n && n !== c.name),
      legal_form: c.legal_form_detail ?? c.legal_form,
      registered_on: c.registered_on,
      active: c.active,
      address:
        c.address?.full ??
        ([c.address?.street, c.address?.house_number, c.address?.postcode, c.address?.city]
          .filter(Boolean)
          .join(' ') ||
          null),
      activities: c.sbi_codes.map((s) => ({
        code: s.code,
        description: s.description || null,
        main: s.main,
      })),
      ...vat,
    }
  }
  if (kbo?.status === 'ok' && kbo.data.found) {
    const e = kbo.data
    const a = e.address
    return {
      register: 'KBO',
      number: e.enterprise_number,
      name: e.name,
      other_names: e.names.map((n) => n.name).filter((n) => n !== e.name),
      legal_form: e.juridical_form?.description ?? e.juridical_form?.code ?? null,
      registered_on: e.start_date,
      active: e.status === 'active',
      address: a
        ? [a.street, a.house_number, a.box, a.zipcode, a.municipality, a.country].filter(Boolean).join(' ') ||
          null
        : null,
      activities: e.nace_codes.map((n) => ({ code: n.code, description: n.description, main: n.main })),
      ...vat,
    }
  }
  return undefined
}
