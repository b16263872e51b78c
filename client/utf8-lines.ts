import { isUtf8 } from 'node:buffer'

/** Where a file stops being UTF-8: 1-based line, 1-based byte column in that line, and the byte. */
export interface Utf8Problem {
  line: number
  column: number
  byte: number
}

/** Length of the UTF-8 sequence a lead byte starts (0: not a lead byte). */
function sequenceLength(byte: number): number {
  if (byte < 0x80) return 1
  if (byte >= 0xc2 && byte <= 0xdf) return 2
  if (byte >= 0xe0 && byte <= 0xef) return 3
  if (byte >= 0xf0 && byte <= 0xf4) return 4
  return 0
}

/** Offset of the first byte in `bytes` that does not start a valid UTF-8 sequence. */
function firstInvalidOffset(bytes: Uint8Array): number {
  for (let i = 0; i < bytes.length; ) {
    const length = sequenceLength(bytes[i] as number)
    if (length === 0 || i + length > bytes.length || !isUtf8(bytes.subarray(i, i + length))) return i
    i += length
  }
  return bytes.length
}

/** Bytes at the end of `bytes` that begin a multi-byte sequence not complete yet (kept for the next chunk). */
function incompleteTail(bytes: Uint8Array): number {
  for (let back = 1; back <= Math.min(3, bytes.length); back++) {
    const byte = bytes[bytes.length - back] as number
    if ((byte & 0xc0) === 0x80) continue
    const length = sequenceLength(byte)
    return length > back ? back : 0
  }
  return 0
}

/**
 * Checks that a byte stream is UTF-8 without reading it whole, and names the first offending line
 * and column when it is not (a Latin-1 file decoded as UTF-8 would turn `é` into U+FFFD silently,
 * and the service would check, and charge for, names that were never in the file). Lines end at
 * LF, CR or CRLF.
 */
export async function checkUtf8Lines(
  chunks: AsyncIterable<Buffer | Uint8Array>,
): Promise<Utf8Problem | undefined> {
  let line = 1
  let carry: Uint8Array = new Uint8Array(0)
  let previousCr = false
  /** Offset in the file of the chunk being scanned, and of the current line's first byte. */
  let position = 0
  let lineStartAt = 0
  /** Counts the line ends in bytes[0, end): LF, CR, and CRLF once (also split across chunks). */
  const countLines = (bytes: Uint8Array, end: number): void => {
    for (let i = 0; i < end; i++) {
      const byte = bytes[i]
      if (byte === 0x0a) {
        if (!previousCr) line++
        lineStartAt = position + i + 1
      } else if (byte === 0x0d) {
        line++
        lineStartAt = position + i + 1
      }
      previousCr = byte === 0x0d
    }
  }
  const scan = (bytes: Uint8Array): Utf8Problem | undefined => {
    if (isUtf8(bytes)) {
      countLines(bytes, bytes.length)
      position += bytes.length
      return undefined
    }
    const offset = firstInvalidOffset(bytes)
    countLines(bytes, offset)
    return { line, column: position + offset - lineStartAt + 1, byte: bytes[offset] as number }
  }
  for await (const chunk of chunks) {
    const bytes = carry.length > 0 ? Buffer.concat([carry, chunk]) : chunk
    const tail = incompleteTail(bytes)
    const problem = scan(bytes.subarray(0, bytes.length - tail))
    if (problem) return problem
    carry = bytes.slice(bytes.length - tail)
  }
  return carry.length > 0 ? scan(carry) : undefined
}
