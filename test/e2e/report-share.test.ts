import { execFileSync, spawnSync } from 'node:child_process'
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { EntityReport } from '../../core/reports/report-schema.ts'
import type { Service } from '../../server/compose.ts'
import { chromiumPath, withBrowserPage } from '../support/browser.ts'
import { ARTIFACTS, DONALD, type ReportService, startReportService } from '../support/report-service.ts'

/** The same register entry under a name the (fake) sanctions lists carry: a hit. */
const LISTED_NAME = 'Example Avionics Joint Stock Company'
const HIT = { entity_name: LISTED_NAME, country: 'NL', kvk_number: '68750110' }

interface PageFacts {
  h1: string
  banner: string
  background: string
  headers: { text: string; lines: number }[]
  cells: string[]
}

/**
 * What the page shows, read in the browser: the heading, the verdict banner and its colour, each
 * table header with the number of lines its text takes, and every cell. (A string: it runs in the
 * page, whose DOM types this Node project does not load.)
 */
const PAGE_FACTS = `(() => {
  const banner = document.querySelector('.verdict')
  const headers = [...document.querySelectorAll('th')].map((th) => {
    const range = document.createRange()
    range.selectNodeContents(th)
    const lines = new Set([...range.getClientRects()].map((rect) => Math.round(rect.top)))
    return { text: th.textContent ?? '', lines: lines.size }
  })
  return {
    h1: document.querySelector('h1')?.textContent ?? '',
    banner: banner?.textContent ?? '',
    background: banner ? getComputedStyle(banner).backgroundColor : '',
    headers,
    cells: [...document.querySelectorAll('td')].map((td) => td.textContent ?? ''),
  }
})()`

/** The link as this test's server answers it (the service names its public base URL). */
const onServer = (url: string, baseUrl: string) => {
  const parsed = new URL(url)
  return `${baseUrl}${parsed.pathname}${parsed.search}`
}

describe('report share links: POST /v1/reports/{id}/share, GET ?token=, revocation, the page and its PDF', () => {
  let running: ReportService | undefined
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }
  let keyA: string
  let keyB: string
  let clear: EntityReport
  let hit: EntityReport
  /** The service's clock runs this many milliseconds ahead (expiry without waiting). */
  let ahead = 0

  const report = async (body: unknown, apiKey: string) => {
    const response = await fetch(`${server.baseUrl}/v1/reports/entity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
    })
    expect(response.status).toBe(200)
    return (await response.json()) as EntityReport
  }
  const share = (id: string, apiKey: string, body: unknown = {}) =>
    fetch(`${server.baseUrl}/v1/reports/${id}/share`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
    })
  const shared = async (id: string, body: unknown = {}) => {
    const response = await share(id, keyA, body)
    expect(response.status).toBe(201)
    const link = (await response.json()) as {
      share_id: string
      url: string
      token: string
      expires_at: string
    }
    return { ...link, url: onServer(link.url, server.baseUrl), sent: link.url }
  }

  beforeAll(async () => {
    // The fake screen's match, with the programme and listing date the real lists publish, on
    // lists published yesterday (a stale list makes no report clear).
    const yesterday = new Date(Date.now() - 86_400_000).toISOString().slice(0, 10)
    running = await startReportService({
      companies: { sanctioned: [LISTED_NAME] },
      config: { CHROMIUM_PATH: chromiumPath() },
      overrides: { clock: { now: () => new Date(Date.now() + ahead) } },
      sanctions: (screen) => ({
        ...screen,
        screenName: async (name, country, options) => {
          const result = await screen.screenName(name, country, options)
          if (result.status !== 'ok') return result
          const lists_checked = result.coverage.lists_checked.map((list) => ({
            ...list,
            publication_date: yesterday,
            as_of: yesterday,
            age_days: 1,
            stale: false,
            stale_reason: null,
          }))
          return {
            ...result,
            coverage: { ...result.coverage, lists_checked },
            list_dates: Object.fromEntries(lists_checked.map((list) => [list.list, yesterday])),
            matches: result.matches.map((match) => ({
              ...match,
              programmes: ['RUSSIA-EO14024'],
              listed_on: '2022-04-07',
            })),
          }
        },
      }),
    })
    ;({ service, server } = running)
    keyA = await running.createKey('a@example.com')
    keyB = await running.createKey('b@example.com')
    clear = await report(DONALD, keyA)
    hit = await report(HIT, keyA)
    await mkdir(ARTIFACTS, { recursive: true })
  }, 120_000)

  afterAll(async () => {
    await running?.close()
  })

  it('the two reports are a clear entity and a sanctions hit', () => {
    expect(clear.sanctions).toMatchObject({ status: 'ok', result: 'no_match' })
    expect(hit.sanctions).toMatchObject({ status: 'ok', result: 'possible_match' })
    expect(hit.sanctions.matches[0]).toMatchObject({
      programmes: ['RUSSIA-EO14024'],
      listed_on: '2022-04-07',
    })
  })

  it('a link opens its one report without a key: JSON, then the page for a browser', async () => {
    const link = await shared(clear.report_id, { expires_in_seconds: 3600 })
    expect(link.share_id).toMatch(/^shr_/)
    expect(link.sent).toBe(
      `http://localhost:${service.config.PORT}/v1/reports/${clear.report_id}?token=${link.token}`,
    )
    const expires = Date.parse(link.expires_at) - Date.now()
    expect(expires).toBeGreaterThan(3590_000)
    expect(expires).toBeLessThanOrEqual(3601_000)

    const json = await fetch(link.url)
    expect(json.status).toBe(200)
    expect(json.headers.get('cache-control')).toBe('private, no-store')
    expect(json.headers.get('referrer-policy')).toBe('no-referrer')
    expect(await json.json()).toEqual(clear)

    const html = await fetch(link.url, { headers: { accept: 'text/html,application/xhtml+xml' } })
    expect(html.status).toBe(200)
    expect(html.headers.get('content-type')).toContain('text/html')
    const page = await html.text()
    expect(page).toContain('Entity report: Test BV Donald')
    expect(page).toContain('CLEAR: no sanctions match')
  })

  it('a token never opens another report: altered, moved to another report or forged is 401', async () => {
    const link = await shared(clear.report_id)
    const other = await fetch(`${server.baseUrl}/v1/reports/${hit.report_id}?token=${link.token}`)
    expect(other.status).toBe(401)
    const problem = (await other.json()) as Record<string, unknown>
    expect(problem).toMatchObject({ status: 401, errorCode: 'share_token_invalid' })
    expect(JSON.stringify(problem)).not.toContain(LISTED_NAME)

    const parts = link.token.split('.')
    const later = `${parts[0]}.${parts[1]}.${Number(parts[2]) + 86_400}.${parts[3]}`
    for (const token of [later, `${link.token.slice(0, -2)}AA`, 'v1.shr_x.1.y', 'nonsense', '']) {
      const response = await fetch(
        `${server.baseUrl}/v1/reports/${clear.report_id}?token=${encodeURIComponent(token)}`,
      )
      expect(response.status, token).toBe(401)
      expect(response.headers.get('content-type')).toContain('application/problem+json')
    }
  })

  it('only the key that owns the report makes links; the life is bounded (422 naming the field)', async () => {
    expect((await share(clear.report_id, keyB)).status).toBe(404)
    expect((await share('no-such-report', keyA)).status).toBe(404)
    const keyless = await fetch(`${server.baseUrl}/v1/reports/${clear.report_id}/share`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{}',
    })
    // Like every route on a key's own data: without a customer key, 403 "Tenant context required".
    expect(keyless.status).toBe(403)
    expect(JSON.stringify(await keyless.json())).toContain('Tenant context required')
    const tooLong = await share(clear.report_id, keyA, { expires_in_seconds: 31 * 24 * 3600 })
    expect(tooLong.status).toBe(422)
    expect(JSON.stringify(await tooLong.json())).toContain('expires_in_seconds')
  })

  it('a revoked link is 410 at once; revoking again is fine; another key cannot revoke it', async () => {
    const link = await shared(clear.report_id)
    const revoke = (apiKey: string, shareId = link.share_id) =>
      fetch(`${server.baseUrl}/v1/reports/shares/${shareId}`, {
        method: 'DELETE',
        headers: { 'x-api-key': apiKey },
      })
    expect((await revoke(keyB)).status).toBe(404)
    expect((await fetch(link.url)).status).toBe(200)
    expect((await revoke(keyA)).status).toBe(204)
    const gone = await fetch(link.url)
    expect(gone.status).toBe(410)
    expect(await gone.json()).toMatchObject({ errorCode: 'share_revoked' })
    expect((await revoke(keyA)).status).toBe(204)
    expect((await revoke(keyA, 'shr_unknown')).status).toBe(404)
  })

  it('an expired link is 410', async () => {
    const link = await shared(clear.report_id, { expires_in_seconds: 60 })
    expect((await fetch(link.url)).status).toBe(200)
    ahead = 61_000
    try {
      const expired = await fetch(link.url)
      expect(expired.status).toBe(410)
      expect(await expired.json()).toMatchObject({ errorCode: 'share_expired' })
    } finally {
      ahead = 0
    }
  })

  it('the page in headless Chromium: name, verdict banner in colour and words, labels, the match, unbroken headers', async () => {
    const look = async (reportOf: EntityReport, file: string) => {
      const link = await shared(reportOf.report_id)
      return withBrowserPage(link.url, async (page, errors) => {
        await page.screenshot({ path: path.join(ARTIFACTS, file), fullPage: true })
        const facts = (await page.evaluate(PAGE_FACTS)) as PageFacts
        return { ...facts, errors }
      })
    }
    const green = await look(clear, 'report-clear.png')
    const red = await look(hit, 'report-hit.png')
    for (const seen of [green, red]) {
      expect(seen.errors).toEqual({ console: [], requests: [], page: [] })
      expect(seen.headers.length).toBeGreaterThan(10)
      for (const header of seen.headers) expect(header.lines, header.text).toBe(1)
    }
    expect(green.h1).toBe('Entity report: Test BV Donald')
    expect(green.banner).toContain('CLEAR')
    expect(green.background).toBe('rgb(230, 244, 234)')
    expect(green.cells).toEqual(expect.arrayContaining(['KVK (Dutch business register)', 'Answered']))
    expect(green.cells).not.toContain('kvk')

    expect(red.h1).toBe(`Entity report: ${LISTED_NAME}`)
    expect(red.banner).toContain('HIT: possible sanctions match')
    expect(red.background).toBe('rgb(253, 232, 232)')
    expect(red.cells).toEqual(
      expect.arrayContaining([
        LISTED_NAME,
        'RUSSIA-EO14024',
        '2022-04-07',
        'Exact name',
        'Sanctions flagged',
      ]),
    )
    // List versions and ages, from the coverage of the screen.
    expect(red.headers.map((header) => header.text)).toEqual(
      expect.arrayContaining(['Version (published)', 'Age', 'Programme', 'Listed on']),
    )
  }, 90_000)

  it('format=pdf: the printed page as a PDF (by link and by key), first page turned into a PNG', async () => {
    const link = await shared(hit.report_id)
    const byLink = await fetch(`${link.url}&format=pdf`)
    expect(byLink.status).toBe(200)
    expect(byLink.headers.get('content-type')).toBe('application/pdf')
    const bytes = Buffer.from(await byLink.arrayBuffer())
    expect(bytes.subarray(0, 5).toString()).toBe('%PDF-')
    const byKey = await fetch(`${server.baseUrl}/v1/reports/${hit.report_id}?format=pdf`, {
      headers: { 'x-api-key': keyA },
    })
    expect(byKey.status).toBe(200)
    expect(
      Buffer.from(await byKey.arrayBuffer())
        .subarray(0, 5)
        .toString(),
    ).toBe('%PDF-')
    const pdfPath = path.join(ARTIFACTS, 'report-hit.pdf')
    await writeFile(pdfPath, bytes)

    const poppler = spawnSync('pdftoppm', ['-v'])
    if (poppler.error) {
      console.warn('pdftoppm not installed (run .ci/ensure-poppler.sh): the PDF page image is not checked')
      return
    }
    const prefix = path.join(ARTIFACTS, 'report-hit-pdf')
    await rm(`${prefix}-1.png`, { force: true })
    execFileSync('pdftoppm', ['-png', '-r', '80', '-f', '1', '-l', '1', pdfPath, prefix])
    const png = await readFile(`${prefix}-1.png`)
    expect(png.subarray(1, 4).toString()).toBe('PNG')
    // An A4 page (8.27 x 11.69 in) at 80 dpi, as pdftoppm rounds it: 663 x 936 pixels.
    expect(png.readUInt32BE(16)).toBe(663)
    expect(png.readUInt32BE(20)).toBe(936)
    // The text layer carries the name, the verdict and the match.
    const text = (
      spawnSync('pdftotext', ['-f', '1', '-l', '1', pdfPath, '-']).stdout?.toString() ?? ''
    ).replace(/\s+/g, ' ')
    expect(text).toContain(LISTED_NAME)
    expect(text).toContain('HIT: possible sanctions match')
    expect(text).toContain('RUSSIA-EO14024')
  }, 90_000)
})
