import { describe, expect, it } from 'vitest'
import { reportHtml } from './report-html.ts'
import type { EntityReport } from './report-schema.ts'

const HOSTILE = `<script>alert("x")</script> & 'Co'`

const REPORT: EntityReport = {
  report_id: 'r-1',
  check_id: 'c-1',
  created_at: '2026-11-25T09:00:00.000Z',
  entity: { entity_name: HOSTILE, country: 'NL', entity_hash: 'ab'.repeat(32) },
  sanctions: {
    status: 'ok',
    result: 'possible_match',
    threshold: 0.6,
    lists: [{ list: 'OFAC SDN', date: '2026-11-20' }],
    matches: [
      { list: 'OFAC SDN', entry_id: '1', matched_name: HOSTILE, match_score: 0.9, match_type: 'exact' },
    ],
  },
  pep: { status: 'unavailable', exposure: null, matches: [], reason: HOSTILE },
  domain: { status: 'not_requested', domain: null, domain_age_days: null },
  risk: {
    trust_score: 10,
    trust_level: 'blocked',
    recommendation: 'reject',
    cluster: 'sanctioned',
    confidence: null,
    sources_checked: 1,
  },
  findings: [{ factor: 'sanctions_match', source: 'sanctions', severity: 'critical', evidence: HOSTILE }],
  correlations: { status: 'ok', scope_note: HOSTILE, links: [] },
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
} as EntityReport

describe('the printable report page', () => {
  it('never contains a raw bidirectional control from stored data: each is shown as [U+XXXX]', () => {
    const override = 'Acme \u202Efdp.exe\u202C B.V. \u2067x\u2069 \u200F\u200E\u061C'
    const stored = {
      ...REPORT,
      entity: { ...REPORT.entity, entity_name: override },
      findings: [{ ...REPORT.findings[0], evidence: override }],
    } as EntityReport
    const page = reportHtml(stored)
    expect(page).not.toMatch(/[\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/)
    expect(page).toContain('Acme [U+202E]fdp.exe[U+202C] B.V. [U+2067]x[U+2069] [U+200F][U+200E][U+061C]')
  })

  it('escapes every value taken from the report and shows a dash for an absent one', () => {
    const page = reportHtml(REPORT)
    expect(page).not.toContain('<script')
    expect(page).toContain('&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &apos;Co&apos;')
    // the heading, the sanctions match, the PEP reason, the finding and the correlations note
    expect(page.match(/&lt;script&gt;/g)?.length).toBe(5)
    expect(page).toContain('<td>—</td>')
    expect(page.startsWith('<!doctype html>')).toBe(true)
  })
})
