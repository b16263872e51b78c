import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  EU_LEGACY_FILE,
  readShared,
  sanctionsDataPath,
  UN_FILES,
} from '../../test/support/sanctions/shared-data.ts'
import { ServiceError } from '../errors.ts'
import { ListParseError } from './list-parse-error.ts'
import { detectListFormat, loadListSource, parseListFile, parseListSource } from './list-source.ts'

const fixture = (name: string) => new URL(`./fixtures/${name}`, import.meta.url).pathname
const unBytes = readShared(UN_FILES['2026-02-27'])
const bz2Fixture = readFileSync(fixture('un-handmade.xml.bz2'))
const plainFixture = readFileSync(fixture('un-handmade.xml'))
const sha256 = (bytes: Uint8Array) => createHash('sha256').update(bytes).digest('hex')

describe('detectListFormat', () => {
  it('detects each supported format from its first bytes', () => {
    expect(detectListFormat(unBytes)).toBe('un_xml')
    expect(detectListFormat(readShared(EU_LEGACY_FILE))).toBe('eu_legacy_xml')
    expect(detectListFormat(readFileSync(fixture('eu-fsf-handmade.xml')))).toBe('eu_fsf_xml')
    expect(detectListFormat(readShared('ofac/csv/2024-05-03/sdn.csv'))).toBe('ofac_sdn_csv')
    const advancedHead =
      '\uFEFF<?xml version="1.0" encoding="utf-8"?>\n<Sanctions xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ADVANCED_XML" Version="3">'
    expect(detectListFormat(Buffer.from(advancedHead))).toBe('ofac_sdn_advanced_xml')
  })

  it("refuses OFAC's classic sdn.xml, HTML error pages and still-compressed bytes", () => {
    expect(() => detectListFormat(readShared('ofac/sdnlist_xml/2025-03-28/consolidated.xml'))).toThrow(
      /classic OFAC sdn.xml is not supported/,
    )
    expect(() =>
      detectListFormat(Buffer.from('<!DOCTYPE html><html><body>Service Unavailable</body></html>')),
    ).toThrow(/unrecognised XML root element <html>/)
    expect(() => detectListFormat(Buffer.from('{"error":"maintenance"}'))).toThrow(ListParseError)
    expect(() => detectListFormat(bz2Fixture)).toThrow(/bzip2/)
  })
})

describe('loadListSource from files', () => {
  it('reads a plain file with its SHA-256 and format', async () => {
    const source = await loadListSource(sanctionsDataPath(UN_FILES['2026-02-27']))
    expect(source).toMatchObject({ format: 'un_xml', list_key: 'un', bz2: false })
    // README checksum of the shared copy.
    expect(source.sha256).toBe('66b392a4090868d2d39161e8d748efd39138377b0e6e60b7921aa67a4f99c8bf')
    expect((await parseListSource(source)).entry_count).toBe(1003)
  })

  it('decompresses bzip2 by magic bytes and hashes the decompressed content', async () => {
    const source = await loadListSource(fixture('un-handmade.xml.bz2'))
    expect(source.bz2).toBe(true)
    expect(Buffer.from(source.bytes).equals(plainFixture)).toBe(true)
    expect(source.sha256).toBe(sha256(plainFixture))
    const list = await parseListSource(source)
    expect(list.entries.map((entry) => entry.entry_id)).toEqual(['990001', '990002'])
  })

  it('rejects a truncated bzip2 file', async () => {
    const { writeFileSync, mkdtempSync } = await import('node:fs')
    const { tmpdir } = await import('node:os')
    const path = `${mkdtempSync(`${tmpdir()}/sanctions-`)}/cut.xml.bz2`
    writeFileSync(path, bz2Fixture.subarray(0, bz2Fixture.length - 40))
    await expect(loadListSource(path)).rejects.toThrow(ListParseError)
  })

  it('reports a missing file as unavailable', async () => {
    const error = await loadListSource('/nonexistent/sdn_advanced.xml').catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(ServiceError)
    expect((error as ServiceError).code).toBe('unavailable')
  })
})

describe('parseListFile', () => {
  it('streams a bzip2 file into the parser of the detected format', async () => {
    const list = await parseListFile(fixture('un-handmade.xml.bz2'))
    expect(list.format).toBe('un_xml')
    expect(list.entries[0]).toMatchObject({
      name: 'EXAMPLE PERSON ONE',
      countries: ['IQ'],
      reference: 'TXi.001',
    })
  })

  it('streams a plain file', async () => {
    const list = await parseListFile(sanctionsDataPath(EU_LEGACY_FILE))
    expect(list).toMatchObject({ format: 'eu_legacy_xml', entry_count: 595 })
  })
})

describe('loadListSource over HTTP (local fake server)', () => {
  let server: Server
  let base: string

  beforeAll(async () => {
    server = createServer((request, response) => {
      switch (request.url) {
        case '/un.xml':
          response.writeHead(200, { 'content-type': 'application/xml' }).end(unBytes)
          return
        case '/list.bz2':
          response.writeHead(200, { 'content-type': 'application/octet-stream' }).end(bz2Fixture)
          return
        case '/maintenance':
          response
            .writeHead(200, { 'content-type': 'text/html' })
            .end('<html><body>Down for maintenance</body></html>')
          return
        case '/error':
          response.writeHead(503).end('unavailable')
          return
        case '/slow':
          response.writeHead(200, { 'content-type': 'application/xml' })
          response.write('<CONSOLIDATED_LIST>')
          // Never finishes; the client's timeout must end the download.
          return
        default:
          response.writeHead(404).end()
      }
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })

  afterAll(async () => {
    server.closeAllConnections()
    await new Promise<void>((resolve) => server.close(() => resolve()))
  })

  it('downloads, detects and hashes a list', async () => {
    const source = await loadListSource(`${base}/un.xml`, { timeoutMs: 5000 })
    expect(source).toMatchObject({ format: 'un_xml', sha256: sha256(unBytes), bz2: false })
  })

  it('decompresses a bzip2 download', async () => {
    const source = await loadListSource(`${base}/list.bz2`, { timeoutMs: 5000 })
    expect(source).toMatchObject({ format: 'un_xml', bz2: true, sha256: sha256(plainFixture) })
  })

  it('reports an HTTP error status as unavailable', async () => {
    await expect(loadListSource(`${base}/error`, { timeoutMs: 5000 })).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/HTTP 503/),
    })
  })

  it('ends a download that exceeds the timeout', async () => {
    await expect(loadListSource(`${base}/slow`, { timeoutMs: 300 })).rejects.toMatchObject({
      code: 'unavailable',
      message: expect.stringMatching(/timed out after 300 ms/),
    })
  })

  it('refuses a download larger than the limit', async () => {
    await expect(loadListSource(`${base}/un.xml`, { timeoutMs: 5000, maxBytes: 1000 })).rejects.toMatchObject(
      {
        code: 'payload_too_large',
      },
    )
  })

  it('refuses an HTML page served in place of a list', async () => {
    await expect(loadListSource(`${base}/maintenance`, { timeoutMs: 5000 })).rejects.toThrow(ListParseError)
  })

  it('uses the injected fetch', async () => {
    const calls: string[] = []
    const fakeFetch: typeof fetch = async (input) => {
      calls.push(String(input))
      return new Response(plainFixture, { status: 200 })
    }
    const source = await loadListSource('https://lists.example/un.xml', { fetch: fakeFetch })
    expect(calls).toEqual(['https://lists.example/un.xml'])
    expect(source.format).toBe('un_xml')
  })
})
