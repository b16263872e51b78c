import { readFile } from 'node:fs/promises'
import { describe, expect, it } from 'vitest'
import { readMethodology } from './methodology.ts'
import { DECAY_POINTS_PER_WEEK } from './reputation.ts'
import { BASE_TRUST_SCORE, CLUSTERS, RECOMMENDATIONS, UNAVAILABLE_PENALTY } from './trust-score.ts'

describe('METHODOLOGY.md', () => {
  it('documents every factor the company assessments can produce', async () => {
    const [doc, code] = await Promise.all([
      readMethodology(),
      readFile(new URL('./company-assessments.ts', import.meta.url), 'utf8'),
    ])
    const produced = new Set(
      [
        ...code.matchAll(/factor\(\s*'[a-z_]+',\s*'([a-z_]+)'/g),
        ...code.matchAll(/\['([a-z_]+)', '(?:info|low|medium)'/g),
      ].map((m) => m[1] as string),
    )
    expect(produced.size).toBeGreaterThan(20)
    for (const name of produced) expect(doc, name).toContain(`\`${name}\``)
  })

  it('states the base score, every cluster, recommendation, penalty and decay rate', async () => {
    const doc = await readMethodology()
    expect(doc).toContain(`Start: **${BASE_TRUST_SCORE}**`)
    for (const name of [...CLUSTERS, ...RECOMMENDATIONS]) expect(doc).toContain(`\`${name}\``)
    for (const penalty of Object.values(UNAVAILABLE_PENALTY))
      expect(doc).toMatch(new RegExp(`\\|\\s*${penalty}\\s*\\|`))
    for (const [cluster, rate] of Object.entries(DECAY_POINTS_PER_WEEK))
      expect(doc).toContain(`\`${cluster}\` ${rate}`)
  })
})
