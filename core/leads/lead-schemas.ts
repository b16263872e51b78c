import { z } from 'zod'
import { itemsCheckedOneByOne, textErrors } from '../operations/parse.ts'
import { SanctionsCoverageSchema } from '../sanctions/coverage.ts'
import {
  cbeNumberSchema,
  countrySchema,
  domainSchema,
  entityNameSchema,
  ibanSchema,
  invalid,
  kvkNumberSchema,
  stringSchemaFrom,
  type ValidationResult,
  valid,
  validateDomain,
  vatNumberSchema,
} from '../validate/index.ts'
import { requiredIssue } from '../validate/required-issue.ts'
import { LEAD_ACTIONS, LEAD_CHECKS, LEAD_FLAGS, LEAD_SEVERITIES } from './lead-flags.ts'

/** Countries lead verification covers (spec: "Verifies one NL or BE lead"). */
export const LEAD_COUNTRIES = ['NL', 'BE'] as const

/** Most leads in one call (spec: batches of up to 100). */
export const MAX_LEADS_PER_CALL = 100

/** An e-mail address `local@domain`, the domain a valid hostname (its MX is checked). */
export function validateEmail(input: string): ValidationResult<{ address: string; domain: string }> {
  const value = input.trim()
  if (value.length > 254) return invalid('must be at most 254 characters')
  const at = value.lastIndexOf('@')
  if (at < 1 || at === value.length - 1) return invalid('must be an e-mail address (name@company.com)')
  const local = value.slice(0, at)
  if (local.length > 64 || /[\s@<>(),;:"[\]]/.test(local))
    return invalid('must be an e-mail address (name@company.com)')
  const domain = validateDomain(value.slice(at + 1))
  if (!domain.ok) return invalid(`has an invalid domain: ${domain.message}`)
  return valid({ address: `${local}@${domain.value.hostname}`, domain: domain.value.hostname })
}

export const emailSchema = stringSchemaFrom(validateEmail, 'E-mail address of the contact', {
  maxLength: 254,
  examples: ['jan@voorbeeld.nl'],
})

const leadFields = {
  reference: z
    .string()
    .min(1)
    .max(100)
    .optional()
    .describe('Your own id for the lead (CRM id, CSV row); echoed back, never checked'),
  country: countrySchema.describe('NL or BE (ISO 3166-1 alpha-2, uppercase); other countries are refused'),
  company_name: entityNameSchema
    .optional()
    .describe(
      'Company name as the lead gave it; compared with the register and VIES, screened for sanctions',
    ),
  kvk_number: kvkNumberSchema.optional().describe('NL only: KVK number, 8 digits'),
  cbe_number: cbeNumberSchema
    .optional()
    .describe('BE only: enterprise number, 0XXX.XXX.XXX or 10 digits (a BE vat_number also gives it)'),
  vat_number: vatNumberSchema.optional().describe('VAT number with country prefix, checked with VIES'),
  email: emailSchema.optional().describe('Contact e-mail: mail server (MX), disposable and free-mail lists'),
  website: domainSchema.optional().describe('Company website as a bare domain (voorbeeld.nl)'),
  iban: ibanSchema.optional().describe('IBAN without spaces: country and issuing bank (not the holder)'),
  contact_name: entityNameSchema
    .optional()
    .describe('Contact person; screened against OFAC, EU and UN lists'),
}

/** Rules across fields of one lead: country covered, register number of that country. */
function leadRules(
  lead: { country: string; kvk_number?: string; cbe_number?: string },
  ctx: z.RefinementCtx,
) {
  if (/^[A-Z]{2}$/.test(lead.country) && !(LEAD_COUNTRIES as readonly string[]).includes(lead.country)) {
    ctx.addIssue({
      code: 'custom',
      path: ['country'],
      message: `lead verification covers NL and BE only (got ${lead.country})`,
    })
  }
  if (lead.kvk_number !== undefined && lead.country === 'BE')
    ctx.addIssue({ code: 'custom', path: ['kvk_number'], message: 'is for NL leads; send cbe_number for BE' })
  if (lead.cbe_number !== undefined && lead.country === 'NL')
    ctx.addIssue({ code: 'custom', path: ['cbe_number'], message: 'is for BE leads; send kvk_number for NL' })
}

/**
 * One lead. Strict: unknown fields are refused. "An input not given is not checked":
 * each check of a missing input answers `not_requested`.
 */
export const LeadInput = z.object(leadFields).strict().superRefine(leadRules).describe('One NL or BE lead')
export type Lead = z.infer<typeof LeadInput>

/**
 * The request: one lead's fields, or `leads` with 1-100 of them. A lead in `leads` that fails
 * validation does not fail the call: it gets its own `errors` and is not charged. Only when
 * every lead is invalid is the call refused (422, nothing charged).
 */
export const LeadsVerifyInput = itemsCheckedOneByOne(
  z
    .object({
      ...Object.fromEntries(Object.entries(leadFields).map(([key, schema]) => [key, schema.optional()])),
      country: leadFields.country.optional().describe('NL or BE; required for a single lead (without leads)'),
      leads: z
        .array(
          // Any item is accepted here and validated one by one (LeadInput), so one bad lead gets its
          // own errors instead of failing the batch; the JSON Schema still shows the lead's fields.
          z.union([LeadInput, z.unknown()]),
        )
        .min(1)
        .max(MAX_LEADS_PER_CALL)
        .optional()
        .describe(
          `A batch of 1-${MAX_LEADS_PER_CALL} leads, answered in the same order; charged per valid lead`,
        ),
    })
    .strict()
    .superRefine((input, ctx) => {
      const { leads, ...single } = input as { leads?: unknown[] } & Record<string, unknown>
      const singleFields = Object.keys(single).filter((key) => single[key] !== undefined)
      if (leads !== undefined) {
        if (singleFields.length > 0) {
          ctx.addIssue({
            code: 'custom',
            path: [singleFields[0] as string],
            message: 'send either one lead (its fields at the top level) or leads, not both',
          })
          return
        }
        // A lead's bad text (a NUL, a lone surrogate) is its own error, as in leadsOf.
        const problems = leads.map((lead) => {
          const text = textErrors(lead)
          return text.length > 0 ? { text } : { parsed: LeadInput.safeParse(lead, { reportInput: true }) }
        })
        if (problems.every((problem) => problem.text !== undefined || !problem.parsed?.success)) {
          problems.forEach((problem, index) => {
            for (const error of problem.text ?? []) {
              const path = error.field === '(body)' ? [] : error.field.split('.')
              ctx.addIssue({ code: 'custom', path: ['leads', index, ...path], message: error.message })
            }
            for (const issue of problem.parsed?.error?.issues ?? [])
              ctx.addIssue({ ...issue, path: ['leads', index, ...issue.path] } as never)
          })
        }
        return
      }
      if (single.country === undefined) {
        ctx.addIssue(requiredIssue(['country'], 'is required (or send leads)'))
        return
      }
      leadRules(single as Lead, ctx)
    })
    .describe('One lead (its fields at the top level) or a batch in leads'),
  'leads',
)
export type LeadsVerifyRequest = z.infer<typeof LeadsVerifyInput>

export const LeadFlagSchema = z
  .object({
    code: z
      .enum(Object.keys(LEAD_FLAGS) as [string, ...string[]])
      .describe('Flag code (see /v1/methodology)'),
    severity: z.enum(LEAD_SEVERITIES).describe('How much it matters'),
    message: z.string().describe('What was found, in words'),
    action: z.enum(LEAD_ACTIONS).describe('The one thing to do about it'),
    check: z.enum(LEAD_CHECKS).describe('The check that raised it'),
  })
  .strict()

export const LeadCheckSchema = z
  .object({
    check: z.enum(LEAD_CHECKS).describe('Which check'),
    status: z
      .enum(['ok', 'failed', 'partial', 'unavailable', 'not_requested'])
      .describe(
        'ok; failed (the source answered and the check did not pass); partial (the source answered for only part of what it checks, e.g. a sanctions screen without every list: never clean); unavailable (no answer: never clean); not_requested (input not given)',
      ),
    source: z
      .string()
      .describe('Where the answer came from: kvk, kbo, vies, dns, disposable list, bank_codes, sanctions'),
    reason: z.string().describe('The finding, or why it could not be asked'),
    fields: z.array(z.string()).describe('The input fields this check looked at'),
    list: z
      .object({ package: z.string(), version: z.string(), published: z.string() })
      .strict()
      .optional()
      .describe('email check: the disposable-mail list used (npm package, version, publication date)'),
    coverage: SanctionsCoverageSchema.optional().describe(
      'sanctions check: the lists screened (publication date, age) and the ones not screened, with why',
    ),
  })
  .strict()

export const VerifiedLeadSchema = z
  .object({
    index: z.number().int().min(0).optional().describe('Position of the lead in leads (batch answers only)'),
    reference: z.string().optional().describe('As sent'),
    status: z.literal('verified').describe('The lead was valid and verified (and charged)'),
    country: z.string(),
    company_name: z.string().optional().describe('As sent'),
    verdict: z.enum(['proceed', 'review', 'block']).describe('proceed, review or block'),
    lead_score: z.number().int().min(0).max(100).describe('0-100, 100 best (see /v1/methodology)'),
    confidence: z.number().min(0).max(1).describe('Share of the requested checks whose source answered'),
    flags: z.array(LeadFlagSchema).describe('Findings that need attention, each with one action'),
    checks: z.array(LeadCheckSchema).describe('Every check, in a fixed order, with its status'),
    register_name: z.string().nullable().describe('The official name the register holds (null: not known)'),
    checked_at: z.string().describe('When the sources were asked (ISO timestamp)'),
  })
  .strict()

export const InvalidLeadSchema = z
  .object({
    index: z.number().int().min(0).describe('Position of the lead in leads'),
    reference: z.string().optional().describe('As sent, when it was a string'),
    status: z.literal('invalid').describe('The lead failed validation: not checked, not charged'),
    errors: z
      .array(z.object({ field: z.string(), message: z.string() }).strict())
      .describe('Field errors of this lead, as in a 422'),
  })
  .strict()

export const LeadsBatchResultSchema = z
  .object({
    leads: z
      .array(z.union([VerifiedLeadSchema, InvalidLeadSchema]))
      .describe('One result per lead, in input order'),
    summary: z
      .object({
        total: z.number().int(),
        verified: z.number().int().describe('Valid leads: checked and charged'),
        invalid: z.number().int().describe('Leads with field errors: not checked, not charged'),
        proceed: z.number().int(),
        review: z.number().int(),
        block: z.number().int(),
      })
      .strict(),
    checked_at: z.string().describe('When the batch ran (ISO timestamp)'),
  })
  .strict()

export const LeadsVerifyResult = z.union([VerifiedLeadSchema, LeadsBatchResultSchema])

export type VerifiedLead = z.infer<typeof VerifiedLeadSchema>
export type InvalidLead = z.infer<typeof InvalidLeadSchema>
export type LeadsBatchResult = z.infer<typeof LeadsBatchResultSchema>
