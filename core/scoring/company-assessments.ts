import type { CountryRisk } from '../reference/index.ts'
import { lookupBank } from '../reference/index.ts'
import { coverageGaps, coverageSummary } from '../sanctions/coverage.ts'
import type {
  DnsProfile,
  KboEnterprise,
  KvkCompany,
  KvkSearchData,
  RdapDomain,
  SourceResult,
  TlsCertificateInfo,
  ViesCheck,
} from '../sources/index.ts'
import { ibanCountry } from '../validate/index.ts'
import type { FactorName, FactorSeverity, RiskFactor, SourceAssessment, SourceRole } from './factors.ts'
import { compareCompanyNames } from './name-match.ts'
import type { SanctionsDismissedMatch, SanctionsNameScreenResult } from './sanctions-name-result.ts'
import { PARTIAL_SANCTIONS_PENALTY, unavailableAssessment } from './trust-score.ts'

/*
 * Source result -> findings with weights. Every weight here is listed in METHODOLOGY.md; change
 * both together. Positive weights need an answer; an unavailable source gets only its penalty.
 */

const DAY_MS = 86_400_000

/** One finding; only a name listed in FACTORS, with one of its severities, can be produced. */
function factor<Name extends FactorName>(
  source: string,
  name: Name,
  severity: FactorSeverity<Name>,
  weight: number,
  evidence: string,
): RiskFactor {
  return { factor: name, source, severity, weight, evidence, status: 'ok' }
}

function assess<T>(
  result: SourceResult<T>,
  role: SourceRole,
  what: string,
  findings: (data: T) => RiskFactor[],
): SourceAssessment {
  if (result.status === 'unavailable') {
    return unavailableAssessment(result.source, role, result.reason, result.fetched_at, what)
  }
  return {
    source: result.source,
    role,
    status: 'ok',
    fetched_at: result.fetched_at,
    factors: findings(result.data),
  }
}

/** A register or check that could not be asked, said as such (weight 0, never clean). */
export function notCheckedAssessment(
  source: string,
  role: SourceRole,
  name: FactorName,
  evidence: string,
): SourceAssessment {
  return {
    source,
    role,
    status: 'not_checked',
    factors: [{ factor: name, source, severity: 'info', weight: 0, evidence, status: 'not_checked' }],
  }
}

function nameFactor(source: string, register: string, given: string, names: (string | null)[]): RiskFactor {
  const { verdict, best } = compareCompanyNames(given, names)
  const registered = best ?? names.find(Boolean) ?? 'no name'
  switch (verdict) {
    case 'match':
      return factor(
        source,
        'register_name_match',
        'info',
        5,
        `${register} name "${registered}" matches "${given}"`,
      )
    case 'partial':
      return factor(
        source,
        'register_name_partial_match',
        'low',
        0,
        `${register} name "${registered}" only partly matches "${given}"`,
      )
    case 'mismatch':
      return factor(
        source,
        'register_name_mismatch',
        'medium',
        -15,
        `the number belongs to "${registered}" in ${register}, not to "${given}"`,
      )
  }
}

function recentFactor(source: string, since: string | null, now: Date): RiskFactor[] {
  if (!since) return []
  const started = Date.parse(
    since.length === 4 ? `${since}-01-01` : since.length === 7 ? `${since}-01` : since,
  )
  if (Number.isNaN(started)) return []
  const days = Math.floor((now.getTime() - started) / DAY_MS)
  if (days >= 365 || days < 0) return []
  return [factor(source, 'recently_registered', 'low', -5, `registered ${days} days ago (${since})`)]
}

/** KVK Basisprofiel by number (METHODOLOGY.md "Register"). */
export function assessKvkCompany(
  result: SourceResult<KvkCompany>,
  entityName: string,
  now: Date,
): SourceAssessment {
  return assess(result, 'register', 'KVK (Dutch business register)', (company) => {
    if (!company.found) {
      return [
        factor(
          'kvk',
          'not_in_register',
          'high',
          -30,
          `KVK has no registration ${company.kvk_number} (${company.not_found_code ?? 'not found'})`,
        ),
      ]
    }
    const names = [company.name, company.statutory_name, ...company.trade_names]
    if (company.active === false) {
      return [
        factor(
          'kvk',
          'registration_ended',
          'high',
          -35,
          `KVK ${company.kvk_number} (${company.name ?? 'no name'}) ended on ${company.ended_on ?? 'an unknown date'}`,
        ),
        nameFactor('kvk', 'KVK', entityName, names),
      ]
    }
    return [
      factor(
        'kvk',
        'registered_active',
        'info',
        20,
        `KVK ${company.kvk_number}: ${company.name ?? 'no name'}, ${company.legal_form ?? 'legal form unknown'}, registered ${company.registered_on ?? 'on an unknown date'}, active`,
      ),
      nameFactor('kvk', 'KVK', entityName, names),
      ...recentFactor('kvk', company.registered_on, now),
    ]
  })
}

/** KVK Zoeken by name, when no KVK number was given (weaker evidence than a number lookup). */
export function assessKvkSearch(result: SourceResult<KvkSearchData>, entityName: string): SourceAssessment {
  return assess(result, 'register', 'KVK (Dutch business register) search', (data) => {
    const ranked = data.results.map((hit) => ({ hit, ...compareCompanyNames(entityName, [hit.name]) }))
    const exactActive = ranked.find((r) => r.verdict === 'match' && r.hit.active)
    if (exactActive) {
      return [
        factor(
          'kvk',
          'register_name_found',
          'info',
          15,
          `KVK lists an active registration named "${exactActive.hit.name}" (${exactActive.hit.kvk_number}); ${data.total} result(s) for the name`,
        ),
      ]
    }
    const exactInactive = ranked.find((r) => r.verdict === 'match')
    if (exactInactive) {
      return [
        factor(
          'kvk',
          'registration_ended',
          'high',
          -20,
          `KVK lists "${exactInactive.hit.name}" (${exactInactive.hit.kvk_number}) only as an ended registration`,
        ),
      ]
    }
    const similar = ranked.find((r) => r.verdict === 'partial' && r.hit.active)
    if (similar) {
      return [
        factor(
          'kvk',
          'register_name_similar',
          'low',
          5,
          `KVK has no exact name; closest active registration is "${similar.hit.name}" (${similar.hit.kvk_number})`,
        ),
      ]
    }
    return [
      factor('kvk', 'not_in_register', 'medium', -20, `KVK finds no registration named "${entityName}"`),
    ]
  })
}

/** KBO/CBE enterprise by number (METHODOLOGY.md "Register"). */
export function assessKboEnterprise(
  result: SourceResult<KboEnterprise>,
  entityName: string,
  now: Date,
): SourceAssessment {
  return assess(result, 'register', 'KBO/CBE (Belgian enterprise register)', (enterprise) => {
    if (!enterprise.found) {
      return [
        factor(
          'kbo',
          'not_in_register',
          'high',
          -30,
          `KBO has no enterprise ${enterprise.enterprise_number} (${enterprise.not_found_reason ?? 'not found'})`,
        ),
      ]
    }
    const names = [enterprise.name, ...enterprise.names.map((n) => n.name)]
    const dataset = enterprise.dataset.snapshot_date
      ? ` (open data of ${enterprise.dataset.snapshot_date})`
      : ''
    if (enterprise.status !== 'active') {
      return [
        factor(
          'kbo',
          'registration_ended',
          'high',
          -35,
          `KBO ${enterprise.enterprise_number} (${enterprise.name ?? 'no name'}) is no longer active${dataset}`,
        ),
        nameFactor('kbo', 'KBO', entityName, names),
      ]
    }
    return [
      factor(
        'kbo',
        'registered_active',
        'info',
        20,
        `KBO ${enterprise.enterprise_number}: ${enterprise.name ?? 'no name'}, ${enterprise.juridical_form?.description ?? enterprise.juridical_form?.code ?? 'legal form unknown'}, started ${enterprise.start_date ?? 'on an unknown date'}, active${dataset}`,
      ),
      nameFactor('kbo', 'KBO', entityName, names),
      ...recentFactor('kbo', enterprise.start_date, now),
    ]
  })
}

/** EU VIES (METHODOLOGY.md "VAT"). */
export function assessVies(
  result: SourceResult<ViesCheck>,
  entityName: string,
  country: string,
): SourceAssessment {
  return assess(result, 'vat', 'VIES (EU VAT register)', (check) => {
    const number = `${check.country_code}${check.vat_number}`
    if (check.input_rejected) {
      return [
        factor('vies', 'vat_invalid', 'medium', -10, `VIES does not accept ${number} as an EU VAT number`),
      ]
    }
    if (!check.valid) {
      return [factor('vies', 'vat_invalid', 'high', -20, `VIES: ${number} is not a valid, active VAT number`)]
    }
    const out = [factor('vies', 'vat_valid', 'info', 10, `VIES: ${number} is valid (${check.request_date})`)]
    const vatCountry =
      check.country_code === 'EL' ? 'GR' : check.country_code === 'XI' ? 'GB' : check.country_code
    if (vatCountry !== country) {
      out.push(
        factor(
          'vies',
          'vat_country_mismatch',
          'low',
          -5,
          `VAT number is from ${vatCountry}, entity is in ${country}`,
        ),
      )
    }
    if (check.name) {
      const { verdict } = compareCompanyNames(entityName, [check.name])
      if (verdict === 'match') {
        out.push(factor('vies', 'vat_name_match', 'info', 5, `VIES name "${check.name}" matches`))
      } else if (verdict === 'mismatch') {
        out.push(
          factor('vies', 'vat_name_mismatch', 'medium', -10, `VIES registers ${number} to "${check.name}"`),
        )
      } else {
        out.push(
          factor('vies', 'vat_name_partial_match', 'low', 0, `VIES name "${check.name}" partly matches`),
        )
      }
    }
    return out
  })
}

/** RDAP registration data of the domain (METHODOLOGY.md "Domain"). */
export function assessRdap(result: SourceResult<RdapDomain>, now: Date): SourceAssessment {
  return assess(result, 'domain_registration', 'RDAP (domain registry)', (domain) => {
    if (!domain.registered) {
      return [
        factor(
          'rdap',
          'domain_not_registered',
          'high',
          -15,
          `the registry has no registration for ${domain.domain}`,
        ),
      ]
    }
    const out: RiskFactor[] = []
    const age = domain.domain_age_days
    const registrar = domain.registrar ? ` via ${domain.registrar}` : ''
    if (age === null) {
      out.push(
        factor(
          'rdap',
          'domain_registered',
          'info',
          0,
          `${domain.domain} is registered${registrar}; age unknown`,
        ),
      )
    } else if (age >= 365) {
      out.push(
        factor(
          'rdap',
          'domain_established',
          'info',
          5,
          `${domain.domain} registered ${age} days ago${registrar}`,
        ),
      )
    } else if (age >= 90) {
      out.push(
        factor('rdap', 'domain_young', 'info', 0, `${domain.domain} registered ${age} days ago${registrar}`),
      )
    } else {
      out.push(
        factor(
          'rdap',
          'domain_newly_registered',
          'medium',
          -10,
          `${domain.domain} registered only ${age} days ago${registrar}`,
        ),
      )
    }
    if (domain.expires_at) {
      const days = Math.floor((Date.parse(domain.expires_at) - now.getTime()) / DAY_MS)
      if (days < 30) {
        out.push(
          factor('rdap', 'domain_expiring', 'low', -3, `${domain.domain} expires ${domain.expires_at}`),
        )
      }
    }
    return out
  })
}

/** Mail DNS of the domain (METHODOLOGY.md "Domain"). */
export function assessDns(result: SourceResult<DnsProfile>): SourceAssessment {
  return assess(result, 'dns', 'DNS', (dns) => {
    if (!dns.domain_exists) {
      return [factor('dns', 'domain_does_not_resolve', 'medium', -10, `${dns.domain} does not exist in DNS`)]
    }
    const out: RiskFactor[] = []
    if (dns.has_mx) {
      out.push(factor('dns', 'mail_configured', 'info', 2, `MX: ${dns.mx.map((m) => m.exchange).join(', ')}`))
    } else {
      out.push(
        factor('dns', 'no_mail_server', 'low', -3, dns.null_mx ? 'null MX: accepts no mail' : 'no MX record'),
      )
    }
    if (dns.has_spf) out.push(factor('dns', 'spf_present', 'info', 1, `SPF: ${dns.spf}`))
    else out.push(factor('dns', 'spf_missing', 'info', 0, 'no SPF record'))
    if (dns.dmarc_policy === 'reject' || dns.dmarc_policy === 'quarantine') {
      out.push(
        factor('dns', 'dmarc_enforced', 'info', 2, `DMARC p=${dns.dmarc_policy} at ${dns.dmarc_domain}`),
      )
    } else if (dns.has_dmarc) {
      out.push(factor('dns', 'dmarc_not_enforced', 'info', 0, `DMARC p=${dns.dmarc_policy ?? 'unknown'}`))
    } else {
      out.push(factor('dns', 'dmarc_missing', 'low', -1, 'no DMARC record'))
    }
    return out
  })
}

/** TLS certificate of the domain's host (METHODOLOGY.md "Domain"). */
export function assessTls(result: SourceResult<TlsCertificateInfo>): SourceAssessment {
  return assess(result, 'tls', 'TLS certificate probe', (tls) => {
    if (tls.ssl_valid) {
      return [
        factor(
          'tls',
          'tls_valid',
          'info',
          3,
          `certificate for ${tls.host} by ${tls.issuer ?? 'unknown issuer'}, valid to ${tls.valid_to ?? 'unknown'}`,
        ),
      ]
    }
    return [
      factor(
        'tls',
        'tls_invalid',
        'low',
        -5,
        `certificate for ${tls.host} is not valid: ${tls.invalid_reason}`,
      ),
    ]
  })
}

/** IBAN country and issuing bank from the dated official code lists (never the holder). */
export function assessIban(iban: string, country: string, fetchedAt: string): SourceAssessment {
  const out: RiskFactor[] = []
  const ibanCc = ibanCountry(iban)
  if (ibanCc && ibanCc !== country) {
    out.push(
      factor(
        'bank_codes',
        'iban_country_mismatch',
        'low',
        -5,
        `IBAN is from ${ibanCc}, entity is in ${country}`,
      ),
    )
  }
  if (ibanCc === 'NL' || ibanCc === 'BE') {
    const bank = lookupBank(iban)
    if (bank) {
      out.push(
        factor(
          'bank_codes',
          'iban_bank_identified',
          'info',
          3,
          `issued by ${bank.bank_name}${bank.bic ? ` (${bank.bic})` : ''}; ${bank.source}, as of ${bank.as_of}`,
        ),
      )
    } else {
      out.push(
        factor(
          'bank_codes',
          'iban_bank_unknown',
          'low',
          -5,
          `bank code of the IBAN is not allocated in the official ${ibanCc} list`,
        ),
      )
    }
  } else {
    out.push(
      factor(
        'bank_codes',
        'iban_structure_valid',
        'info',
        0,
        `IBAN structure valid; no bank list for ${ibanCc}`,
      ),
    )
  }
  return { source: 'bank_codes', role: 'bank', status: 'ok', fetched_at: fetchedAt, factors: out }
}

/**
 * Wallet address: its format for the chain (spec: no on-chain lookup) and the screen of the
 * address against the OFAC digital currency addresses held locally (EVM
 * addresses in any letter case, base58 exactly). A listed address flags the whole check like a
 * name match; a screen that could not run says so and never reads as clean.
 */
export function assessWallet(
  address: string,
  chain: string,
  fetchedAt: string,
  screen?: SanctionsNameScreenResult,
): SourceAssessment {
  const format = factor(
    'wallet_format',
    'wallet_format_valid',
    'info',
    0,
    `${address} is a well-formed ${chain} address (format only, no on-chain lookup)`,
  )
  const assessment = (screenFactor: typeof format, sanctionsMatch: boolean): SourceAssessment => ({
    source: 'wallet_format',
    role: 'wallet',
    status: 'ok',
    fetched_at: fetchedAt,
    ...(sanctionsMatch ? { sanctions_match: true } : {}),
    factors: [format, screenFactor],
  })
  if (!screen || screen.status === 'unavailable') {
    return assessment(
      factor(
        'wallet_screen',
        'wallet_not_screened',
        'low',
        0,
        `${address} could not be screened against the OFAC digital currency addresses (${screen?.reason ?? 'sanctions_lists_not_loaded'})`,
      ),
      false,
    )
  }
  if (screen.possible_match) {
    const entries = screen.matches
      .slice(0, 5)
      .map((m) => `${m.matched_name} on ${m.list} (${m.entry_id})`)
      .join('; ')
    return assessment(
      factor(
        'wallet_screen',
        'wallet_sanctioned',
        'critical',
        -60,
        `${address} is a listed digital currency address of ${entries}`,
      ),
      true,
    )
  }
  // "Not listed" needs the OFAC SDN list, the only one that publishes digital currency addresses.
  if (screen.coverage.status !== 'complete') {
    return assessment(
      factor(
        'wallet_screen',
        'wallet_screen_partial',
        'low',
        0,
        `${address} is not known to be listed, but the OFAC digital currency addresses were not checked${screen.coverage.stale ? ' against a current list' : ''} (${coverageSummary(screen.coverage)})`,
      ),
      false,
    )
  }
  return assessment(
    factor(
      'wallet_screen',
      'wallet_sanctions_clear',
      'info',
      0,
      `${address} is not a listed digital currency address on ${coverageSummary(screen.coverage)}`,
    ),
    false,
  )
}

const COUNTRY_SEVERITY: { [Level in CountryRisk['risk_level']]: FactorSeverity<`country_risk_${Level}`> } = {
  low: 'info',
  medium: 'low',
  high: 'high',
  very_high: 'critical',
}

/** Country risk weight: 0 for an EU/EEA country (risk 10), down to -36 for risk 100. */
export function countryRiskWeight(riskScore: number): number {
  return 0 - Math.round(Math.max(0, riskScore - 10) * 0.4) || 0
}

/** Jurisdiction risk from the dated FATF, EU and sanctions lists (core/reference). */
export function assessCountryRisk(risk: CountryRisk, fetchedAt: string): SourceAssessment {
  const lists = risk.factors.map((f) => `${f.name} (${f.as_of})`).join('; ')
  return {
    source: 'country_risk',
    role: 'country_risk',
    status: 'ok',
    fetched_at: fetchedAt,
    factors: [
      factor(
        'country_risk',
        `country_risk_${risk.risk_level}`,
        COUNTRY_SEVERITY[risk.risk_level],
        countryRiskWeight(risk.risk_score),
        `${risk.country}: country risk ${risk.risk_score} (${risk.risk_level})${lists ? `; ${lists}` : ''}`,
      ),
    ],
  }
}

/**
 * The matches the calling key dismissed, for the evidence: they do not count, but the answer
 * says they were there and who dismissed them, when and why.
 */
function dismissedNote(dismissed: readonly SanctionsDismissedMatch[] | undefined): string {
  if (!dismissed || dismissed.length === 0) return ''
  const items = dismissed
    .slice(0, 5)
    .map(
      (m) =>
        `${m.matched_name} on ${m.list} (${m.entry_id}), dismissed by ${m.dismissal.dismissed_by} on ${m.dismissal.dismissed_at.slice(0, 10)}: ${m.dismissal.reason}`,
    )
    .join('; ')
  return `; ${dismissed.length} match${dismissed.length === 1 ? '' : 'es'} dismissed by this key (entry unchanged since): ${items}`
}

/** What screening gave, with the names screened and when. */
export interface SanctionsScreening {
  names: string[]
  result: SanctionsNameScreenResult
  fetched_at: string
}

/**
 * Sanctions screening of the entity's names (METHODOLOGY.md "Sanctions"). Clear only when every
 * promised list was checked: with a list missing the assessment is `partial` (no clear points,
 * an uncertainty penalty, and the recommendation at best manual_review); a match is a match
 * whatever the coverage.
 */
export function assessSanctions(screening: SanctionsScreening): SourceAssessment {
  const { result, names, fetched_at } = screening
  if (result.status === 'unavailable') {
    return unavailableAssessment('sanctions', 'sanctions', result.reason, fetched_at, 'Sanctions screening')
  }
  const { coverage } = result
  const lists = coverageSummary(coverage)
  const complete = coverage.status === 'complete'
  // A stale list counts as not checked: what it says today was not screened.
  const missing = complete ? undefined : coverageGaps(coverage)
  const quoted = names.map((n) => `"${n}"`).join(', ')
  const dismissed = dismissedNote(result.dismissed)
  if (result.possible_match) {
    const matches = result.matches
      .slice(0, 5)
      .map((m) => `${m.matched_name} on ${m.list} (${m.entry_id}, ${m.match_type}, ${m.match_score})`)
      .join('; ')
    return {
      source: 'sanctions',
      role: 'sanctions',
      status: complete ? 'ok' : 'partial',
      fetched_at,
      sanctions_match: true,
      ...(missing ? { missing } : {}),
      factors: [
        factor(
          'sanctions',
          'sanctions_possible_match',
          'critical',
          -60,
          `possible match for ${quoted}: ${matches}. A match is not a determination; clear it before doing business${dismissed}`,
        ),
      ],
    }
  }
  if (!complete) {
    return {
      source: 'sanctions',
      role: 'sanctions',
      status: 'partial',
      fetched_at,
      sanctions_match: false,
      missing: missing as string,
      factors: [
        {
          ...factor(
            'sanctions',
            'sanctions_partial',
            'high',
            PARTIAL_SANCTIONS_PENALTY,
            `no match for ${quoted} on ${lists}; the screen is partial, so this is not a clear result${dismissed}`,
          ),
          status: 'partial',
        },
      ],
    }
  }
  return {
    source: 'sanctions',
    role: 'sanctions',
    status: 'ok',
    fetched_at,
    sanctions_match: false,
    factors: [
      factor('sanctions', 'sanctions_clear', 'info', 10, `no match for ${quoted} on ${lists}${dismissed}`),
    ],
  }
}
