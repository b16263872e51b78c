import type { FakeBehaviour, FakeCommonOptions } from './fake-behaviour.ts'
import {
  type FakeHttpServer,
  type FakeRequest,
  type FakeResponse,
  startFakeHttpServer,
} from './fake-http-server.ts'

/** Registered numbers the fake knows (hand-made entries; keys are VIES country code + number). */
export interface FakeViesRecord {
  name: string
  address: string
}

export const VIES_FAKE_RECORDS: Record<string, FakeViesRecord> = {
  NL859048153B01: { name: 'VOORBEELD HANDEL B.V.', address: 'KEIZERSGRACHT 00001\n1015CJ AMSTERDAM' },
  BE0200065765: { name: '---', address: '---' },
}

/**
 * VIES error codes with the messages the EC documents for them. The EC's test service
 * (`/check-vat-test-service`) answers them for fixed numbers (201 INVALID_INPUT, 301
 * MS_UNAVAILABLE, ...); the fake does the same on both paths.
 */
export const VIES_ERROR_MESSAGES: Record<string, string> = {
  INVALID_INPUT: 'The provided CountryCode is invalid or the VAT number is empty',
  INVALID_REQUESTER_INFO: 'The requester info is invalid',
  SERVICE_UNAVAILABLE:
    'An error was encountered either at the network level or the Web application level, try again later',
  MS_UNAVAILABLE:
    'The application at the Member State is not replying or not available. Please refer to the Technical Information page to check the status of the requested Member State, try again later',
  TIMEOUT: 'The application did not receive a reply within the allocated time, try again later',
  VAT_BLOCKED: 'The VAT number is blocked',
  IP_BLOCKED: 'The IP address is blocked',
  GLOBAL_MAX_CONCURRENT_REQ:
    'Your Request for VAT validation has not been processed; the maximum number of concurrent requests has been reached. Please re-submit your request later or contact TAXUD-VIESWEB@ec.europa.eu for further information',
  GLOBAL_MAX_CONCURRENT_REQ_TIME:
    'Your Request for VAT validation has not been processed; the maximum number of requests per time has been reached',
  MS_MAX_CONCURRENT_REQ:
    'Your Request for VAT validation has not been processed; the maximum number of concurrent requests for this Member State has been reached. Please re-submit your request later or contact TAXUD-VIESWEB@ec.europa.eu for further information',
  MS_MAX_CONCURRENT_REQ_TIME:
    'Your Request for VAT validation has not been processed; the maximum number of requests for this Member State per time has been reached',
}

/** Numbers of the EC's VIES REST test service and what they answer. */
const TEST_SERVICE_NUMBERS: Record<string, string> = {
  '201': 'INVALID_INPUT',
  '202': 'INVALID_REQUESTER_INFO',
  '300': 'SERVICE_UNAVAILABLE',
  '301': 'MS_UNAVAILABLE',
  '302': 'TIMEOUT',
  '400': 'VAT_BLOCKED',
  '401': 'IP_BLOCKED',
  '500': 'GLOBAL_MAX_CONCURRENT_REQ',
  '501': 'GLOBAL_MAX_CONCURRENT_REQ_TIME',
  '600': 'MS_MAX_CONCURRENT_REQ',
  '601': 'MS_MAX_CONCURRENT_REQ_TIME',
}

/**
 * The error body VIES REST sends: `{ actionSucceed: false, errorWrappers: [{ error, message }] }`.
 * `status` defaults to 200 (VIES reports business errors in the body); error names in `error`
 * mode may carry `@status`, e.g. `MS_UNAVAILABLE@500`.
 */
export function viesErrorResponse(code: string, status = 200): FakeResponse {
  return {
    status,
    body: { actionSucceed: false, errorWrappers: [{ error: code, message: VIES_ERROR_MESSAGES[code] }] },
  }
}

export interface FakeViesOptions extends FakeCommonOptions {
  records?: Record<string, FakeViesRecord>
}

/** A fake VIES REST API: `POST /check-vat-number`, `POST /check-vat-test-service`, `GET /ms/{cc}/vat/{n}`. */
export async function startFakeViesServer(options: FakeViesOptions = {}): Promise<FakeHttpServer> {
  const records = options.records ?? VIES_FAKE_RECORDS
  return startFakeHttpServer(
    'vies',
    (request: FakeRequest, behaviour: FakeBehaviour) => {
      if (behaviour.mode === 'error') {
        const [code = 'SERVICE_UNAVAILABLE', status] = (behaviour.error ?? '').split('@')
        if (code === 'http_503') return { status: 503, body: '<html><body>Service Unavailable</body></html>' }
        if (code === 'malformed') return { status: 200, body: '<html>maintenance</html>' }
        return viesErrorResponse(code || 'SERVICE_UNAVAILABLE', status ? Number(status) : 200)
      }
      const requestDate = new Date().toISOString()
      const get = /^\/ms\/([A-Z]{2})\/vat\/([^/]+)$/.exec(request.path)
      if (request.method === 'GET' && get) {
        const cc = get[1]!
        const number = decodeURIComponent(get[2]!)
        const record = records[`${cc}${number}`]
        return {
          status: 200,
          body: {
            isValid: Boolean(record),
            requestDate,
            userError: record ? 'VALID' : 'INVALID',
            name: record?.name ?? '---',
            address: record?.address ?? '---',
            requestIdentifier: '',
            originalVatNumber: number,
            vatNumber: number,
            viesApproximate: {
              name: '---',
              street: '---',
              postalCode: '---',
              city: '---',
              companyType: '---',
            },
          },
        }
      }
      if (
        request.method !== 'POST' ||
        !['/check-vat-number', '/check-vat-test-service'].includes(request.path)
      ) {
        return { status: 404, body: { actionSucceed: false, errorWrappers: [{ error: 'NOT_FOUND' }] } }
      }
      let input: { countryCode?: unknown; vatNumber?: unknown }
      try {
        input = JSON.parse(request.body) as typeof input
      } catch {
        return viesErrorResponse('INVALID_INPUT', 400)
      }
      const cc = typeof input.countryCode === 'string' ? input.countryCode : ''
      const number = typeof input.vatNumber === 'string' ? input.vatNumber : ''
      if (!/^[A-Z]{2}$/.test(cc) || number === '') return viesErrorResponse('INVALID_INPUT')
      const testError = TEST_SERVICE_NUMBERS[number]
      if (testError) return viesErrorResponse(testError)
      const record =
        number === '100'
          ? { name: 'John Doe', address: '123 Main St, Anytown, UK' }
          : records[`${cc}${number}`]
      return {
        status: 200,
        body: {
          countryCode: cc,
          vatNumber: number,
          requestDate,
          valid: Boolean(record),
          requestIdentifier: '',
          name: record?.name ?? '---',
          address: record?.address ?? '---',
          traderName: '---',
          traderStreet: '---',
          traderPostalCode: '---',
          traderCity: '---',
          traderCompanyType: '---',
          traderNameMatch: 'NOT_PROCESSED',
          traderStreetMatch: 'NOT_PROCESSED',
          traderPostalCodeMatch: 'NOT_PROCESSED',
          traderCityMatch: 'NOT_PROCESSED',
          traderCompanyTypeMatch: 'NOT_PROCESSED',
        },
      }
    },
    options,
  )
}
