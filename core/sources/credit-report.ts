import { z } from 'zod'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { failureForStatus, joinUrl, requestJson } from './http-json.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, UpstreamFailure } from './source-result.ts'

/** An Italian company's credit standing, as a provider reports it. */
export interface CreditReport {
  /** The identifier asked for (VAT number, tax code or the provider's company id). */
  identifier: string
  found: boolean
  company_name: string | null
  vat_number: string | null
  tax_code: string | null
  /** The provider's risk score as it states it (scale in `score_scale`). */
  score: number | null
  score_scale: string | null
  /** The provider's rating or risk class (e.g. `A2`, `medium`). */
  rating: string | null
  /** Suggested operational credit limit in EUR, when the provider gives one. */
  credit_limit_eur: number | null
  /** Company activity status as stated (e.g. `ATTIVA`). */
  activity_status: string | null
}

/**
 * The credit-report provider port of the deep check's credit tier (Italy only). One adapter
 * ships (openapi.com Risk); another provider (CRIF, Cerved) plugs in behind the same port.
 */
export interface CreditReportProvider {
  /** Source name reported in sources_returned and problem errorCodes. */
  readonly source: string
  readonly breaker: CircuitBreaker
  report(identifier: string): Promise<SourceResult<CreditReport>>
}

export const OPENAPI_RISK_URL = 'https://risk.openapi.com'

export interface OpenapiRiskOptions extends SourceClientOptions {
  /** Default {@link OPENAPI_RISK_URL} (`https://test.risk.openapi.com` is its sandbox). */
  baseUrl?: string
  /** openapi.com bearer token with the scope `GET:risk.openapi.com/IT-creditscore-start`. */
  token: string
  /** Which score product: start (default), advanced or top. */
  level?: 'start' | 'advanced' | 'top'
}

/** openapi.com's envelope: `{ data, success, message, error }`. */
const Envelope = z.object({
  success: z.boolean().optional(),
  message: z.string().nullish(),
  error: z.unknown().optional(),
  data: z.unknown(),
})

type Record_ = Record<string, unknown>
const pick = (data: Record_, ...keys: string[]): unknown => {
  for (const key of keys) if (data[key] !== undefined && data[key] !== null) return data[key]
  return undefined
}
const str = (value: unknown): string | null =>
  typeof value === 'string' && value.trim() !== ''
    ? value.trim()
    : typeof value === 'number'
      ? String(value)
      : null
const num = (value: unknown): number | null => {
  const n = typeof value === 'number' ? value : typeof value === 'string' ? Number(value) : Number.NaN
  return Number.isFinite(n) ? n : null
}

/**
 * openapi.com Risk adapter: `GET {base}/IT-creditscore-{level}/{vatCode_taxCode_or_id}` with a
 * bearer token. A 404, or `success: false` naming no company, is an answer (found: false); 401/403
 * are auth_failed; 402 (no credit left on the account) and 5xx are upstream trouble.
 */
export function createOpenapiRiskProvider(options: OpenapiRiskOptions): CreditReportProvider {
  const { clock, timeoutMs, breaker, fetch } = resolveCommon(options)
  const base = options.baseUrl ?? OPENAPI_RISK_URL
  const level = options.level ?? 'start'
  return {
    source: 'credit_report',
    breaker,
    report(identifier) {
      return runSourceCall({
        source: 'credit_report',
        clock,
        timeoutMs,
        breaker,
        call: async (signal): Promise<CreditReport> => {
          const url = joinUrl(base, `/IT-creditscore-${level}/${encodeURIComponent(identifier)}`)
          const res = await requestJson(fetch, url, {
            method: 'GET',
            headers: { accept: 'application/json', authorization: `Bearer ${options.token}` },
            signal,
          })
          const envelope = Envelope.safeParse(res.json)
          const notFound: CreditReport = {
            identifier,
            found: false,
            company_name: null,
            vat_number: null,
            tax_code: null,
            score: null,
            score_scale: null,
            rating: null,
            credit_limit_eur: null,
            activity_status: null,
          }
          if (res.status === 404) return notFound
          if (res.status === 402)
            throw new UpstreamFailure('upstream_error', 'HTTP 402: provider credit exhausted')
          if (res.status !== 200)
            throw failureForStatus(
              res.status,
              envelope.success ? (envelope.data.message ?? undefined) : undefined,
            )
          if (!envelope.success) throw new UpstreamFailure('invalid_response', 'not an openapi.com envelope')
          if (envelope.data.success === false) return notFound
          const raw = Array.isArray(envelope.data.data) ? envelope.data.data[0] : envelope.data.data
          if (!raw || typeof raw !== 'object') return notFound
          const data = raw as Record_
          return {
            identifier,
            found: true,
            company_name: str(pick(data, 'companyName', 'company_name', 'denominazione')),
            vat_number: str(pick(data, 'vatCode', 'vat_code', 'piva')),
            tax_code: str(pick(data, 'taxCode', 'tax_code', 'cf')),
            score: num(pick(data, 'risk_score', 'riskScore', 'score')),
            score_scale: str(pick(data, 'risk_score_scale', 'scale')) ?? '1-100, higher is safer',
            rating: str(pick(data, 'rating', 'risk_class', 'riskClass', 'risk_severity')),
            credit_limit_eur: num(pick(data, 'operational_credit_limit', 'creditLimit', 'credit_limit')),
            activity_status: str(pick(data, 'activityStatus', 'activity_status', 'stato_attivita')),
          }
        },
      })
    },
  }
}
