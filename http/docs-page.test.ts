import { mkdir } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { operations as registry } from '../core/operations/index.ts'
import type { Service } from '../server/compose.ts'
import { withBrowserPage } from '../test/support/browser.ts'
import { createTestService, listen } from '../test/support/service.ts'

/** Git-ignored folder for what tests produce for people to look at (screenshots). */
const ARTIFACTS = path.join(process.cwd(), 'test-artifacts')

describe('/docs: the interactive API reference in headless Chromium', () => {
  let service: Service
  let server: { baseUrl: string; close(): Promise<void> }

  beforeAll(async () => {
    service = await createTestService()
    server = await listen(service)
  })
  afterAll(async () => {
    await server?.close()
    await service?.close()
  })

  it('loads from the service alone (no CDN), without console errors, and lists every operation', async () => {
    const document = (await (await fetch(`${server.baseUrl}/openapi.json`)).json()) as {
      paths: Record<string, Record<string, { operationId: string }>>
    }
    const documented = Object.values(document.paths).flatMap((item) =>
      Object.values(item).map((operation) => operation.operationId),
    )
    await mkdir(ARTIFACTS, { recursive: true })
    const result = await withBrowserPage(`${server.baseUrl}/docs`, async (page, errors) => {
      await page.waitForSelector('.opblock', { timeout: 20_000 })
      const shown = await page.$$eval('.opblock-summary-operation-id', (nodes) =>
        nodes.map((node) => node.textContent?.trim() ?? ''),
      )
      const requests: string[] = []
      page.on('request', (request) => requests.push(request.url()))
      await page.screenshot({ path: path.join(ARTIFACTS, 'docs.png'), fullPage: true })
      return { shown, errors, title: await page.title(), requests }
    })
    expect(result.errors.console).toEqual([])
    expect(result.errors.page).toEqual([])
    expect(result.errors.requests).toEqual([])
    expect(result.title).toContain('API reference')
    for (const operation of registry) expect(result.shown, operation.id).toContain(operation.id)
    // An operation with two tags is shown under both.
    expect([...new Set(result.shown)].sort()).toEqual([...documented].sort())
  }, 60_000)

  it('serves only the listed Swagger UI files', async () => {
    const script = await fetch(`${server.baseUrl}/docs/swagger-ui-bundle.js`)
    expect(script.status).toBe(200)
    expect(script.headers.get('content-type')).toContain('javascript')
    await script.arrayBuffer()
    const other = await fetch(`${server.baseUrl}/docs/package.json`)
    expect(other.status).toBe(404)
    expect(other.headers.get('content-type')).toContain('application/problem+json')
    await other.arrayBuffer()
    const traversal = await fetch(`${server.baseUrl}/docs/..%2Fpackage.json`)
    expect(traversal.status).toBe(404)
    await traversal.arrayBuffer()
  })
})
