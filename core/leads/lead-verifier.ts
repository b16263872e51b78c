import pLimit, { type LimitFunction } from 'p-limit'
import type { CompanySources } from '../checks/company-sources.ts'
import { cbeOf } from '../checks/entity-hash.ts'
import type { SanctionsNameScreen } from '../checks/sanctions-name-screen.ts'
import type { Clock } from '../context.ts'
import { lookupBank } from '../reference/index.ts'
import {
  compareCompanyNames,
  normaliseCompanyName,
  type SanctionsNameScreenResult,
} from '../scoring/index.ts'
import type {
  DnsProfile,
  KboEnterprise,
  KvkCompany,
  KvkSearchData,
  SourceResult,
  ViesCheck,
} from '../sources/index.ts'
import {
  formatCbeNumber,
  ibanCountry,
  validateDomain,
  validateIban,
  validateVatNumber,
} from '../validate/index.ts'
import {
  assessLead,
  type LeadCheck,
  type LeadCheckName,
  type LeadFlag,
  type LeadFlagCode,
  leadFlag,
} from './lead-flags.ts'
import { type Lead, type VerifiedLead, validateEmail } from './lead-schemas.ts'
import { DISPOSABLE_MAIL_LIST, mailDomainKind } from './mail-domains.ts'

/** Calls of one batch to one source running at once, at most, so a batch never floods an upstream. */
export const LEAD_SOURCE_CONCURRENCY = 8

export interface LeadVerifierDeps {
  sources: CompanySources
  sanctions?: SanctionsNameScreen
  clock: Clock
  /** Default {@link LEAD_SOURCE_CONCURRENCY}. */
  concurrency?: number
}

/** Upstream calls a batch made and saved: the same VAT number or domain is asked once per batch. */
export interface LeadBatchStats {
  calls: Record<string, number>
  deduplicated: number
}

export interface LeadBatchVerifier {
  verify(lead: Lead): Promise<VerifiedLead>
  stats(): LeadBatchStats
}

const unavailable = (source: string, reason: string, at: string): SourceResult<never> => ({
  source,
  status: 'unavailable',
  reason,
  fetched_at: at,
  latency_ms: 0,
})

/**
 * One batch of lead checks. Every source answer is kept for the batch: the same KVK
 * or KBO number, VAT number, mail domain or name is asked once, however many leads carry it, and
 * the calls of the whole batch to each source run at most `concurrency` at a time.
 */
export function createLeadBatchVerifier(deps: LeadVerifierDeps): LeadBatchVerifier {
  const { sources, clock } = deps
  // One limiter per source: a slow register does not hold back the DNS or VIES calls.
  const limiters = new Map<string, LimitFunction>()
  const limitFor = (source: string) => {
    let limiter = limiters.get(source)
    if (!limiter) {
      limiter = pLimit(deps.concurrency ?? LEAD_SOURCE_CONCURRENCY)
      limiters.set(source, limiter)
    }
    return limiter
  }
  const memo = new Map<string, Promise<unknown>>()
  const calls: Record<string, number> = {}
  let deduplicated = 0
  const stamp = () => clock.now().toISOString()

  function once<T>(source: string, key: string, call: () => Promise<T>): Promise<T> {
    const id = `${source}\u0000${key}`
    const known = memo.get(id)
    if (known) {
      deduplicated++
      return known as Promise<T>
    }
    calls[source] = (calls[source] ?? 0) + 1
    const started = limitFor(source)(call)
    memo.set(id, started)
    return started
  }

  const kvkLookup = (number: string): Promise<SourceResult<KvkCompany>> => {
    const kvk = sources.kvk
    return kvk
      ? once('kvk', `n:${number}`, () => kvk.lookupCompany(number))
      : Promise.resolve(unavailable('kvk', 'not_configured', stamp()))
  }
  const kvkSearch = (name: string): Promise<SourceResult<KvkSearchData>> => {
    const kvk = sources.kvk
    return kvk
      ? once('kvk', `s:${normaliseCompanyName(name)}`, () => kvk.searchCompanies({ name, limit: 10 }))
      : Promise.resolve(unavailable('kvk', 'not_configured', stamp()))
  }
  const kboLookup = (number: string): Promise<SourceResult<KboEnterprise>> => {
    const kbo = sources.kbo
    return kbo
      ? once('kbo', number, () => kbo.lookupEnterprise(number))
      : Promise.resolve(unavailable('kbo', 'not_configured', stamp()))
  }
  const viesCheck = (vatNumber: string): Promise<SourceResult<ViesCheck>> => {
    const vies = sources.vies
    return vies
      ? once('vies', vatNumber, () => vies.checkVat({ vatNumber }))
      : Promise.resolve(unavailable('vies', 'not_configured', stamp()))
  }
  const dnsProbe = (domain: string): Promise<SourceResult<DnsProfile>> => {
    const dns = sources.dns
    return dns
      ? once('dns', domain, () => dns.probe(domain))
      : Promise.resolve(unavailable('dns', 'not_configured', stamp()))
  }
  const screen = (name: string, country: string): Promise<SanctionsNameScreenResult> => {
    const sanctions = deps.sanctions
    if (!sanctions) return Promise.resolve({ status: 'unavailable', reason: 'sanctions_lists_not_loaded' })
    return once('sanctions', `${country}:${normaliseCompanyName(name)}`, async () => {
      try {
        return await sanctions.screenName(name, country)
      } catch {
        return { status: 'unavailable', reason: 'internal_error' } as const
      }
    })
  }

  return {
    stats: () => ({ calls: { ...calls }, deduplicated }),
    async verify(lead) {
      const checkedAt = stamp()
      const flags: LeadFlag[] = []
      const flag = (code: LeadFlagCode, check: LeadCheckName, message: string) =>
        flags.push(leadFlag(code, check, message))
      const vat = lead.vat_number ? validateVatNumber(lead.vat_number) : undefined
      const vatNumber = vat?.ok ? `${vat.value.prefix}${vat.value.number}` : lead.vat_number
      const email = lead.email ? validateEmail(lead.email) : undefined
      const emailDomain = email?.ok ? email.value.domain : undefined
      const website = lead.website ? validateDomain(lead.website) : undefined
      const websiteHost = website?.ok ? website.value.hostname : undefined
      const mailKind = emailDomain ? mailDomainKind(emailDomain) : undefined

      // Every independent source at once; the batch memo and limiter sit below.
      const [register, vies, mailDns, webDns, givenScreens] = await Promise.all([
        registerCheck(lead),
        vatNumber ? viesCheck(vatNumber) : undefined,
        emailDomain && !mailKind?.disposable ? dnsProbe(emailDomain) : undefined,
        websiteHost ? dnsProbe(websiteHost) : undefined,
        Promise.all(
          [lead.company_name, lead.contact_name]
            .filter((n): n is string => !!n)
            .map(async (name) => ({ name, result: await screen(name, lead.country) })),
        ),
      ])

      const checks: LeadCheck[] = []
      // Register
      checks.push(register.check)
      for (const f of register.flags) flag(f.code, 'register', f.message)
      if (register.check.status === 'unavailable')
        flag(
          register.missingNumber ? 'registration_number_missing' : 'source_unavailable',
          'register',
          register.check.reason,
        )

      // VAT with VIES
      const vatFields = ['vat_number']
      if (!vatNumber || !vies) {
        checks.push(notRequested('vat', 'vies', vatFields))
      } else if (vies.status === 'unavailable') {
        checks.push({
          check: 'vat',
          status: 'unavailable',
          source: 'vies',
          reason: `VIES did not answer (${vies.reason})`,
          fields: vatFields,
        })
        flag(
          'source_unavailable',
          'vat',
          `VIES did not answer (${vies.reason}); the VAT number is not verified`,
        )
      } else {
        const data = vies.data
        const number = `${data.country_code}${data.vat_number}`
        const vatCountry = data.country_code === 'EL' ? 'GR' : data.country_code
        const fail = (code: LeadFlagCode, reason: string) => {
          checks.push({ check: 'vat', status: 'failed', source: 'vies', reason, fields: vatFields })
          flag(code, 'vat', reason)
        }
        if (data.input_rejected || !data.valid) {
          fail('vat_invalid', `VIES: ${number} is not a valid, active VAT number`)
        } else if (vatCountry !== lead.country) {
          fail(
            'vat_country_mismatch',
            `VAT number ${number} is from ${vatCountry}, the lead is in ${lead.country}`,
          )
        } else {
          const owner = vatOwner(lead, data, register.names)
          if (owner.other) fail('vat_other_company', owner.reason)
          else
            checks.push({
              check: 'vat',
              status: 'ok',
              source: 'vies',
              reason: owner.reason,
              fields: vatFields,
            })
        }
      }

      // E-mail: disposable list, MX
      const emailFields = ['email']
      const list = { ...DISPOSABLE_MAIL_LIST }
      if (!emailDomain) {
        checks.push(notRequested('email', 'dns', emailFields))
      } else if (mailKind?.disposable) {
        const reason = `${emailDomain} is a disposable-mail domain (${list.package} ${list.version}, ${list.published})`
        checks.push({
          check: 'email',
          status: 'failed',
          source: 'disposable_mail_list',
          reason,
          fields: emailFields,
          list,
        })
        flag('disposable_email', 'email', reason)
      } else if (!mailDns || mailDns.status === 'unavailable') {
        const why = mailDns?.status === 'unavailable' ? mailDns.reason : 'not_configured'
        checks.push({
          check: 'email',
          status: 'unavailable',
          source: 'dns',
          reason: `DNS did not answer for ${emailDomain} (${why})`,
          fields: emailFields,
          list,
        })
        flag(
          'source_unavailable',
          'email',
          `DNS did not answer for ${emailDomain} (${why}); the mail server is not verified`,
        )
      } else if (!mailDns.data.domain_exists || !mailDns.data.has_mx) {
        const reason = !mailDns.data.domain_exists
          ? `${emailDomain} does not exist in DNS`
          : mailDns.data.null_mx
            ? `${emailDomain} says it accepts no mail (null MX)`
            : `${emailDomain} has no mail server (no MX record)`
        checks.push({ check: 'email', status: 'failed', source: 'dns', reason, fields: emailFields, list })
        flag('email_no_mail_server', 'email', reason)
      } else {
        const mx = mailDns.data.mx.map((m) => m.exchange).join(', ')
        checks.push({
          check: 'email',
          status: 'ok',
          source: 'dns',
          reason: `${emailDomain} receives mail (MX ${mx}); not on the disposable list`,
          fields: emailFields,
          list,
        })
        if (mailKind?.free_mail)
          flag('free_mail_address', 'email', `${emailDomain} is a free-mail provider, not a company address`)
      }

      // Website: the domain exists
      const webFields = ['website']
      if (!websiteHost) {
        checks.push(notRequested('website', 'dns', webFields))
      } else if (!webDns || webDns.status === 'unavailable') {
        const why = webDns?.status === 'unavailable' ? webDns.reason : 'not_configured'
        checks.push({
          check: 'website',
          status: 'unavailable',
          source: 'dns',
          reason: `DNS did not answer for ${websiteHost} (${why})`,
          fields: webFields,
        })
        flag('source_unavailable', 'website', `DNS did not answer for ${websiteHost} (${why})`)
      } else if (!webDns.data.domain_exists) {
        const reason = `${websiteHost} does not exist in DNS`
        checks.push({ check: 'website', status: 'failed', source: 'dns', reason, fields: webFields })
        flag('website_not_found', 'website', reason)
      } else {
        checks.push({
          check: 'website',
          status: 'ok',
          source: 'dns',
          reason: `${websiteHost} exists in DNS`,
          fields: webFields,
        })
      }

      // E-mail domain agrees with the website (compared on registrable domains)
      const matchFields = ['email', 'website']
      if (!emailDomain || !website?.ok) {
        checks.push(notRequested('email_website', 'input', matchFields))
      } else {
        const mailRegistrable = validateDomain(emailDomain)
        const mailBase = mailRegistrable.ok ? mailRegistrable.value.registrable_domain : emailDomain
        const webBase = website.value.registrable_domain
        if (mailBase === webBase) {
          checks.push({
            check: 'email_website',
            status: 'ok',
            source: 'input',
            reason: `e-mail domain ${emailDomain} belongs to ${webBase}`,
            fields: matchFields,
          })
        } else if (mailKind?.free_mail || mailKind?.disposable) {
          checks.push({
            check: 'email_website',
            status: 'failed',
            source: 'input',
            reason: `${emailDomain} is not a company domain (website ${webBase})`,
            fields: matchFields,
          })
        } else {
          const reason = `e-mail domain ${mailBase} differs from the website ${webBase}`
          checks.push({
            check: 'email_website',
            status: 'failed',
            source: 'input',
            reason,
            fields: matchFields,
          })
          flag('email_website_mismatch', 'email_website', reason)
        }
      }

      // IBAN: country and issuing bank from the official code lists
      checks.push(ibanCheck(lead, flag))

      // Sanctions: the given names, then the register's official name when it is another one
      const screened = [...givenScreens]
      const seen = new Set(screened.map((s) => normaliseCompanyName(s.name)))
      for (const name of register.names.slice(0, 1)) {
        if (!seen.has(normaliseCompanyName(name)))
          screened.push({ name, result: await screen(name, lead.country) })
      }
      const sanctionFields = ['company_name', 'contact_name'].filter(
        (f) => lead[f as keyof Lead] !== undefined,
      )
      if (screened.length === 0) {
        checks.push(notRequested('sanctions', 'sanctions', ['company_name', 'contact_name']))
      } else {
        const hits = screened.filter((s) => s.result.status === 'ok' && s.result.possible_match)
        const down = screened.find((s) => s.result.status === 'unavailable')
        if (hits.length > 0) {
          const detail = hits
            .map((s) => {
              const m = s.result.status === 'ok' ? s.result.matches[0] : undefined
              return `"${s.name}"${m ? ` ~ ${m.matched_name} (${m.list}, ${m.entry_id})` : ''}`
            })
            .join('; ')
          const reason = `possible sanctions match: ${detail}. A match is not a determination; clear it before any contact`
          checks.push({
            check: 'sanctions',
            status: 'failed',
            source: 'sanctions',
            reason,
            fields: sanctionFields,
          })
          flag('sanctions_possible_match', 'sanctions', reason)
        } else if (down && down.result.status === 'unavailable') {
          const reason = `sanctions screening unavailable (${down.result.reason})`
          checks.push({
            check: 'sanctions',
            status: 'unavailable',
            source: 'sanctions',
            reason,
            fields: sanctionFields,
          })
          flag('source_unavailable', 'sanctions', `${reason}; the names are not cleared`)
        } else {
          const dates =
            screened[0]?.result.status === 'ok'
              ? Object.entries(screened[0].result.list_dates)
                  .map(([l, d]) => `${l} ${d}`)
                  .join(', ')
              : ''
          checks.push({
            check: 'sanctions',
            status: 'ok',
            source: 'sanctions',
            reason: `no match for ${screened.map((s) => `"${s.name}"`).join(', ')} on OFAC, EU and UN lists${dates ? ` (${dates})` : ''}`,
            fields: sanctionFields,
          })
        }
      }

      const assessment = assessLead(checks, flags)
      return {
        ...(lead.reference !== undefined ? { reference: lead.reference } : {}),
        status: 'verified' as const,
        country: lead.country,
        ...(lead.company_name !== undefined ? { company_name: lead.company_name } : {}),
        verdict: assessment.verdict,
        lead_score: assessment.lead_score,
        confidence: assessment.confidence,
        flags,
        checks,
        register_name: register.names[0] ?? null,
        checked_at: checkedAt,
      }
    },
  }

  interface RegisterOutcome {
    check: LeadCheck
    flags: { code: LeadFlagCode; message: string }[]
    /** Names the register holds, official name first. */
    names: string[]
    /** The enterprise number the register confirmed (BE), for the VAT ownership check. */
    cbe?: string
    missingNumber?: boolean
  }

  async function registerCheck(lead: Lead): Promise<RegisterOutcome> {
    const name = lead.company_name
    if (lead.country === 'NL') {
      const fields = ['kvk_number', ...(name ? ['company_name'] : [])]
      if (lead.kvk_number) {
        const result = await kvkLookup(lead.kvk_number)
        if (result.status === 'unavailable') return unavailableRegister('kvk', result.reason, fields)
        const c = result.data
        if (!c.found)
          return failed('kvk', fields, 'company_not_found', `KVK has no registration ${c.kvk_number}`)
        const names = [c.name, c.statutory_name, ...c.trade_names].filter((n): n is string => !!n)
        if (c.active === false)
          return failed(
            'kvk',
            fields,
            'company_dissolved',
            `KVK ${c.kvk_number} (${c.name ?? 'no name'}) ended on ${c.ended_on ?? 'an unknown date'}`,
            names,
          )
        return named('kvk', fields, `KVK ${c.kvk_number}: ${c.name ?? 'no name'}, active`, names, name)
      }
      if (name) {
        const result = await kvkSearch(name)
        if (result.status === 'unavailable')
          return unavailableRegister('kvk', result.reason, ['company_name'])
        const ranked = result.data.results.map((hit) => ({
          hit,
          verdict: compareCompanyNames(name, [hit.name]).verdict,
        }))
        const active = ranked.find((r) => r.verdict === 'match' && r.hit.active)
        if (active)
          return {
            check: {
              check: 'register',
              status: 'ok',
              source: 'kvk',
              reason: `KVK lists an active registration named "${active.hit.name}" (${active.hit.kvk_number}), found by name`,
              fields: ['company_name'],
            },
            flags: [],
            names: [active.hit.name],
          }
        const ended = ranked.find((r) => r.verdict === 'match')
        if (ended)
          return failed(
            'kvk',
            ['company_name'],
            'company_dissolved',
            `KVK lists "${ended.hit.name}" (${ended.hit.kvk_number}) only as an ended registration`,
            [ended.hit.name],
          )
        return failed(
          'kvk',
          ['company_name'],
          'company_not_found',
          `KVK finds no registration named "${name}"`,
        )
      }
      return { check: notRequested('register', 'kvk', ['kvk_number', 'company_name']), flags: [], names: [] }
    }
    // BE: KBO open data, by enterprise number (cbe_number, or the number inside a BE VAT number)
    const cbe = cbeOf(lead.cbe_number, lead.vat_number)
    const fields = [lead.cbe_number ? 'cbe_number' : 'vat_number', ...(name ? ['company_name'] : [])]
    if (!cbe) {
      if (!name)
        return {
          check: notRequested('register', 'kbo', ['cbe_number', 'company_name']),
          flags: [],
          names: [],
        }
      return {
        check: {
          check: 'register',
          status: 'unavailable',
          source: 'kbo',
          reason: 'the KBO open data are looked up by enterprise number: send cbe_number or a BE vat_number',
          fields: ['company_name'],
        },
        flags: [],
        names: [],
        missingNumber: true,
      }
    }
    const result = await kboLookup(formatCbeNumber(cbe))
    if (result.status === 'unavailable') return unavailableRegister('kbo', result.reason, fields)
    const e = result.data
    if (!e.found)
      return failed('kbo', fields, 'company_not_found', `KBO has no enterprise ${e.enterprise_number}`)
    const names = [e.name, ...e.names.map((n) => n.name)].filter((n): n is string => !!n)
    const dataset = e.dataset.snapshot_date ? ` (open data of ${e.dataset.snapshot_date})` : ''
    if (e.status !== 'active')
      return {
        ...failed(
          'kbo',
          fields,
          'company_dissolved',
          `KBO ${e.enterprise_number} (${e.name ?? 'no name'}) is no longer active${dataset}`,
          names,
        ),
        cbe,
      }
    return {
      ...named(
        'kbo',
        fields,
        `KBO ${e.enterprise_number}: ${e.name ?? 'no name'}, active${dataset}`,
        names,
        name,
      ),
      cbe,
    }
  }

  function named(
    source: string,
    fields: string[],
    found: string,
    names: string[],
    given: string | undefined,
  ): RegisterOutcome {
    if (!given)
      return { check: { check: 'register', status: 'ok', source, reason: found, fields }, flags: [], names }
    const { verdict, best } = compareCompanyNames(given, names)
    if (verdict === 'mismatch')
      return failed(
        source,
        fields,
        'company_name_mismatch',
        `${found}; the register's names do not match "${given}"`,
        names,
      )
    const how = verdict === 'match' ? `name matches ("${best}")` : `name partly matches ("${best}")`
    return {
      check: { check: 'register', status: 'ok', source, reason: `${found}; ${how}`, fields },
      flags: [],
      names,
    }
  }

  function failed(
    source: string,
    fields: string[],
    code: LeadFlagCode,
    reason: string,
    names: string[] = [],
  ): RegisterOutcome {
    return {
      check: { check: 'register', status: 'failed', source, reason, fields },
      flags: [{ code, message: reason }],
      names,
    }
  }

  function unavailableRegister(source: string, reason: string, fields: string[]): RegisterOutcome {
    const register = source === 'kvk' ? 'KVK' : 'KBO'
    return {
      check: {
        check: 'register',
        status: 'unavailable',
        source,
        reason: `${register} did not answer (${reason}); the company is not verified`,
        fields,
      },
      flags: [],
      names: [],
    }
  }
}

function notRequested(check: LeadCheckName, source: string, fields: string[]): LeadCheck {
  return {
    check,
    status: 'not_requested',
    source,
    reason: `not requested: ${fields.join(' / ')} not given`,
    fields,
  }
}

/** Whether a valid VAT number belongs to this lead's company (VIES name, or the BE number itself). */
function vatOwner(lead: Lead, data: ViesCheck, registerNames: string[]): { other: boolean; reason: string } {
  const number = `${data.country_code}${data.vat_number}`
  if (lead.country === 'BE' && lead.cbe_number) {
    const given = cbeOf(lead.cbe_number)
    const ofVat = cbeOf(undefined, number)
    if (given && ofVat && given !== ofVat)
      return {
        other: true,
        reason: `VAT number ${number} is enterprise ${formatCbeNumber(ofVat)}, not the lead's ${formatCbeNumber(given)}`,
      }
  }
  const names = [lead.company_name, ...registerNames].filter((n): n is string => !!n)
  if (!data.name)
    return { other: false, reason: `VIES: ${number} is valid; the member state does not disclose the name` }
  if (names.length === 0)
    return { other: false, reason: `VIES: ${number} is valid, registered to "${data.name}"` }
  const { verdict } = compareCompanyNames(data.name, names)
  if (verdict === 'mismatch')
    return {
      other: true,
      reason: `VIES registers ${number} to "${data.name}", not to ${names
        .map((n) => `"${n}"`)
        .slice(0, 2)
        .join(' / ')}`,
    }
  return { other: false, reason: `VIES: ${number} is valid, registered to "${data.name}"` }
}

function ibanCheck(
  lead: Lead,
  flag: (code: LeadFlagCode, check: LeadCheckName, message: string) => void,
): LeadCheck {
  const fields = ['iban']
  if (!lead.iban) return notRequested('iban', 'bank_codes', fields)
  const parsed = validateIban(lead.iban)
  const iban = parsed.ok ? parsed.value.iban : lead.iban
  const country = ibanCountry(iban)
  if (country !== lead.country) {
    const reason = `IBAN is from ${country ?? 'an unknown country'}, the lead is in ${lead.country}`
    flag('foreign_iban', 'iban', reason)
    return { check: 'iban', status: 'failed', source: 'bank_codes', reason, fields }
  }
  const bank = lookupBank(iban)
  if (!bank) {
    const reason = `the bank code of the IBAN is not allocated in the official ${country} list`
    flag('iban_bank_unknown', 'iban', reason)
    return { check: 'iban', status: 'failed', source: 'bank_codes', reason, fields }
  }
  return {
    check: 'iban',
    status: 'ok',
    source: 'bank_codes',
    reason: `${country} IBAN issued by ${bank.bank_name}${bank.bic ? ` (${bank.bic})` : ''}; ${bank.source}, as of ${bank.as_of}; the holder is not checked`,
    fields,
  }
}
