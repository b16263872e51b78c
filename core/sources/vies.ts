import { z } from 'zod'
import { EU_MEMBER_STATES, vatPrefixForCountry } from '../validate/country.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { failureForStatus, joinUrl, requestJson } from './http-json.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, type UnavailableReason, UpstreamFailure } from './source-result.ts'

/** What VIES said about one VAT number. */
export interface ViesCheck {
  valid: boolean
  /** VIES country code (Greece is `EL`). */
  country_code: string
  /** The number without country prefix. */
  vat_number: string
  /** null when the member state does not disclose it (VIES sends "---"). */
  name: string | null
  address: string | null
  /** VIES request date (ISO), or the check time when VIES gives none. */
  request_date: string
  /** Consultation number, present only when a requester VAT number was sent. */
  request_identifier: string | null
  /**
   * true when VIES refused the input itself (INVALID_INPUT: bad country code or empty number)
   * or the country is not a VIES member. Reported as `valid: false`, an answer about the input
   * (it cannot be a valid EU VAT number), not as the service being down.
   */
  input_rejected: boolean
}

export interface ViesCheckInput {
  /** ISO or VIES country code (`GR` is sent as `EL`); may be omitted when the number carries it. */
  countryCode?: string
  /** With or without country prefix; spaces, dots and dashes are ignored. */
  vatNumber: string
}

export interface ViesClientOptions extends SourceClientOptions {
  /** Default `https://ec.europa.eu/taxation_customs/vies/rest-api`. */
  baseUrl?: string
  /** Requester's own VAT number; VIES then returns a consultation number (request_identifier). */
  requester?: { countryCode: string; vatNumber: string }
}

export interface ViesClient {
  readonly source: 'vies'
  readonly breaker: CircuitBreaker
  /** `POST {base}/check-vat-number` with `{ countryCode, vatNumber }`. */
  checkVat(input: ViesCheckInput): Promise<SourceResult<ViesCheck>>
}

export const VIES_REST_BASE_URL = 'https://ec.europa.eu/taxation_customs/vies/rest-api'

/** Member states VIES answers for, by VAT prefix (EL: Greece, XI: Northern Ireland). */
export const VIES_COUNTRIES: ReadonlySet<string> = new Set([
  ...EU_MEMBER_STATES.map((country) => vatPrefixForCountry(country) ?? country),
  'XI',
])

/** VIES error codes (errorWrappers[].error or userError) and how they count. */
const VIES_ERROR_REASONS: Record<string, UnavailableReason> = {
  SERVICE_UNAVAILABLE: 'upstream_error',
  MS_UNAVAILABLE: 'upstream_busy',
  TIMEOUT: 'timeout',
  GLOBAL_MAX_CONCURRENT_REQ: 'rate_limited',
  GLOBAL_MAX_CONCURRENT_REQ_TIME: 'rate_limited',
  MS_MAX_CONCURRENT_REQ: 'rate_limited',
  MS_MAX_CONCURRENT_REQ_TIME: 'rate_limited',
  VAT_BLOCKED: 'request_rejected',
  IP_BLOCKED: 'auth_failed',
  INVALID_REQUESTER_INFO: 'request_rejected',
}

const ErrorBody = z.object({
  actionSucceed: z.boolean().optional(),
  errorWrappers: z.array(z.object({ error: z.string().nullish(), message: z.string().nullish() })),
})

const CheckBody = z.object({
  countryCode: z.string().nullish(),
  vatNumber: z.string().nullish(),
  requestDate: z.string().nullish(),
  valid: z.boolean().optional(),
  /** GET /ms/{cc}/vat/{n} names it isValid. */
  isValid: z.boolean().optional(),
  userError: z.string().nullish(),
  requestIdentifier: z.string().nullish(),
  name: z.string().nullish(),
  address: z.string().nullish(),
})

/**
 * EU VIES REST client (European Commission VAT Information Exchange System). Member-state
 * trouble (MS_UNAVAILABLE, TIMEOUT, *_MAX_CONCURRENT_REQ, SERVICE_UNAVAILABLE), whether sent as
 * `{ actionSucceed: false, errorWrappers }` or as a `userError`, is `unavailable` with the
 * code in `detail`: VIES sends `valid: false` alongside some of them, and reading that as
 * "invalid" would blame the customer for a foreign outage. INVALID_INPUT is an ok answer with
 * `valid: false, input_rejected: true`. DESIGN "Upstream sources".
 */
export function createViesClient(options: ViesClientOptions = {}): ViesClient {
  const { clock, timeoutMs, breaker, fetch } = resolveCommon(options)
  const url = joinUrl(options.baseUrl ?? VIES_REST_BASE_URL, '/check-vat-number')

  return {
    source: 'vies',
    breaker,
    checkVat(input) {
      const { countryCode, vatNumber } = splitVatNumber(input)
      const rejected = (): ViesCheck => ({
        valid: false,
        country_code: countryCode,
        vat_number: vatNumber,
        name: null,
        address: null,
        request_date: clock.now().toISOString(),
        request_identifier: null,
        input_rejected: true,
      })
      return runSourceCall({
        source: 'vies',
        clock,
        timeoutMs,
        breaker,
        call: async (signal) => {
          if (!VIES_COUNTRIES.has(countryCode) || vatNumber === '') return rejected()
          const body: Record<string, string> = { countryCode, vatNumber }
          if (options.requester) {
            const requester = splitVatNumber(options.requester)
            body.requesterMemberStateCode = requester.countryCode
            body.requesterNumber = requester.vatNumber
          }
          const res = await requestJson(fetch, url, {
            method: 'POST',
            headers: { 'content-type': 'application/json', accept: 'application/json' },
            body: JSON.stringify(body),
            signal,
          })
          const error = ErrorBody.safeParse(res.json)
          if (error.success) {
            const first = error.data.errorWrappers[0]
            const code = first?.error ?? 'UNKNOWN'
            if (code === 'INVALID_INPUT') return rejected()
            throw viesFailure(code, first?.message ?? undefined)
          }
          if (res.status !== 200) throw failureForStatus(res.status)
          const parsed = CheckBody.safeParse(res.json)
          const valid = parsed.success ? (parsed.data.valid ?? parsed.data.isValid) : undefined
          if (!parsed.success || valid === undefined)
            throw new UpstreamFailure('invalid_response', 'no valid flag')
          const userError = parsed.data.userError
          if (userError && userError !== 'VALID' && userError !== 'INVALID') {
            if (userError === 'INVALID_INPUT') return rejected()
            throw viesFailure(userError)
          }
          return {
            valid,
            country_code: parsed.data.countryCode ?? countryCode,
            vat_number: parsed.data.vatNumber ?? vatNumber,
            name: disclosed(parsed.data.name),
            address: disclosed(parsed.data.address),
            request_date: parsed.data.requestDate ?? clock.now().toISOString(),
            request_identifier: parsed.data.requestIdentifier || null,
            input_rejected: false,
          }
        },
      })
    },
  }
}

function viesFailure(code: string, message?: string): UpstreamFailure {
  return new UpstreamFailure(
    VIES_ERROR_REASONS[code] ?? 'upstream_error',
    message ? `${code}: ${message}` : code,
  )
}

/** VIES sends "---" for data a member state does not disclose. */
function disclosed(value: string | null | undefined): string | null {
  const trimmed = value?.trim()
  return !trimmed || trimmed === '---' ? null : trimmed
}

/**
 * Splits a VAT number into the VIES country code and the national part: `NL 8590.48153-B01`
 * -> `NL`, `859048153B01`; `GR...` -> `EL`. An explicit countryCode wins over a prefix only when
 * the number carries none.
 */
export function splitVatNumber(input: ViesCheckInput): { countryCode: string; vatNumber: string } {
  let number = input.vatNumber.toUpperCase().replace(/[\s.\-/]/g, '')
  let country = input.countryCode?.trim().toUpperCase() ?? ''
  const prefix = /^[A-Z]{2}/.exec(number)?.[0]
  const vies = (cc: string) => (cc === 'GR' ? 'EL' : cc)
  if (prefix && (country === '' || vies(prefix) === vies(country))) {
    country = prefix
    number = number.slice(2)
  }
  return { countryCode: vies(country), vatNumber: number }
}
