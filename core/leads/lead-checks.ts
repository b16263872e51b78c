import { cbeOf } from '../checks/entity-hash.ts'
import { lookupBank } from '../reference/index.ts'
import { coverageSummary } from '../sanctions/coverage.ts'
import {
  compareCompanyNames,
  normaliseCompanyName,
  type SanctionsNameScreenResult,
} from '../scoring/index.ts'
import type { DnsProfile, SourceResult, ViesCheck } from '../sources/index.ts'
import { formatCbeNumber, ibanCountry, validateDomain, validateIban } from '../validate/index.ts'
import type { LeadCheck, LeadCheckName, LeadFlagCode } from './lead-flags.ts'
import type { LeadLookups } from './lead-lookups.ts'
import type { Lead } from './lead-schemas.ts'
import { DISPOSABLE_MAIL_LIST, type mailDomainKind } from './mail-domains.ts'

/**
 * The checks of one lead after its lookups answered: each returns its check and raises its flags
 * through `flag`, in the order the answer lists them.
 */

/** Raises a flag on the lead. */
export type RaiseFlag = (code: LeadFlagCode, check: LeadCheckName, message: string) => void

type MailKind = ReturnType<typeof mailDomainKind>
type Website = ReturnType<typeof validateDomain>

/** A check whose input was not given. */
export function notRequested(check: LeadCheckName, source: string, fields: string[]): LeadCheck {
  return {
    check,
    status: 'not_requested',
    source,
    reason: `not requested: ${fields.join(' / ')} not given`,
    fields,
  }
}

/**
 * VAT with VIES: valid and active, from the lead's country, and registered to this company (its
 * given or register names, or for BE its enterprise number).
 */
export function vatCheck(
  lead: Lead,
  vatNumber: string | undefined,
  vies: SourceResult<ViesCheck> | undefined,
  registerNames: string[],
  flag: RaiseFlag,
): LeadCheck {
  const vatFields = ['vat_number']
  if (!vatNumber || !vies) return notRequested('vat', 'vies', vatFields)
  if (vies.status === 'unavailable') {
    flag('source_unavailable', 'vat', `VIES did not answer (${vies.reason}); the VAT number is not verified`)
    return {
      check: 'vat',
      status: 'unavailable',
      source: 'vies',
      reason: `VIES did not answer (${vies.reason})`,
      fields: vatFields,
    }
  }
  const data = vies.data
  const number = `${data.country_code}${data.vat_number}`
  const vatCountry = data.country_code === 'EL' ? 'GR' : data.country_code
  const fail = (code: LeadFlagCode, reason: string): LeadCheck => {
    flag(code, 'vat', reason)
    return { check: 'vat', status: 'failed', source: 'vies', reason, fields: vatFields }
  }
  if (data.input_rejected || !data.valid) {
    return fail('vat_invalid', `VIES: ${number} is not a valid, active VAT number`)
  }
  if (vatCountry !== lead.country) {
    return fail(
      'vat_country_mismatch',
      `VAT number ${number} is from ${vatCountry}, the lead is in ${lead.country}`,
    )
  }
  const owner = vatOwner(lead, data, registerNames)
  if (owner.other) return fail('vat_other_company', owner.reason)
  return { check: 'vat', status: 'ok', source: 'vies', reason: owner.reason, fields: vatFields }
}

/** E-mail: not a disposable-mail domain, and a domain that receives mail (MX). */
export function emailCheck(
  emailDomain: string | undefined,
  mailKind: MailKind | undefined,
  mailDns: SourceResult<DnsProfile> | undefined,
  flag: RaiseFlag,
): LeadCheck {
  if (!emailDomain) return notRequested('email', 'dns', ['email'])
  const check = emailDnsCheck(emailDomain, mailKind, mailDns, flag)
  // A fact of the mail-domain list, whatever DNS answered (or failed to).
  if (mailKind?.free_mail && !mailKind.disposable)
    flag('free_mail_address', 'email', `${emailDomain} is a free-mail provider, not a company address`)
  return check
}

function emailDnsCheck(
  emailDomain: string,
  mailKind: MailKind | undefined,
  mailDns: SourceResult<DnsProfile> | undefined,
  flag: RaiseFlag,
): LeadCheck {
  const emailFields = ['email']
  const list = { ...DISPOSABLE_MAIL_LIST }
  if (mailKind?.disposable) {
    const reason = `${emailDomain} is a disposable-mail domain (${list.package} ${list.version}, ${list.published})`
    flag('disposable_email', 'email', reason)
    return {
      check: 'email',
      status: 'failed',
      source: 'disposable_mail_list',
      reason,
      fields: emailFields,
      list,
    }
  }
  if (!mailDns || mailDns.status === 'unavailable') {
    const why = mailDns?.status === 'unavailable' ? mailDns.reason : 'not_configured'
    flag(
      'source_unavailable',
      'email',
      `DNS did not answer for ${emailDomain} (${why}); the mail server is not verified`,
    )
    return {
      check: 'email',
      status: 'unavailable',
      source: 'dns',
      reason: `DNS did not answer for ${emailDomain} (${why})`,
      fields: emailFields,
      list,
    }
  }
  if (!mailDns.data.domain_exists || !mailDns.data.has_mx) {
    const reason = !mailDns.data.domain_exists
      ? `${emailDomain} does not exist in DNS`
      : mailDns.data.null_mx
        ? `${emailDomain} says it accepts no mail (null MX)`
        : `${emailDomain} has no mail server (no MX record)`
    flag('email_no_mail_server', 'email', reason)
    return { check: 'email', status: 'failed', source: 'dns', reason, fields: emailFields, list }
  }
  const mx = mailDns.data.mx.map((m) => m.exchange).join(', ')
  return {
    check: 'email',
    status: 'ok',
    source: 'dns',
    reason: `${emailDomain} receives mail (MX ${mx}); not on the disposable list`,
    fields: emailFields,
    list,
  }
}

/** Website: the domain exists in DNS. */
export function websiteCheck(
  websiteHost: string | undefined,
  webDns: SourceResult<DnsProfile> | undefined,
  flag: RaiseFlag,
): LeadCheck {
  const webFields = ['website']
  if (!websiteHost) return notRequested('website', 'dns', webFields)
  if (!webDns || webDns.status === 'unavailable') {
    const why = webDns?.status === 'unavailable' ? webDns.reason : 'not_configured'
    flag('source_unavailable', 'website', `DNS did not answer for ${websiteHost} (${why})`)
    return {
      check: 'website',
      status: 'unavailable',
      source: 'dns',
      reason: `DNS did not answer for ${websiteHost} (${why})`,
      fields: webFields,
    }
  }
  if (!webDns.data.domain_exists) {
    const reason = `${websiteHost} does not exist in DNS`
    flag('website_not_found', 'website', reason)
    return { check: 'website', status: 'failed', source: 'dns', reason, fields: webFields }
  }
  return {
    check: 'website',
    status: 'ok',
    source: 'dns',
    reason: `${websiteHost} exists in DNS`,
    fields: webFields,
  }
}

/** The e-mail domain agrees with the website, compared on registrable domains. */
export function emailWebsiteCheck(
  emailDomain: string | undefined,
  website: Website | undefined,
  mailKind: MailKind | undefined,
  flag: RaiseFlag,
): LeadCheck {
  const matchFields = ['email', 'website']
  if (!emailDomain || !website?.ok) return notRequested('email_website', 'input', matchFields)
  const mailRegistrable = validateDomain(emailDomain)
  const mailBase = mailRegistrable.ok ? mailRegistrable.value.registrable_domain : emailDomain
  const webBase = website.value.registrable_domain
  if (mailBase === webBase) {
    return {
      check: 'email_website',
      status: 'ok',
      source: 'input',
      reason: `e-mail domain ${emailDomain} belongs to ${webBase}`,
      fields: matchFields,
    }
  }
  if (mailKind?.free_mail || mailKind?.disposable) {
    return {
      check: 'email_website',
      status: 'failed',
      source: 'input',
      reason: `${emailDomain} is not a company domain (website ${webBase})`,
      fields: matchFields,
    }
  }
  const reason = `e-mail domain ${mailBase} differs from the website ${webBase}`
  flag('email_website_mismatch', 'email_website', reason)
  return { check: 'email_website', status: 'failed', source: 'input', reason, fields: matchFields }
}

/** A name screened against the sanctions lists. */
export interface ScreenedName {
  name: string
  result: SanctionsNameScreenResult
}

/**
 * Sanctions: the given names, then the register's official name when it is another one. A
 * possible match fails the check; a screen that could not run leaves the names not cleared.
 */
export async function sanctionsCheck(
  lead: Lead,
  givenScreens: ScreenedName[],
  registerNames: string[],
  lookups: Pick<LeadLookups, 'screen'>,
  flag: RaiseFlag,
): Promise<LeadCheck> {
  const screened = [...givenScreens]
  const seen = new Set(screened.map((s) => normaliseCompanyName(s.name)))
  for (const name of registerNames.slice(0, 1)) {
    if (!seen.has(normaliseCompanyName(name)))
      screened.push({ name, result: await lookups.screen(name, lead.country) })
  }
  const sanctionFields = ['company_name', 'contact_name'].filter((f) => lead[f as keyof Lead] !== undefined)
  if (screened.length === 0) return notRequested('sanctions', 'sanctions', ['company_name', 'contact_name'])
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
    flag('sanctions_possible_match', 'sanctions', reason)
    return { check: 'sanctions', status: 'failed', source: 'sanctions', reason, fields: sanctionFields }
  }
  if (down && down.result.status === 'unavailable') {
    const reason = `sanctions screening unavailable (${down.result.reason})`
    flag('source_unavailable', 'sanctions', `${reason}; the names are not cleared`)
    return {
      check: 'sanctions',
      status: 'unavailable',
      source: 'sanctions',
      reason,
      fields: sanctionFields,
      ...(down.result.coverage ? { coverage: down.result.coverage } : {}),
    }
  }
  const first = screened[0]?.result
  const coverage = first?.status === 'ok' ? first.coverage : undefined
  const names = screened.map((s) => `"${s.name}"`).join(', ')
  const lists = coverage ? coverageSummary(coverage) : 'the loaded lists'
  if (coverage && coverage.status !== 'complete') {
    // Only the lists actually screened are named; the rest are said to be missing.
    const reason = `no match for ${names} on ${lists}; the screen is partial, so the names are not cleared`
    flag('source_unavailable', 'sanctions', reason)
    return {
      check: 'sanctions',
      status: 'partial',
      source: 'sanctions',
      reason,
      fields: sanctionFields,
      coverage,
    }
  }
  return {
    check: 'sanctions',
    status: 'ok',
    source: 'sanctions',
    reason: `no match for ${names} on ${lists}`,
    fields: sanctionFields,
    ...(coverage ? { coverage } : {}),
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

/** IBAN: from the lead's country and issued by a bank in the official code list (the holder is not checked). */
export function ibanCheck(lead: Lead, flag: RaiseFlag): LeadCheck {
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
