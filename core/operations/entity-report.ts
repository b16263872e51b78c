import { randomUUID } from 'node:crypto'
import { z } from 'zod'
import { ownerOf, pepExtendedOf } from '../checks/index.ts'
import { ServiceError } from '../errors.ts'
import { PRICES } from '../payments/pricing.ts'
import { buildEvidence } from '../reports/evidence.ts'
import { reportHtml } from '../reports/report-html.ts'
import { type EntityReport, EntityReportSchema } from '../reports/report-schema.ts'
import { SHARE_TOKEN } from '../reports/report-shares.ts'
import type { ReportIdentifier } from '../reports/report-store.ts'
import { coverageGaps } from '../sanctions/coverage.ts'
import {
  cbeNumberSchema,
  countrySchema,
  domainSchema,
  entityNameSchema,
  ibanSchema,
  kvkNumberSchema,
  validateWalletForChain,
  vatNumberSchema,
  WALLET_CHAINS,
  walletAddressSchema,
  walletChainOf,
} from '../validate/index.ts'
import { requiredIssue } from '../validate/required-issue.ts'
import { defineOperation } from './define.ts'
import {
  companyCheckEssentials,
  type EntityCheckInput,
  type EntityCheckResult,
  runEntityCheck,
} from './entity-check.ts'
import type { OperationContext } from './operation-context.ts'
import { type PartNotReady, REGISTER_PART, SANCTIONS_PART } from './readiness.ts'

/** spec: POST /v1/reports/entity request (all optional, no other properties). */
export const EntityReportInput = z
  .object({
    check_id: z
      .string()
      .min(1)
      .max(100)
      .optional()
      .describe(
        'Id of an entity check this key stored earlier; the report is built from it without asking the sources again',
      ),
    entity_name: entityNameSchema.optional().describe('Legal name (required without check_id)'),
    country: countrySchema.optional().describe('ISO 3166-1 alpha-2 (required without check_id)'),
    kvk_number: kvkNumberSchema.optional().describe('Dutch KVK number, 8 digits'),
    cbe_number: cbeNumberSchema.optional().describe('Belgian enterprise number'),
    vat_number: vatNumberSchema.optional().describe('EU VAT number with country prefix'),
    domain: domainSchema.optional().describe('Bare hostname'),
    iban: ibanSchema.optional().describe('IBAN without spaces'),
    wallet_address: walletAddressSchema.optional().describe('EVM, Solana or Bitcoin address'),
    wallet_chain: z
      .enum(WALLET_CHAINS)
      .optional()
      .describe('Chain of wallet_address. Omitted: the address format decides (sol, btc, else eth)'),
  })
  .strict()
  .superRefine((input, ctx) => {
    if (input.wallet_chain && !input.wallet_address) {
      ctx.addIssue({ code: 'custom', path: ['wallet_chain'], message: 'needs wallet_address' })
    }
    if (input.wallet_address) {
      const chain = walletChainOf(input.wallet_address, input.wallet_chain)
      const checked = validateWalletForChain(input.wallet_address, chain)
      if (!checked.ok) ctx.addIssue({ code: 'custom', path: ['wallet_address'], message: checked.message })
    }
    if (input.check_id !== undefined) return
    if (input.entity_name === undefined)
      ctx.addIssue(requiredIssue(['entity_name'], 'is required unless check_id is given'))
    if (input.country === undefined)
      ctx.addIssue(requiredIssue(['country'], 'is required unless check_id is given'))
  })

type ReportInput = z.infer<typeof EntityReportInput>
type CheckInput = z.infer<typeof EntityCheckInput>
type CheckResult = z.infer<typeof EntityCheckResult>

/** spec: the lowest match_score the name screen reports (weak alias, word order; NAME_MATCHING.md). */
const SANCTIONS_THRESHOLD = 0.6

const TRUST_LEVELS: Record<string, EntityReport['risk']['trust_level']> = {
  low_risk: 'high',
  moderate_risk: 'medium',
  elevated_risk: 'low',
  high_risk: 'very_low',
  sanctions_flagged: 'blocked',
}

const SCOPE_NOTE =
  "Links are with this caller's own earlier reports only (never another key's), by exact shared VAT number, IBAN, domain, wallet address or register number; directors are linked when a source names them (the registers used here do not). A shared identifier is a lead to review, not a finding."

function reportsOf(ctx: OperationContext<'reports'>) {
  const reports = ctx.deps.reports
  if (!reports)
    throw new ServiceError('unavailable', 'reports are not available on this service', {
      extra: { errorCode: 'service_not_configured', charged: false },
    })
  return reports
}

/** The check to report on: this owner's stored check (check_id) or a new real entity check. */
async function resolveCheck(
  input: ReportInput,
  ctx: OperationContext<'checks' | 'companySources' | 'sanctions'>,
  owner: string,
): Promise<{ checkInput: CheckInput; result: CheckResult & { check_id: string; entity_hash: string } }> {
  if (input.check_id !== undefined) {
    const stored = await ctx.deps.checks?.get(owner, input.check_id)
    if (stored?.operation !== 'entity_check') {
      throw new ServiceError('not_found', `no entity check ${input.check_id} stored for this caller`, {
        extra: { errorCode: 'check_not_found' },
      })
    }
    return {
      checkInput: stored.input as CheckInput,
      result: { ...(stored.result as CheckResult), check_id: stored.id, entity_hash: stored.entityHash },
    }
  }
  const { check_id: _check, ...fields } = input
  const checkInput = fields as CheckInput
  // A report always runs the real check (fresh), whatever quality header came with it.
  const result = await runEntityCheck(checkInput, { ...ctx, quality: 'fresh' })
  if (!result.check_id || !result.entity_hash) throw new Error('entity check returned no check id')
  return { checkInput, result: { ...result, check_id: result.check_id, entity_hash: result.entity_hash } }
}

function identifiersOf(input: CheckInput): ReportIdentifier[] {
  const out: ReportIdentifier[] = []
  if (input.vat_number) out.push({ kind: 'vat_number', value: input.vat_number })
  if (input.iban) out.push({ kind: 'iban', value: input.iban })
  if (input.domain) out.push({ kind: 'domain', value: input.domain })
  if (input.wallet_address) out.push({ kind: 'wallet_address', value: input.wallet_address })
  if (input.kvk_number) out.push({ kind: 'register_number', value: `NL:${input.kvk_number}` })
  if (input.cbe_number)
    out.push({ kind: 'register_number', value: `BE:${input.cbe_number.replace(/\D/g, '')}` })
  return out
}

/**
 * The domain section from the same source statuses as the check's `sources`, so the section and
 * the findings beside it never disagree: ok when every probe answered, partial when some did.
 */
function domainSection(input: CheckInput, result: CheckResult): EntityReport['domain'] {
  if (!input.domain) return { status: 'not_requested', domain: null, domain_age_days: null }
  const probes: Record<string, 'ok' | 'unavailable'> = {}
  for (const name of ['rdap', 'dns', 'tls']) {
    const source = result.sources?.find((candidate) => candidate.source === name)
    probes[name] = source?.status === 'ok' ? 'ok' : 'unavailable'
  }
  const answered = Object.values(probes).filter((status) => status === 'ok').length
  const status = answered === 3 ? 'ok' : answered === 0 ? 'unavailable' : 'partial'
  const age =
    probes.rdap === 'ok'
      ? result.risk_factors
          .filter((factor) => factor.source === 'rdap')
          .map((factor) => /registered (\d+) days ago/.exec(factor.evidence)?.[1])
          .find((value) => value !== undefined)
      : undefined
  return {
    status,
    domain: input.domain,
    domain_age_days: age === undefined ? null : Number(age),
    probes,
  }
}

async function sanctionsSection(
  ctx: OperationContext<'sanctions'>,
  name: string,
  country: string,
): Promise<EntityReport['sanctions']> {
  const screen = ctx.deps.sanctions
  const result = screen
    ? await screen.screenName(name, country)
    : { status: 'unavailable' as const, reason: 'sanctions_lists_not_loaded' }
  if (result.status === 'unavailable') {
    return {
      status: 'unavailable',
      result: null,
      threshold: SANCTIONS_THRESHOLD,
      ...(result.coverage ? { coverage: result.coverage } : {}),
      lists: [],
      matches: [],
      reason: result.reason,
    }
  }
  const complete = result.coverage.status === 'complete'
  return {
    status: complete ? 'ok' : 'partial',
    result: result.possible_match ? 'possible_match' : 'no_match',
    threshold: SANCTIONS_THRESHOLD,
    coverage: result.coverage,
    ...(complete
      ? {}
      : {
          reason: coverageGaps(result.coverage, { detail: false }),
        }),
    lists: Object.entries(result.list_dates).map(([list, date]) => ({ list, date })),
    matches: result.matches.slice(0, 10).map((match) => ({
      list: match.list,
      entry_id: match.entry_id,
      matched_name: match.matched_name,
      match_score: match.match_score,
      match_type: match.match_type,
      programmes: match.programmes,
      listed_on: match.listed_on,
    })),
  }
}

async function pepSection(ctx: OperationContext<'deepCheck'>, name: string, country: string) {
  const pep = ctx.deps.deepCheck?.pep
  if (!pep) {
    return {
      section: {
        status: 'not_configured',
        exposure: null,
        matches: [],
        reason: 'not_configured',
      } as EntityReport['pep'],
      source: null,
    }
  }
  const result = await pep.match({ name, country })
  if (result.status !== 'ok') {
    return {
      section: {
        status: 'unavailable',
        exposure: null,
        matches: [],
        reason: result.reason,
      } as EntityReport['pep'],
      source: {
        source: result.source,
        status: 'unavailable' as const,
        reason: result.reason,
        fetched_at: result.fetched_at,
      },
    }
  }
  const extended = pepExtendedOf(result.data, result.fetched_at)
  return {
    section: {
      status: 'ok',
      exposure: extended.pep_exposure,
      matches: extended.matches,
    } as EntityReport['pep'],
    source: { source: result.source, status: 'ok' as const, fetched_at: result.fetched_at },
  }
}

/**
 * spec: POST /v1/reports/entity. One real entity check (or this caller's stored one), the
 * sanctions screen and the PEP screen at once, correlations with this caller's earlier reports,
 * then the evidence: SHA-256 over the RFC 8785 canonical JSON and an Ed25519 detached JWS. The
 * report (and the check it ran) are stored only once the call is paid for.
 */
/** The ports an entity report reads: stored checks, a new check's sources, PEP, the report store. */
type ReportPorts = 'checks' | 'companySources' | 'deepCheck' | 'reports' | 'sanctions'

export async function buildEntityReport(
  input: ReportInput,
  ctx: OperationContext<ReportPorts>,
): Promise<EntityReport> {
  const reports = reportsOf(ctx)
  const who = ownerOf(ctx.caller)
  if (!who) throw new ServiceError('unauthorized', 'an API key or x402 payment is required')
  const { checkInput, result } = await resolveCheck(input, ctx, who.owner)
  const name = checkInput.entity_name
  const country = checkInput.country
  const identifiers = identifiersOf(checkInput)
  const [sanctions, pep, links] = await Promise.all([
    sanctionsSection(ctx, name, country),
    pepSection(ctx, name, country),
    reports.store.correlate(who.owner, identifiers),
  ])
  const now = ctx.clock.now()
  const entity: EntityReport['entity'] = { entity_name: name, country, entity_hash: result.entity_hash }
  for (const field of [
    'kvk_number',
    'cbe_number',
    'vat_number',
    'domain',
    'iban',
    'wallet_address',
    'wallet_chain',
  ] as const) {
    const value = checkInput[field]
    if (value !== undefined) entity[field] = value
  }
  // The chain the wallet was screened as, also when the address's format chose it.
  if (checkInput.wallet_address)
    entity.wallet_chain = walletChainOf(checkInput.wallet_address, checkInput.wallet_chain)
  const content: Omit<EntityReport, 'evidence'> = {
    report_id: randomUUID(),
    check_id: result.check_id,
    created_at: now.toISOString(),
    entity,
    sanctions,
    pep: pep.section,
    domain: domainSection(checkInput, result),
    risk: {
      trust_score: result.trust_score,
      trust_level: TRUST_LEVELS[result.cluster] ?? 'low',
      recommendation: result.recommendation,
      cluster: result.cluster,
      confidence: result.confidence ?? null,
      sources_checked: result.sources_checked,
    },
    findings: result.risk_factors.map((factor) => ({
      factor: factor.factor,
      source: factor.source,
      severity: factor.severity,
      evidence: factor.evidence,
      ...(factor.status ? { status: factor.status } : {}),
    })),
    correlations: { status: 'ok', scope_note: SCOPE_NOTE, links },
    sources: [
      ...(result.sources ?? []).map((source) => ({
        source: source.source,
        status: source.status,
        ...(source.reason ? { reason: source.reason } : {}),
        fetched_at: source.fetched_at,
      })),
      ...(pep.source ? [pep.source] : []),
    ],
  }
  const evidence = await buildEvidence(content, reports.signer, reports.jwksUrl)
  const report: EntityReport = { ...content, evidence }
  ctx.afterPayment(() =>
    reports.store.save(
      {
        id: report.report_id,
        owner: who.owner,
        keyId: who.keyId,
        checkId: report.check_id,
        entityHash: result.entity_hash,
        trustLevel: report.risk.trust_level,
        report: report as unknown as Record<string, unknown>,
        createdAt: now,
      },
      identifiers,
    ),
  )
  return report
}

export const entityReport = defineOperation({
  id: 'entity_report',
  http: { method: 'POST', path: '/v1/reports/entity', problemInstance: true },
  summary: 'Signed entity report from one real check: sanctions, PEP, domain, risk, correlations, evidence',
  description:
    "Runs one real entity check (or takes check_id of one this caller stored) and builds a report a compliance officer can file: entity, sanctions, PEP/RCA, domain, risk, every finding and source with its status, correlations with this caller's earlier reports, and evidence anyone can verify offline (evidence.report_hash: SHA-256 over the RFC 8785 canonical JSON of the report without evidence; evidence.signature: Ed25519 detached JWS over the same bytes, key in /.well-known/jwks.json). Sandbox keys get 403. Fixed price; the quality tier does not apply (the check always runs fresh).",
  input: EntityReportInput,
  output: EntityReportSchema,
  price: PRICES.entity_report,
  essentials: {
    parts: [
      SANCTIONS_PART,
      { ...REGISTER_PART, when: `${REGISTER_PART.when}; not with check_id (the stored check is used)` },
      { part: 'signing', when: 'always', needs: 'the report store and signing key (built in at start-up)' },
    ],
    check: async (input, deps, quality) => {
      const missing: PartNotReady[] = []
      if (!deps.reports) {
        missing.push({
          part: 'signing',
          reason: 'not_configured',
          detail: 'reports are not available on this service',
          operator_action: 'start the service with its report store and signing key',
        })
      }
      // The sanctions section is screened now even for a stored check; the register only for a new check.
      const check = await companyCheckEssentials.check(
        { country: input.country ?? '', cbe_number: input.cbe_number, vat_number: input.vat_number },
        deps,
        quality,
      )
      return [
        ...missing,
        ...check.filter((part) => input.check_id === undefined || part.part === 'sanctions'),
      ]
    },
  },
  ports: ['checks', 'companySources', 'deepCheck', 'reports', 'sanctions', 'dismissals', 'sanctionsLists'],
  access: { sandbox: 'refuse' },
  openWorld: true,
  run: buildEntityReport,
})

export const ReportGetInput = z
  .object({
    report_id: z.string().min(1).max(100).describe('Id from POST /v1/reports/entity'),
    format: z
      .enum(['json', 'html', 'pdf'])
      .optional()
      .describe(
        'html: the printable page (as Accept: text/html); pdf: that page as a PDF, printed by headless Chromium (as Accept: application/pdf; 503 charging nothing when the service has no CHROMIUM_PATH; MCP answers the JSON); default json',
      ),
    token: SHARE_TOKEN.optional().describe(
      'A share link token (POST /v1/reports/{report_id}/share): opens this one report without an API key; 401 when forged or altered, 410 when expired or revoked',
    ),
  })
  .strict()

export const reportGet = defineOperation({
  id: 'report_get',
  http: {
    method: 'GET',
    path: '/v1/reports/{report_id}',
    html: (output: EntityReport) => reportHtml(output),
    problemInstance: true,
  },
  title: 'Get a report',
  summary: "A stored entity report of this key, exactly as delivered (404 for unknown or another key's)",
  description:
    'Free for the key that created the report; any other key gets 404. Over HTTP, format=html (or accepting text/html) gives the printable page. Reports bought with x402 alone are delivered once in the POST answer (there is no key to fetch them again).',
  input: ReportGetInput,
  output: EntityReportSchema,
  price: null,
  ports: ['reports'],
  access: { sandbox: 'run' },
  run: async (input, ctx) => {
    const reports = reportsOf(ctx)
    const who = ownerOf(ctx.caller)
    const stored = who ? await reports.store.get(who.owner, input.report_id) : null
    if (!stored)
      throw new ServiceError('not_found', `no report ${input.report_id}`, {
        extra: { errorCode: 'report_not_found' },
      })
    return stored.report as EntityReport
  },
})
