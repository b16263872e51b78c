import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { text } from 'node:stream/consumers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { KBO_FULL_FIXTURE_DIR } from '../../test/support/fakes/kbo-extract.ts'
import { createManualClock } from '../../test/support/fakes/manual-clock.ts'
import { writeZip } from '../../test/support/fakes/zip-writer.ts'
import { createKboImporter, kboDirectorySource } from './kbo-import.ts'
import { createInMemoryKboStore } from './kbo-store.ts'
import { kboZipSource } from './kbo-zip.ts'

let dir: string
let zipPath: string
const files: Record<string, string> = {}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'kbo-zip-'))
  zipPath = join(dir, 'KboOpenData_0136_2025_06_Full.zip')
  for (const name of await readdir(KBO_FULL_FIXTURE_DIR)) {
    if (name.endsWith('.csv')) files[name] = await readFile(join(KBO_FULL_FIXTURE_DIR, name), 'utf8')
  }
  await writeZip(zipPath, files, ['meta.csv'])
})
afterAll(async () => {
  await rm(dir, { recursive: true, force: true })
})

describe('kboZipSource', () => {
  it('streams stored and deflated entries back byte for byte', async () => {
    const source = await kboZipSource(zipPath)
    for (const [name, content] of Object.entries(files)) {
      const stream = await source.open(name)
      expect(stream, name).not.toBeNull()
      expect(await text(stream!)).toBe(content)
    }
    expect(await source.open('branch.csv')).toBeNull()
  })

  it('imports the same rows from the zip as from the unpacked folder', async () => {
    const clock = createManualClock()
    const fromZip = await createKboImporter({ store: createInMemoryKboStore(), clock }).importExtract(
      await kboZipSource(zipPath),
    )
    const fromDir = await createKboImporter({ store: createInMemoryKboStore(), clock }).importExtract(
      kboDirectorySource(KBO_FULL_FIXTURE_DIR),
    )
    expect(fromZip).toEqual(fromDir)
  })

  it('refuses a file that is not a zip', async () => {
    await expect(kboZipSource(join(KBO_FULL_FIXTURE_DIR, 'meta.csv'))).rejects.toThrow(/not a zip/)
  })
})
