import { validateDomain, validateVatNumber } from '../validate/index.ts'
import {
  emailCheck,
  emailWebsiteCheck,
  ibanCheck,
  type RaiseFlag,
  sanctionsCheck,
  vatCheck,
  websiteCheck,
} from './lead-checks.ts'
import { assessLead, type LeadCheck, type LeadFlag, leadFlag } from './lead-flags.ts'
import { createLeadLookups, type LeadBatchStats, type LeadLookupDeps } from './lead-lookups.ts'
import { type Lead, type VerifiedLead, validateEmail } from './lead-schemas.ts'
import { mailDomainKind } from './mail-domains.ts'
import { registerCheck } from './register-check.ts'

export type LeadVerifierDeps = LeadLookupDeps

export interface LeadBatchVerifier {
  verify(lead: Lead): Promise<VerifiedLead>
  stats(): LeadBatchStats
}

/**
 * One batch of lead checks. The lookups are shared by the batch (lead-lookups.ts: each question
 * asked once, each source at most `concurrency` calls at a time); each lead asks its independent
 * sources at once, then its checks run in a fixed order (register, VAT, e-mail, website, e-mail
 * against website, IBAN, sanctions) and the flags they raise decide its verdict.
 */
export function createLeadBatchVerifier(deps: LeadVerifierDeps): LeadBatchVerifier {
  const lookups = createLeadLookups(deps)
  return {
    stats: () => lookups.stats(),
    async verify(lead) {
      const checkedAt = deps.clock.now().toISOString()
      const flags: LeadFlag[] = []
      const flag: RaiseFlag = (code, check, message) => void flags.push(leadFlag(code, check, message))
      const vat = lead.vat_number ? validateVatNumber(lead.vat_number) : undefined
      const vatNumber = vat?.ok ? `${vat.value.prefix}${vat.value.number}` : lead.vat_number
      const email = lead.email ? validateEmail(lead.email) : undefined
      const emailDomain = email?.ok ? email.value.domain : undefined
      const website = lead.website ? validateDomain(lead.website) : undefined
      const websiteHost = website?.ok ? website.value.hostname : undefined
      const mailKind = emailDomain ? mailDomainKind(emailDomain) : undefined

      // Every independent source at once; the batch memo and limiter sit below.
      const [register, vies, mailDns, webDns, givenScreens] = await Promise.all([
        registerCheck(lead, lookups),
        vatNumber ? lookups.viesCheck(vatNumber) : undefined,
        emailDomain && !mailKind?.disposable ? lookups.dnsProbe(emailDomain) : undefined,
        websiteHost ? lookups.dnsProbe(websiteHost) : undefined,
        Promise.all(
          [lead.company_name, lead.contact_name]
            .filter((n): n is string => !!n)
            .map(async (name) => ({ name, result: await lookups.screen(name, lead.country) })),
        ),
      ])

      const checks: LeadCheck[] = [register.check]
      for (const f of register.flags) flag(f.code, 'register', f.message)
      if (register.check.status === 'unavailable')
        flag(
          register.missingNumber ? 'registration_number_missing' : 'source_unavailable',
          'register',
          register.check.reason,
        )
      checks.push(vatCheck(lead, vatNumber, vies, register.names, flag))
      checks.push(emailCheck(emailDomain, mailKind, mailDns, flag))
      checks.push(websiteCheck(websiteHost, webDns, flag))
      checks.push(emailWebsiteCheck(emailDomain, website, mailKind, flag))
      checks.push(ibanCheck(lead, flag))
      checks.push(await sanctionsCheck(lead, givenScreens, register.names, lookups, flag))

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
}
