import { dirname, join } from 'node:path'
import { Readable } from 'node:stream'
import { fileURLToPath } from 'node:url'
import type { KboFileSource } from '../../../core/sources/kbo-import.ts'

/** Folder of the hand-made KBO full-extract excerpt (see its README). */
export const KBO_FULL_FIXTURE_DIR = join(dirname(fileURLToPath(import.meta.url)), 'fixtures', 'kbo-full')

/** An extract held in memory, file name to CSV text: for update extracts built inside a test. */
export function kboMemorySource(files: Record<string, string>): KboFileSource {
  return {
    async open(name) {
      const content = files[name]
      return content === undefined ? null : Readable.from([Buffer.from(content, 'utf8')])
    },
  }
}
