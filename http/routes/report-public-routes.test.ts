import { describe, expect, it } from 'vitest'
import type { StoredReport } from '../../core/reports/report-store.ts'
import type { PdfRenderer } from '../pdf.ts'
import { reportPublicRoutes } from './report-public-routes.ts'

const REPORT = {
  report_id: 'r-1',
  check_id: 'c-1',
  created_at: '2026-11-25T09:00:00.000Z',
  entity: { entity_name: 'Test BV Donald', country: 'NL', entity_hash: 'ab'.repeat(32) },
  sanctions: { status: 'ok', result: 'no_match', threshold: 0.6, lists: [], matches: [] },
  pep: { status: 'ok', exposure: 'none', matches: [] },
  domain: { status: 'not_requested', domain: null, domain_age_days: null },
  risk: {
    trust_score: 80,
    trust_level: 'high',
    recommendation: 'approve',
    cluster: 'low_risk',
    confidence: 1,
    sources_checked: 1,
  },
  findings: [],
  correlations: { status: 'ok', scope_note: 'none', links: [] },
  sources: [{ source: 'sanctions', status: 'ok' }],
  evidence: {
    report_hash: 'h',
    hash_algorithm: 'SHA-256',
    canonicalization: 'RFC 8785 (JCS)',
    signature: 's..t',
    signature_algorithm: 'EdDSA (Ed25519)',
    key_id: 'k',
    jwks_url: 'http://localhost/.well-known/jwks.json',
  },
} as unknown as StoredReport['report']

/** The routes over a share store that opens `good` for report r-1 only, and a report store holding it. */
function routes(pdf?: PdfRenderer) {
  return reportPublicRoutes({
    signer: { publicJwk: { kty: 'OKP' } },
    clock: { now: () => new Date() },
    store: {
      latestForEntity: async () => null,
      get: async (owner, id) =>
        owner === 'key:a' && id === 'r-1' ? ({ id, owner, report: REPORT } as unknown as StoredReport) : null,
    },
    shares: {
      open: async (reportId, token) => {
        if (token === 'expired') return { refused: 'expired' }
        return reportId === 'r-1' && token === 'good' ? { owner: 'key:a' } : { refused: 'invalid' }
      },
    },
    ...(pdf ? { pdf } : {}),
  })
}

describe('a report opened by its share link', () => {
  it('format=pdf without a renderer is a 503 problem "PDF rendering not configured" that charges nothing', async () => {
    const response = await routes().request('/v1/reports/r-1?token=good&format=pdf')
    expect(response.status).toBe(503)
    expect(response.headers.get('content-type')).toContain('application/problem+json')
    expect(await response.json()).toMatchObject({
      status: 503,
      detail: 'PDF rendering not configured',
      errorCode: 'pdf_not_configured',
      charged: false,
    })
  })

  it('format=pdf with a renderer answers its bytes as application/pdf, never cached', async () => {
    const pdf: PdfRenderer = {
      render: async (html) => new TextEncoder().encode(`%PDF-${html.includes('Test BV Donald')}`),
      close: async () => {},
    }
    const response = await routes(pdf).request('/v1/reports/r-1?token=good&format=pdf')
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toBe('application/pdf')
    expect(response.headers.get('cache-control')).toBe('private, no-store')
    expect(await response.text()).toBe('%PDF-true')
  })

  it('a bad token is 401 and an expired one 410, before any PDF is rendered', async () => {
    let rendered = 0
    const pdf: PdfRenderer = {
      render: async () => {
        rendered++
        return new Uint8Array()
      },
      close: async () => {},
    }
    expect((await routes(pdf).request('/v1/reports/r-2?token=good&format=pdf')).status).toBe(401)
    expect((await routes(pdf).request('/v1/reports/r-1?token=expired&format=pdf')).status).toBe(410)
    expect(rendered).toBe(0)
  })
})
