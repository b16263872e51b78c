import { cbeOf } from '../checks/entity-hash.ts'
import type { FieldError } from '../errors.ts'
import {
  type InvalidLead,
  type Lead,
  LeadInput,
  type LeadsBatchResult,
  LeadsVerifyInput,
  type LeadsVerifyRequest,
  LeadsVerifyResult,
  type VerifiedLead,
} from '../leads/lead-schemas.ts'
import { createLeadBatchVerifier } from '../leads/lead-verifier.ts'
import { PRICES } from '../payments/pricing.ts'
import { defineOperation } from './define.ts'
import type { OperationContext } from './operation-context.ts'
import { fieldErrors, textErrors } from './parse.ts'
import { nameScreenNotReady, REGISTER_PART, registerNotReady, SANCTIONS_PART } from './readiness.ts'

type Item = { index: number; lead: Lead } | { index: number; errors: FieldError[]; reference?: string }

/** The leads of a request, each valid (parsed) or with its own field errors. */
export function leadsOf(input: LeadsVerifyRequest): Item[] {
  if (input.leads === undefined) {
    const { leads: _none, ...single } = input
    return [{ index: 0, lead: LeadInput.parse(single) }]
  }
  return input.leads.map((raw, index) => {
    // The reference is echoed on an invalid lead when it is itself a clean string (the caller's
    // row id is how it finds the lead again).
    const reference = (raw as { reference?: unknown } | null)?.reference
    const echoed = typeof reference === 'string' && textErrors(reference).length === 0 ? { reference } : {}
    const text = textErrors(raw)
    if (text.length > 0) return { index, errors: text, ...echoed }
    const parsed = LeadInput.safeParse(raw, { reportInput: true })
    if (parsed.success) return { index, lead: parsed.data }
    return { index, errors: fieldErrors(parsed.error), ...echoed }
  })
}

/** Billable leads: the valid ones (invalid leads are not charged). */
export function billableLeads(input: LeadsVerifyRequest): number {
  return leadsOf(input).filter((item) => 'lead' in item).length
}

/**
 * Lead verification (spec: POST /v1/leads/verify): one lead, or up to 100 in `leads`,
 * answered in input order. The sources of a batch are shared: each KVK/KBO number, VAT number,
 * mail domain and name is asked once, with bounded concurrency.
 */
export async function runLeadsVerify(
  input: LeadsVerifyRequest,
  ctx: OperationContext<'companySources' | 'sanctions'>,
) {
  const verifier = createLeadBatchVerifier({
    sources: ctx.deps.companySources ?? {},
    sanctions: ctx.deps.sanctions,
    clock: ctx.clock,
  })
  const items = leadsOf(input)
  const results = await Promise.all(
    items.map(async (item): Promise<VerifiedLead | InvalidLead> => {
      if ('lead' in item) return { index: item.index, ...(await verifier.verify(item.lead)) }
      return {
        index: item.index,
        ...(item.reference !== undefined ? { reference: item.reference } : {}),
        status: 'invalid',
        errors: item.errors,
      }
    }),
  )
  if (input.leads === undefined) {
    const { index: _index, ...single } = results[0] as VerifiedLead
    return single
  }
  const verified = results.filter((r): r is VerifiedLead => r.status === 'verified')
  const count = (verdict: string) => verified.filter((r) => r.verdict === verdict).length
  const batch: LeadsBatchResult = {
    leads: results,
    summary: {
      total: results.length,
      verified: verified.length,
      invalid: results.length - verified.length,
      proceed: count('proceed'),
      review: count('review'),
      block: count('block'),
    },
    checked_at: ctx.clock.now().toISOString(),
  }
  return batch
}

export const leadsVerify = defineOperation({
  id: 'leads_verify',
  http: { method: 'POST', path: '/v1/leads/verify' },
  summary: 'Verify NL and BE sales leads: register, VAT, e-mail, website, IBAN and sanctions, with a verdict',
  description:
    'One lead (its fields at the top level) or up to 100 in `leads`, answered in input order. Each lead gets verdict (proceed, review or block), lead_score 0-100, flags with one action each and one check per input (ok, failed, unavailable, not_requested); a lead with field errors (bad text such as a NUL or a lone surrogate included) gets its own `errors` and is not charged while the other leads are verified; a batch where every lead is invalid is refused with 422. Priced per valid lead. Needs a live key or x402 (sandbox keys: 403). Scoring and flags: GET /v1/methodology.',
  input: LeadsVerifyInput,
  output: LeadsVerifyResult,
  price: PRICES.leads_verify,
  units: billableLeads,
  essentials: {
    parts: [
      { ...SANCTIONS_PART, when: 'a lead with company_name or contact_name' },
      {
        ...REGISTER_PART,
        when: 'an NL lead with kvk_number or company_name (KVK); a BE lead with cbe_number or a BE vat_number (KBO)',
      },
    ],
    check: async (input, deps) => {
      const leads = leadsOf(input).flatMap((item) => ('lead' in item ? [item.lead] : []))
      const names = leads.some((lead) => lead.company_name !== undefined || lead.contact_name !== undefined)
      const kvk = leads.some(
        (lead) => lead.country === 'NL' && (lead.kvk_number !== undefined || lead.company_name !== undefined),
      )
      const kbo = leads.some(
        (lead) => lead.country === 'BE' && cbeOf(lead.cbe_number, lead.vat_number) !== null,
      )
      return [...(names ? nameScreenNotReady(deps) : []), ...(await registerNotReady(deps, { kvk, kbo }))]
    },
  },
  ports: ['companySources', 'sanctions'],
  access: { sandbox: 'refuse' },
  openWorld: true,
  run: runLeadsVerify,
})
