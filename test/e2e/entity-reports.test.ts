import { createPublicKey } from 'node:crypto'
import { mkdir, mkdtemp, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Client } from '@modelcontextprotocol/sdk/client/index.js'
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js'
import { XMLParser, XMLValidator } from 'fast-xml-parser'
import { CompactSign, generateKeyPair, type JWK } from 'jose'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { main as cli } from '../../client/cli.ts'
import { PRICES } from '../../core/payments/pricing.ts'
import {
  buildEvidence,
  canonicalReportBytes,
  ephemeralSigner,
  verifyReport,
} from '../../core/reports/evidence.ts'
import type { EntityReport } from '../../core/reports/report-schema.ts'
import { withBrowserPage } from '../support/browser.ts'
import { ARTIFACTS, DONALD, type ReportService, startReportService } from '../support/report-service.ts'
import { problemOf } from '../support/tool-errors.ts'

const ACCOUNT_PRICE = PRICES.entity_report.account.fresh

describe('entity reports: POST /v1/reports/entity, GET /v1/reports/{id}, evidence, badge', () => {
  let running: ReportService | undefined
  let server: { baseUrl: string; close(): Promise<void> }
  let keyA: string
  let keyB: string
  let sandboxKey: string
  let first: EntityReport

  beforeAll(async () => {
    running = await startReportService()
    server = running.server
    keyA = await running.createKey('a@example.com')
    keyB = await running.createKey('b@example.com')
    const sandbox = await fetch(`${server.baseUrl}/v1/keys/create`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'dev@example.com', tier: 'sandbox' }),
    })
    sandboxKey = ((await sandbox.json()) as { api_key: string }).api_key
  }, 120_000)

  afterAll(async () => {
    await running?.close()
  })

  const post = (body: unknown, apiKey: string) =>
    fetch(`${server.baseUrl}/v1/reports/entity`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
      body: JSON.stringify(body),
    })
  const getReport = (id: string, apiKey: string, headers: Record<string, string> = {}) =>
    fetch(`${server.baseUrl}/v1/reports/${id}`, { headers: { 'x-api-key': apiKey, ...headers } })
  const jwks = async () =>
    (await (await fetch(`${server.baseUrl}/.well-known/jwks.json`)).json()) as { keys: JWK[] }

  it('runs one real entity check and answers the report at the account price; GET returns the same report', async () => {
    const response = await post(DONALD, keyA)
    expect(response.status).toBe(200)
    expect(response.headers.get('x-charged-amount')).toBe(ACCOUNT_PRICE.toString())
    first = (await response.json()) as EntityReport
    expect(first).toMatchObject({
      entity: { entity_name: 'Test BV Donald', country: 'NL', kvk_number: '68750110' },
      sanctions: { status: 'ok', result: 'no_match' },
      pep: { status: 'ok', exposure: 'none' },
      domain: { status: 'ok', domain: 'example.com' },
      correlations: { status: 'ok', links: [] },
      evidence: { hash_algorithm: 'SHA-256', canonicalization: 'RFC 8785 (JCS)' },
    })
    expect(first.risk.trust_score).toBeGreaterThanOrEqual(0)
    expect(first.sources.map((source) => source.source)).toEqual(
      expect.arrayContaining(['kvk', 'vies', 'rdap', 'opensanctions']),
    )
    const again = await getReport(first.report_id, keyA)
    expect(again.status).toBe(200)
    expect(await again.json()).toEqual(first)
  })

  it('evidence: the hash and detached JWS verify with the published JWKS; one altered field fails', async () => {
    const keys = await jwks()
    expect(keys.keys).toHaveLength(1)
    expect(keys.keys[0]).toMatchObject({ kty: 'OKP', crv: 'Ed25519', kid: first.evidence.key_id })
    expect(keys.keys[0]).not.toHaveProperty('d')
    expect(await verifyReport(first, keys)).toMatchObject({
      ok: true,
      hash_matches: true,
      signature_valid: true,
    })
    const altered = structuredClone(first)
    altered.risk.trust_score = (altered.risk.trust_score + 1) % 101
    const outcome = await verifyReport(altered, keys)
    expect(outcome).toMatchObject({ ok: false, hash_matches: false, signature_valid: false })
    // A forged hash that matches the altered content still fails on the signature.
    const forged = { ...altered, evidence: { ...altered.evidence, report_hash: outcome.computed_hash } }
    expect(await verifyReport(forged, keys)).toMatchObject({
      ok: false,
      hash_matches: true,
      signature_valid: false,
    })
    const selfVerify = (await (await fetch(`${server.baseUrl}/v1/self-verify`)).json()) as {
      report_signing: { key_id: string }
    }
    expect(selfVerify.report_signing.key_id).toBe(first.evidence.key_id)
  })

  it('validation-cli reports verify: exit 0 for the stored report, 1 once any field is changed', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'report-verify-'))
    const jwksFile = path.join(dir, 'jwks.json')
    await writeFile(jwksFile, JSON.stringify(await jwks()))
    const stored = (await (await getReport(first.report_id, keyA)).json()) as EntityReport
    const intact = path.join(dir, 'report.json')
    await writeFile(intact, JSON.stringify(stored, null, 2))
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    const err = vi.spyOn(process.stderr, 'write').mockImplementation(() => true)
    try {
      expect(await cli(['reports', 'verify', intact, '--jwks', jwksFile])).toBe(0)
      expect(
        await cli(['reports', 'verify', intact, '--jwks', `${server.baseUrl}/.well-known/jwks.json`]),
      ).toBe(0)
      for (const change of [
        (report: EntityReport) => {
          report.entity.entity_name = 'Test BV Donald Duck'
        },
        (report: EntityReport) => {
          report.sanctions.result = 'possible_match'
        },
        (report: EntityReport) => {
          report.created_at = '2020-01-01T00:00:00.000Z'
        },
      ]) {
        const copy = structuredClone(stored)
        change(copy)
        const file = path.join(dir, 'altered.json')
        await writeFile(file, JSON.stringify(copy))
        expect(await cli(['reports', 'verify', file, '--jwks', jwksFile])).toBe(1)
      }
      expect(await cli(['reports', 'verify'])).toBe(2)
    } finally {
      out.mockRestore()
      err.mockRestore()
    }
  })

  it('validation-cli reports verify: a report re-signed by an attacker whose JWKS answers never verifies', async () => {
    // The attacker's JWKS server really answers, with the attacker's Ed25519 public key.
    const attacker = await ephemeralSigner()
    let attackerHits = 0
    const attackerServer = createServer((_request, response) => {
      attackerHits++
      response.writeHead(200, { 'content-type': 'application/json' })
      response.end(JSON.stringify({ keys: [attacker.publicJwk] }))
    })
    await new Promise<void>((resolve) => attackerServer.listen(0, '127.0.0.1', resolve))
    const attackerJwks = `http://127.0.0.1:${(attackerServer.address() as AddressInfo).port}/.well-known/jwks.json`
    const dir = await mkdtemp(path.join(tmpdir(), 'report-forged-'))
    const genuineJwks = await jwks()
    const jwksFile = path.join(dir, 'jwks.json')
    await writeFile(jwksFile, JSON.stringify(genuineJwks))
    const stored = (await (await getReport(first.report_id, keyA)).json()) as EntityReport
    const genuine = path.join(dir, 'genuine.json')
    await writeFile(genuine, JSON.stringify(stored))
    // The forgery: content changed, hashed and signed again with the attacker's key, pointing at it.
    const { evidence: _genuineEvidence, ...content } = structuredClone(stored)
    content.entity.entity_name = 'Forged Holding BV'
    content.risk.trust_score = 100
    const forgedReport = { ...content, evidence: await buildEvidence(content, attacker, attackerJwks) }
    const forged = path.join(dir, 'forged.json')
    await writeFile(forged, JSON.stringify(forgedReport))
    // The same forgery naming the service's own kid in its signed header (signed by the attacker).
    const attackerKey = await generateKeyPair('EdDSA', { crv: 'Ed25519' })
    const bytes = canonicalReportBytes(content)
    const [header, , signature] = (
      await new CompactSign(bytes)
        .setProtectedHeader({ alg: 'EdDSA', kid: stored.evidence.key_id })
        .sign(attackerKey.privateKey)
    ).split('.')
    const spoofedKid = path.join(dir, 'spoofed-kid.json')
    await writeFile(
      spoofedKid,
      JSON.stringify({
        ...forgedReport,
        evidence: {
          ...forgedReport.evidence,
          key_id: stored.evidence.key_id,
          signature: `${header}..${signature}`,
        },
      }),
    )
    // A pinned kid-to-key file holding the service's key as PEM.
    const pinned = path.join(dir, 'pinned-keys.json')
    const servicePem = createPublicKey({
      key: genuineJwks.keys[0] as import('node:crypto').JsonWebKey,
      format: 'jwk',
    })
      .export({ type: 'spki', format: 'pem' })
      .toString()
    await writeFile(pinned, JSON.stringify({ [stored.evidence.key_id]: servicePem }))
    // The genuine report with an unsigned evidence field changed.
    const movedJwks = path.join(dir, 'moved-jwks.json')
    await writeFile(
      movedJwks,
      JSON.stringify({ ...stored, evidence: { ...stored.evidence, jwks_url: attackerJwks } }),
    )
    const otherKid = path.join(dir, 'other-kid.json')
    await writeFile(
      otherKid,
      JSON.stringify({ ...stored, evidence: { ...stored.evidence, key_id: attacker.keyId } }),
    )

    const stderr: string[] = []
    const out = vi.spyOn(process.stdout, 'write').mockImplementation(() => true)
    const err = vi.spyOn(process.stderr, 'write').mockImplementation((chunk) => {
      stderr.push(String(chunk))
      return true
    })
    vi.stubEnv('VALIDATION_API_URL', '')
    vi.stubEnv('VALIDATION_JWKS', '')
    const verify = async (...args: string[]) => {
      stderr.length = 0
      return cli(['reports', 'verify', ...args])
    }
    try {
      // No key chosen: refused, and the report's own URL is not fetched.
      expect(await verify(forged)).toBe(2)
      expect(stderr.join('')).toContain('no trusted keys chosen')
      // Against the service's keys, offline, online and pinned: not verified, saying why.
      for (const args of [
        ['--jwks', jwksFile],
        ['--url', server.baseUrl],
        ['--jwks', `${server.baseUrl}/.well-known/jwks.json`],
        ['--jwks', pinned],
      ]) {
        expect(await verify(forged, ...args), args.join(' ')).toBe(1)
        expect(stderr.join(''), args.join(' ')).toContain(`NOT VERIFIED: ${forged} against the keys from`)
        expect(stderr.join(''), args.join(' ')).toContain(
          `the signing key ${attacker.keyId} is not in the trusted JWKS`,
        )
        expect(await verify(spoofedKid, ...args), args.join(' ')).toBe(1)
        expect(stderr.join(''), args.join(' ')).toContain('signature does not verify')
      }
      vi.stubEnv('VALIDATION_API_URL', server.baseUrl)
      expect(await verify(forged)).toBe(1)
      expect(attackerHits).toBe(0)
      // The genuine report passes offline, online (pinned service URL, flag or environment) and
      // with a pinned kid-to-key file.
      for (const args of [['--jwks', jwksFile], ['--url', server.baseUrl], [], ['--jwks', pinned]]) {
        expect(await verify(genuine, ...args), args.join(' ') || 'VALIDATION_API_URL').toBe(0)
      }
      // Evidence fields outside the content are covered too: the signed header names kid and jku.
      expect(await verify(movedJwks, '--jwks', jwksFile)).toBe(1)
      expect(stderr.join('')).toContain('evidence.jwks_url')
      expect(await verify(otherKid, '--jwks', jwksFile)).toBe(1)
      expect(stderr.join('')).toContain('evidence.key_id')
      expect(attackerHits).toBe(0)
      // The forgery itself is sound: with the attacker's JWKS chosen explicitly it verifies, which is
      // why only a JWKS the verifier chose can be trusted.
      expect(await verify(forged, '--jwks', attackerJwks)).toBe(0)
      expect(attackerHits).toBe(1)
    } finally {
      vi.unstubAllEnvs()
      out.mockRestore()
      err.mockRestore()
      await new Promise((resolve) => attackerServer.close(resolve))
    }
  })

  it("correlations link this key's earlier reports by shared identifiers, never another key's", async () => {
    const other = { entity_name: 'Other Trading BV', country: 'NL', vat_number: DONALD.vat_number }
    const second = (await (await post(other, keyA)).json()) as EntityReport
    expect(second.correlations.links).toEqual([
      expect.objectContaining({ report_id: first.report_id, kind: 'vat_number', value: 'NL857587973B01' }),
    ])
    expect(second.correlations.scope_note).toContain('own earlier reports')
    const response = await post(other, keyB)
    expect(response.status).toBe(200)
    const foreign = (await response.json()) as EntityReport
    expect(foreign.correlations.links).toEqual([])
  })

  it("another key's report and an unknown id are 404; sandbox keys are 403; bad input names the field", async () => {
    for (const [id, key] of [
      [first.report_id, keyB],
      ['00000000-0000-4000-8000-000000000000', keyA],
    ] as const) {
      const response = await getReport(id, key)
      expect(response.status).toBe(404)
      expect(response.headers.get('content-type')).toContain('application/problem+json')
      await response.arrayBuffer()
    }
    const sandbox = await post(DONALD, sandboxKey)
    expect(sandbox.status).toBe(403)
    await sandbox.arrayBuffer()
    // A missing field is 400 (spec: Errors), still naming it.
    const missing = await post({ country: 'NL' }, keyA)
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({
      detail: [{ field: 'entity_name', message: 'is required unless check_id is given' }],
    })
    const wrong = await post({ entity_name: 'Test BV Donald', country: 'nl' }, keyA)
    expect(wrong.status).toBe(422)
    expect(await wrong.json()).toMatchObject({ detail: [{ field: 'country' }] })
  })

  it('gives every report error instance (the request path) and errorCode, over REST and MCP', async () => {
    const problemAt = async (response: Response) => {
      expect(response.headers.get('content-type')).toBe('application/problem+json')
      return (await response.json()) as Record<string, unknown>
    }
    const unknownId = '00000000-0000-4000-8000-000000000000'
    const bodyOf = (json: string, apiKey = keyA) =>
      fetch(`${server.baseUrl}/v1/reports/entity`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-api-key': apiKey },
        body: json,
      })
    const cases: [string, Promise<Response>, number, string][] = [
      ['unknown report', getReport(unknownId, keyA), 404, 'report_not_found'],
      ['missing field', post({ country: 'NL' }, keyA), 400, 'missing_field'],
      ['wrong value', post({ entity_name: 'Test BV Donald', country: 'nl' }, keyA), 422, 'validation_failed'],
      ['malformed JSON', bodyOf('{"entity_name":'), 400, 'bad_request'],
      ['unknown check_id', post({ check_id: unknownId }, keyA), 404, 'check_not_found'],
      ['sandbox key', post(DONALD, sandboxKey), 403, 'forbidden'],
      ['unknown key', post(DONALD, `svc_live_${'x'.repeat(43)}`), 401, 'unauthorized'],
      [
        'too large',
        bodyOf(JSON.stringify({ entity_name: 'x'.repeat(300 * 1024), country: 'NL' })),
        413,
        'payload_too_large',
      ],
      [
        'wrong method',
        fetch(`${server.baseUrl}/v1/reports/entity`, { method: 'PUT' }),
        405,
        'method_not_allowed',
      ],
    ]
    for (const [what, pending, status, errorCode] of cases) {
      const response = await pending
      expect(response.status, what).toBe(status)
      const path = new URL(response.url).pathname
      expect(await problemAt(response), what).toMatchObject({
        type: 'about:blank',
        status,
        instance: path,
        errorCode,
      })
    }
    // Other routes keep the plain problem document.
    const other = await fetch(`${server.baseUrl}/v1/sanctions/screen`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keyA },
      body: '{}',
    })
    expect(await problemAt(other)).not.toHaveProperty('instance')

    const client = new Client({ name: 'report-errors', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'X-API-Key': keyA } },
      }),
    )
    expect(
      problemOf(await client.callTool({ name: 'report_get', arguments: { report_id: unknownId } })),
    ).toMatchObject({
      status: 404,
      instance: `/v1/reports/${unknownId}`,
      errorCode: 'report_not_found',
    })
    expect(
      problemOf(await client.callTool({ name: 'entity_report', arguments: { country: 'NL' } })),
    ).toMatchObject({
      status: 400,
      instance: '/v1/reports/entity',
      errorCode: 'missing_field',
      detail: [{ field: 'entity_name' }],
    })
    await client.close()
  })

  it("takes check_id of this key's stored entity check; another key's check_id is 404", async () => {
    const check = await fetch(`${server.baseUrl}/v1/entity/check`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': keyA },
      body: JSON.stringify({ entity_name: 'Test BV Donald', country: 'NL', kvk_number: '68750110' }),
    })
    const { check_id } = (await check.json()) as { check_id: string }
    const report = await post({ check_id }, keyA)
    expect(report.status).toBe(200)
    expect(await report.json()).toMatchObject({ check_id, entity: { kvk_number: '68750110' } })
    const foreign = await post({ check_id }, keyB)
    expect(foreign.status).toBe(404)
    await foreign.arrayBuffer()
  })

  it('MCP: entity_report and report_get tools answer the same signed report', async () => {
    const client = new Client({ name: 'report-agent', version: '1.0.0' })
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.baseUrl}/mcp`), {
        requestInit: { headers: { 'x-api-key': keyA } },
      }),
    )
    try {
      const built = await client.callTool({ name: 'entity_report', arguments: DONALD })
      expect(built.isError).toBeFalsy()
      const report = built.structuredContent as EntityReport
      expect(await verifyReport(report, await jwks())).toMatchObject({ ok: true })
      const fetched = await client.callTool({
        name: 'report_get',
        arguments: { report_id: report.report_id },
      })
      expect(fetched.structuredContent).toEqual(report)
      const unknown = await client.callTool({ name: 'report_get', arguments: { report_id: 'nope' } })
      expect(unknown.isError).toBe(true)
      expect(problemOf(unknown)).toMatchObject({ status: 404 })
    } finally {
      await client.close()
    }
  })

  it('badge: public SVG with trust level and date of the latest report, "unknown" otherwise, no personal data', async () => {
    const parser = new XMLParser({ ignoreAttributes: false })
    for (const [id, expected] of [
      [
        first.entity.entity_hash,
        `${first.risk.trust_level.replace('_', ' ')} · ${first.created_at.slice(0, 10)}`,
      ],
      ['0'.repeat(64), 'unknown'],
      ['not-an-entity-id', 'unknown'],
    ] as const) {
      const response = await fetch(`${server.baseUrl}/v1/badge/${id}`)
      expect(response.status).toBe(200)
      expect(response.headers.get('content-type')).toContain('image/svg+xml')
      expect(response.headers.get('cache-control')).toMatch(/max-age=\d+/)
      const text = await response.text()
      expect(XMLValidator.validate(text)).toBe(true)
      const svg = parser.parse(text).svg
      expect(svg['@_xmlns']).toBe('http://www.w3.org/2000/svg')
      expect(svg.title).toBe(`trust: ${expected}`)
      expect(text).not.toContain('Donald')
      expect(text).not.toContain('68750110')
    }
    // Even with a bad key the badge is public.
    const withBadKey = await fetch(`${server.baseUrl}/v1/badge/${first.entity.entity_hash}`, {
      headers: { 'x-api-key': 'vk_live_nonsense' },
    })
    expect(withBadKey.status).toBe(200)
    await withBadKey.arrayBuffer()
  })

  it('Accept: text/html gives a printable page (escaped values, sources, evidence) with no console errors', async () => {
    const response = await getReport(first.report_id, keyA, { accept: 'text/html' })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/html')
    const html = await response.text()
    expect(html).toContain(first.evidence.report_hash)
    expect(html).toContain(first.evidence.signature)
    expect(html).not.toMatch(/<script/i)
    // The browser gets the page with ?format=html (it cannot send the key header on navigation):
    // a route in front of the service adds the key, as a proxy of the customer would.
    await mkdir(ARTIFACTS, { recursive: true })
    const result = await withBrowserPage('about:blank', async (page, errors) => {
      await page.setExtraHTTPHeaders({ 'x-api-key': keyA })
      await page.goto(`${server.baseUrl}/v1/reports/${first.report_id}?format=html`, {
        waitUntil: 'networkidle0',
      })
      await page.screenshot({ path: path.join(ARTIFACTS, 'entity-report.png'), fullPage: true })
      const headings = await page.$$eval('h2', (nodes) => nodes.map((node) => node.textContent ?? ''))
      const cells = await page.$$eval('td', (nodes) => nodes.map((node) => node.textContent ?? ''))
      return { errors, headings, cells, title: await page.title() }
    })
    expect(result.errors.console).toEqual([])
    expect(result.errors.page).toEqual([])
    expect(result.errors.requests).toEqual([])
    expect(result.title).toContain(first.report_id)
    expect(result.headings).toEqual(expect.arrayContaining(['Sources', 'Findings', 'Evidence', 'Sanctions']))
    expect(result.cells).toEqual(
      expect.arrayContaining(['KVK (Dutch business register)', first.evidence.report_hash]),
    )
  }, 60_000)
})
