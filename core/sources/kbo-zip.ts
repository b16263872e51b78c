import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { PassThrough, type Readable } from 'node:stream'
import { createInflateRaw } from 'node:zlib'
import type { KboFileSource } from './kbo-import.ts'

interface ZipEntry {
  name: string
  method: number
  compressedSize: number
  localHeaderOffset: number
}

const EOCD = 0x06054b50
const ZIP64_LOCATOR = 0x07064b50
const ZIP64_EOCD = 0x06064b50
const CENTRAL = 0x02014b50
const LOCAL = 0x04034b50
const MAX32 = 0xffffffff

/**
 * Reads the KBO delivery zip (`KboOpenData_<n>_<yyyy>_<mm>_Full.zip` / `_Update.zip`) in place:
 * the central directory is read once, and each CSV is streamed through zlib's raw inflate, so
 * the 1.6 GB activity.csv is never unpacked to disk or held in memory. Supports stored and
 * deflated entries and ZIP64 sizes; no encryption, no multi-disk archives (KBO uses neither).
 * Entries are matched by base name, wherever they sit in the archive.
 */
export async function kboZipSource(zipPath: string): Promise<KboFileSource> {
  const entries = await readCentralDirectory(zipPath)
  const byName = new Map(entries.map((e) => [e.name.split('/').pop()!.toLowerCase(), e]))
  return {
    async open(name) {
      const entry = byName.get(name.toLowerCase())
      if (!entry) return null
      const start = await dataOffset(zipPath, entry)
      if (entry.compressedSize === 0) return new PassThrough().end() as Readable
      const raw = createReadStream(zipPath, { start, end: start + entry.compressedSize - 1 })
      if (entry.method === 0) return raw
      if (entry.method !== 8)
        throw new Error(`zip entry ${entry.name}: unsupported compression method ${entry.method}`)
      const inflate = createInflateRaw()
      raw.on('error', (error) => inflate.destroy(error))
      return raw.pipe(inflate)
    },
  }
}

async function readCentralDirectory(zipPath: string): Promise<ZipEntry[]> {
  const file = await open(zipPath, 'r')
  try {
    const { size } = await file.stat()
    const tailLength = Math.min(size, 22 + 0xffff)
    const tail = Buffer.alloc(tailLength)
    await file.read(tail, 0, tailLength, size - tailLength)
    let eocd = -1
    for (let i = tailLength - 22; i >= 0; i--) {
      if (tail.readUInt32LE(i) === EOCD) {
        eocd = i
        break
      }
    }
    if (eocd < 0) throw new Error(`${zipPath}: not a zip archive (no end of central directory)`)
    let count = tail.readUInt16LE(eocd + 10)
    let cdSize = tail.readUInt32LE(eocd + 12)
    let cdOffset = tail.readUInt32LE(eocd + 16)
    if (count === 0xffff || cdSize === MAX32 || cdOffset === MAX32) {
      const locatorAt = size - tailLength + eocd - 20
      const locator = Buffer.alloc(20)
      await file.read(locator, 0, 20, locatorAt)
      if (locator.readUInt32LE(0) !== ZIP64_LOCATOR) throw new Error(`${zipPath}: ZIP64 locator missing`)
      const record = Buffer.alloc(56)
      await file.read(record, 0, 56, Number(locator.readBigUInt64LE(8)))
      if (record.readUInt32LE(0) !== ZIP64_EOCD) throw new Error(`${zipPath}: ZIP64 end record missing`)
      count = Number(record.readBigUInt64LE(32))
      cdSize = Number(record.readBigUInt64LE(40))
      cdOffset = Number(record.readBigUInt64LE(48))
    }
    const directory = Buffer.alloc(cdSize)
    await file.read(directory, 0, cdSize, cdOffset)
    const entries: ZipEntry[] = []
    let at = 0
    for (let i = 0; i < count; i++) {
      if (directory.readUInt32LE(at) !== CENTRAL) throw new Error(`${zipPath}: corrupt central directory`)
      const method = directory.readUInt16LE(at + 10)
      let compressedSize = directory.readUInt32LE(at + 20)
      let uncompressedSize = directory.readUInt32LE(at + 24)
      const nameLength = directory.readUInt16LE(at + 28)
      const extraLength = directory.readUInt16LE(at + 30)
      const commentLength = directory.readUInt16LE(at + 32)
      let localHeaderOffset = directory.readUInt32LE(at + 42)
      const name = directory.toString('utf8', at + 46, at + 46 + nameLength)
      // ZIP64 extra field (id 1) holds the 64-bit values of fields set to 0xffffffff, in order
      let extra = at + 46 + nameLength
      const extraEnd = extra + extraLength
      while (extra + 4 <= extraEnd) {
        const id = directory.readUInt16LE(extra)
        const length = directory.readUInt16LE(extra + 2)
        if (id === 1) {
          let field = extra + 4
          if (uncompressedSize === MAX32) {
            uncompressedSize = Number(directory.readBigUInt64LE(field))
            field += 8
          }
          if (compressedSize === MAX32) {
            compressedSize = Number(directory.readBigUInt64LE(field))
            field += 8
          }
          if (localHeaderOffset === MAX32) localHeaderOffset = Number(directory.readBigUInt64LE(field))
        }
        extra += 4 + length
      }
      if (!name.endsWith('/')) entries.push({ name, method, compressedSize, localHeaderOffset })
      at = extraEnd + commentLength
    }
    return entries
  } finally {
    await file.close()
  }
}

async function dataOffset(zipPath: string, entry: ZipEntry): Promise<number> {
  const file = await open(zipPath, 'r')
  try {
    const header = Buffer.alloc(30)
    await file.read(header, 0, 30, entry.localHeaderOffset)
    if (header.readUInt32LE(0) !== LOCAL)
      throw new Error(`${zipPath}: corrupt local header for ${entry.name}`)
    return entry.localHeaderOffset + 30 + header.readUInt16LE(26) + header.readUInt16LE(28)
  } finally {
    await file.close()
  }
}
