import { describe, expect, it } from 'vitest'
import { FACTORS } from './factors.ts'
import { readMethodology } from './methodology.ts'
import { DECAY_POINTS_PER_WEEK } from './reputation.ts'
import { BASE_TRUST_SCORE, CLUSTERS, RECOMMENDATIONS, UNAVAILABLE_PENALTY } from './trust-score.ts'

/** METHODOLOGY.md names the country risk factor by level and severity ("very_high -> critical"). */
const COUNTRY_RISK_FACTOR = /^country_risk_([a-z_]+)$/

describe('METHODOLOGY.md', () => {
  it('documents every factor the company assessments can produce', async () => {
    const doc = await readMethodology()
    const produced = Object.entries(FACTORS)
    expect(produced.length).toBeGreaterThan(20)
    for (const [name, severities] of produced) {
      const level = COUNTRY_RISK_FACTOR.exec(name)?.[1]
      if (level) expect(doc, name).toContain(`${level} -> ${severities[0]}`)
      else expect(doc, name).toContain(`\`${name}\``)
    }
  })

  it('gives every factor the severities it is produced with', async () => {
    const rows = (await readMethodology()).split('\n').filter((line) => line.startsWith('|'))
    for (const [name, severities] of Object.entries(FACTORS)) {
      if (COUNTRY_RISK_FACTOR.test(name)) continue
      const severityCells = rows
        .filter((row) => row.includes(`\`${name}\``))
        .map((row) => row.split('|').at(-2) ?? '')
      for (const severity of severities) {
        expect(
          severityCells.some((cell) => new RegExp(`\\b${severity}\\b`).test(cell)),
          `${name}: ${severity}`,
        ).toBe(true)
      }
    }
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
