import { describe, expect, it } from 'vitest'
import { labelOf, reportHtml, reportVerdict } from './report-html.ts'
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

describe('the verdict banner of the page', () => {
  const clear = {
    ...REPORT,
    entity: { ...REPORT.entity, entity_name: 'Test BV Donald' },
    sanctions: { ...REPORT.sanctions, result: 'no_match', matches: [] },
    risk: { ...REPORT.risk, trust_score: 90, trust_level: 'high', recommendation: 'approve' },
    pep: { status: 'ok', exposure: 'none', matches: [] },
  } as EntityReport

  it('is a hit for a possible match, clear only when everything answered, review otherwise', () => {
    expect(reportVerdict(REPORT)).toBe('hit')
    expect(reportVerdict(clear)).toBe('clear')
    expect(reportVerdict({ ...clear, sources: [{ source: 'kvk', status: 'unavailable' }] })).toBe('review')
    expect(reportVerdict({ ...clear, sanctions: { ...clear.sanctions, status: 'partial' } })).toBe('review')
    expect(reportVerdict({ ...clear, pep: { status: 'ok', exposure: 'pep', matches: [] } })).toBe('review')
    expect(reportVerdict({ ...clear, risk: { ...clear.risk, trust_level: 'low' } })).toBe('review')
  })

  it('is review when a list screened is stale', () => {
    const list = {
      list_key: 'eu' as const,
      list: 'EU',
      publication_date: '2026-01-01',
      as_of: '2026-01-01',
      age_days: 300,
      max_age_days: 30,
      stale: true,
      stale_reason: 'published 300 days ago',
    }
    const coverage = {
      status: 'complete' as const,
      lists_promised: ['eu' as const],
      lists_checked: [list],
      lists_not_checked: [],
      stale: true,
    }
    const stale = { ...clear, sanctions: { ...clear.sanctions, coverage } } as EntityReport
    expect(reportVerdict(stale)).toBe('review')
    expect(reportHtml(stale)).toContain('Stale: published 300 days ago')
  })

  it('says the verdict in words and shows labels, not codes', () => {
    const page = reportHtml(clear)
    expect(page).toContain('class="verdict verdict-clear"')
    expect(page).toContain('CLEAR: no sanctions match')
    expect(page).toContain('<td>Approve</td>')
    expect(page).not.toContain('<td>approve</td>')
    expect(reportHtml(REPORT)).toContain('HIT: possible sanctions match')
    expect(labelOf('approve_with_monitoring')).toBe('Approve with monitoring')
    expect(labelOf('domain_established')).toBe('Domain established')
  })
})
