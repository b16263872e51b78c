import type { FakeBehaviour, FakeCommonOptions } from './fake-behaviour.ts'
import { type FakeHttpServer, type FakeRequest, startFakeHttpServer } from './fake-http-server.ts'

/** Companies the fake knows, by VAT number or tax code. */
export const OPENAPI_RISK_FAKE_COMPANIES: Record<string, Record<string, unknown>> = {
  '12345678903': {
    companyName: 'ESEMPIO SRL',
    vatCode: '12345678903',
    taxCode: '12345678903',
    activityStatus: 'ATTIVA',
    risk_score: 72,
    rating: 'A2',
    operational_credit_limit: 50000,
  },
}

/**
 * A fake openapi.com Risk API: `GET /IT-creditscore-{start|advanced|top}/{id}` with
 * `Authorization: Bearer <token>`, answering the `{data, success, message, error}` envelope;
 * unknown ids get 404 with `success: false`; a wrong token 401. Error mode: `http_500`, `no_credit` (402).
 */
export async function startFakeOpenapiRiskServer(
  options: FakeCommonOptions & { token?: string } = {},
): Promise<FakeHttpServer> {
  const token = options.token ?? 'openapi-test-token'
  return startFakeHttpServer(
    'openapi_risk',
    (request: FakeRequest, behaviour: FakeBehaviour) => {
      if (behaviour.mode === 'error') {
        if (behaviour.error === 'no_credit')
          return {
            status: 402,
            body: { data: null, success: false, message: 'Insufficient credit', error: 402 },
          }
        return { status: 500, body: { data: null, success: false, message: 'Internal error', error: 500 } }
      }
      if (request.headers.authorization !== `Bearer ${token}`)
        return { status: 401, body: { data: null, success: false, message: 'Unauthorized', error: 401 } }
      const route = /^\/IT-creditscore-(start|advanced|top)\/([^/]+)$/.exec(request.path)
      if (request.method !== 'GET' || !route)
        return { status: 404, body: { data: null, success: false, message: 'Not found', error: 404 } }
      const company = OPENAPI_RISK_FAKE_COMPANIES[decodeURIComponent(route[2] ?? '')]
      if (!company)
        return { status: 404, body: { data: null, success: false, message: 'Company not found', error: 404 } }
      return { status: 200, body: { data: company, success: true, message: '', error: null } }
    },
    options,
  )
}
