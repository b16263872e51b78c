import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { QUALITIES } from '../context.ts'
import { type Micros, usd } from '../money.ts'
import { KEY_UPGRADE_PRICES, PRICES, type TierPrices, UPGRADE_TIERS } from './pricing.ts'

/** The rows of the Markdown table under `heading` in PRICING.md, as trimmed cells (header and rule dropped). */
function tableAfter(markdown: string, heading: string): string[][] {
  const lines = markdown.slice(markdown.indexOf(heading)).split('\n')
  const start = lines.findIndex((line) => line.startsWith('|'))
  const rows: string[][] = []
  for (const line of lines.slice(start)) {
    if (!line.startsWith('|')) break
    rows.push(
      line
        .split('|')
        .slice(1, -1)
        .map((cell) => cell.trim()),
    )
  }
  return rows.slice(2)
}

/** What one payment method's three cells say: an amount per tier, `(none)`, or one `fixed` amount. */
function tiersOf(cells: string[]): TierPrices | { fixed: Micros } {
  const fixed = cells.find((cell) => cell.endsWith(' fixed'))
  if (fixed) return { fixed: usd(fixed.replace(' fixed', '')) }
  const tiers: Partial<Record<(typeof QUALITIES)[number], Micros>> = {}
  QUALITIES.forEach((quality, index) => {
    const cell = cells[index] ?? ''
    if (cell !== '(none)') tiers[quality] = usd(cell)
  })
  return tiers as TierPrices
}

/** A price list as PRICING.md writes it: one amount is `fixed`, several are one cell per tier. */
function asWritten(prices: TierPrices): TierPrices | { fixed: Micros } {
  const defined = QUALITIES.filter((quality) => prices[quality] !== undefined)
  return defined.length === 1 ? { fixed: prices.fresh } : prices
}

describe('PRICING.md', () => {
  const markdown = readFileSync(new URL('./PRICING.md', import.meta.url), 'utf8')

  it('lists every priced operation with exactly the prices of the table in pricing.ts', () => {
    const rows = tableAfter(markdown, '| Operation id')
    const documented = new Map(rows.map((cells) => [cells[0]?.split(' ')[0] ?? '', cells]))
    expect([...documented.keys()].sort()).toEqual(Object.keys(PRICES).sort())
    for (const [id, price] of Object.entries(PRICES)) {
      const cells = documented.get(id) ?? []
      expect(tiersOf(cells.slice(1, 4)), `${id} x402`).toEqual(asWritten(price.x402))
      expect(tiersOf(cells.slice(4, 7)), `${id} account`).toEqual(asWritten(price.account))
    }
  })

  it('lists the key top-ups at the prices of KEY_UPGRADE_PRICES', () => {
    const rows = tableAfter(markdown, '| Tier')
    expect(rows.map(([tier]) => tier)).toEqual([...UPGRADE_TIERS])
    for (const [tier, amount] of rows) {
      expect(usd(amount ?? ''), tier).toBe(KEY_UPGRADE_PRICES[tier as keyof typeof KEY_UPGRADE_PRICES])
    }
  })
})
