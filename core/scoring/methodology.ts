import { readFile } from 'node:fs/promises'
import { fileURLToPath } from 'node:url'

/** Where the scoring methodology lives (served later at GET /v1/methodology). */
export const METHODOLOGY_PATH: string = fileURLToPath(new URL('./METHODOLOGY.md', import.meta.url))

/**
 * The methodology document as Markdown: every weight, band and rule the scores use, so a
 * customer can recompute any score from its risk_factors.
 */
export function readMethodology(): Promise<string> {
  return readFile(METHODOLOGY_PATH, 'utf8')
}
