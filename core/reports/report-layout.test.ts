import { describe, expect, it } from 'vitest'
import { withBrowserPage } from '../../test/support/browser.ts'
import { reportHtml } from './report-html.ts'
import type { EntityReport } from './report-schema.ts'

/** Long values with no place to break (identifiers, hashes, free text pasted without spaces). */
const LONG = 'X'.repeat(240)
const WORDS = Array.from({ length: 40 }, (_, i) => `PROGRAMME-${i}`).join(', ')

const REPORT = {
  report_id: `r-${LONG}`,
  check_id: 'c-1',
  created_at: '2026-11-25T09:00:00.000Z',
  entity: { entity_name: `Acme ${LONG}`, country: 'NL', kvk_number: LONG, entity_hash: 'ab'.repeat(32) },
  sanctions: {
    status: 'partial',
    result: 'possible_match',
    threshold: 0.6,
    reason: `not checked: ${LONG}`,
    lists: [{ list: LONG, date: '2026-11-20' }],
    matches: [
      {
        list: 'OFAC SDN',
        entry_id: LONG,
        matched_name: LONG,
        programmes: [...WORDS.split(', '), 'RUSSIA-EO14024', `LONG-${LONG}`],
        listed_on: '2022-04-07',
        match_score: 0.9,
        match_type: 'name_exact',
      },
    ],
  },
  pep: {
    status: 'ok',
    exposure: 'pep',
    matches: [
      {
        caption: LONG,
        schema_type: LONG,
        topics: [LONG],
        datasets: [LONG],
        score: 0.9,
        countries: ['nl'],
      },
    ],
  },
  domain: { status: 'ok', domain: `${LONG}.example`, domain_age_days: 12 },
  risk: {
    trust_score: 10,
    trust_level: LONG,
    recommendation: LONG,
    cluster: LONG,
    confidence: LONG,
    sources_checked: LONG,
  },
  findings: [{ factor: LONG, source: LONG, severity: 'critical', evidence: LONG }],
  correlations: {
    status: 'ok',
    scope_note: LONG,
    links: [{ report_id: LONG, kind: 'kvk_number', value: LONG, entity_name: LONG, created_at: LONG }],
  },
  sources: [{ source: LONG, status: 'ok', reason: LONG, fetched_at: LONG }],
  evidence: {
    report_hash: LONG,
    hash_algorithm: 'SHA-256',
    canonicalization: 'RFC 8785 (JCS)',
    signature: LONG,
    signature_algorithm: 'EdDSA (Ed25519)',
    key_id: LONG,
    jwks_url: `http://localhost/${LONG}`,
  },
} as unknown as EntityReport

/** The printable width of the PDF: A4 (210 mm) less the renderer's 12 mm side margins, in CSS pixels. */
const PRINTABLE_PX = Math.floor(((210 - 2 * 12) / 25.4) * 96)

describe('the report page printed on A4', () => {
  it('wraps long cells: no table, cell or line is wider than the printable area', async () => {
    const overflow = await withBrowserPage('about:blank', async (page) => {
      await page.setViewport({ width: PRINTABLE_PX, height: 1000 })
      await page.emulateMediaType('print')
      await page.setContent(reportHtml(REPORT), { waitUntil: 'load' })
      // Every table's right edge, and every cell whose content is wider than the cell.
      const tables = await page.$$eval('table', (nodes) =>
        nodes.map((table) => ({
          heading: table.previousElementSibling?.textContent?.slice(0, 40) ?? '',
          right: Math.ceil(table.getBoundingClientRect().right),
        })),
      )
      const overflowingCells = await page.$$eval('td,th', (nodes) =>
        nodes
          .filter((cell) => cell.scrollWidth > cell.clientWidth + 1)
          .map((cell) => cell.textContent?.slice(0, 30)),
      )
      const [width, pageWidth] = await page.$eval('html', (root) => [root.clientWidth, root.scrollWidth])
      // Short codes (programmes, dates) stay whole: a line never breaks at their hyphens.
      const brokenCodes = await page.$$eval('.nowrap', (nodes) =>
        nodes.filter((node) => node.getClientRects().length !== 1).map((node) => node.textContent),
      )
      const codes = await page.$$eval('.nowrap', (nodes) => nodes.map((node) => node.textContent))
      return {
        brokenCodes,
        codes,
        width,
        pageWidth,
        tables: tables.length,
        tooWide: tables.filter((table) => table.right > (width ?? 0)),
        overflowingCells,
      }
    })
    expect(overflow.width).toBe(PRINTABLE_PX)
    expect(overflow.tables).toBeGreaterThanOrEqual(9)
    expect(overflow.tooWide).toEqual([])
    expect(overflow.overflowingCells).toEqual([])
    expect(overflow.pageWidth).toBeLessThanOrEqual(PRINTABLE_PX)
    expect(overflow.codes).toEqual(expect.arrayContaining(['RUSSIA-EO14024', '2022-04-07']))
    expect(overflow.codes).not.toContain(`LONG-${LONG}`)
    expect(overflow.brokenCodes).toEqual([])
  }, 60_000)
})
