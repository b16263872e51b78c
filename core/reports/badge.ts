import { neutraliseBidi } from '../validate/bidi.ts'

/**
 * The public entity badge (GET /v1/badge/{entity_id}): a small SVG with the trust level and the
 * date of the newest report on the entity, or "unknown". It carries no name, number or other
 * personal data: only the label, the level and a date. Every text it shows comes from a fixed
 * list (trust levels) or an ISO date, and still goes through escapeXml.
 */

const COLOURS: Record<string, string> = {
  high: '#2e7d32',
  medium: '#9e9d24',
  low: '#ef6c00',
  very_low: '#c62828',
  blocked: '#000000',
  unknown: '#757575',
}

/**
 * Escapes the five XML special characters (text and attribute values) and makes bidirectional
 * controls visible (`[U+202E]`).
 */
export function escapeXml(text: string): string {
  // A bidirectional control from stored or upstream text would reorder the page around it (a
  // character reference would too): shown as [U+202E] instead.
  return neutraliseBidi(text)
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;')
}

/** An entity id as the badge accepts it: the hex SHA-256 entity hash of the checks and reports. */
export const ENTITY_ID_PATTERN = /^[0-9a-f]{64}$/

export function badgeSvg(latest: { trustLevel: string; createdAt: Date } | null): string {
  const level = latest && latest.trustLevel in COLOURS ? latest.trustLevel : 'unknown'
  const value = latest
    ? `${level.replace('_', ' ')} · ${latest.createdAt.toISOString().slice(0, 10)}`
    : 'unknown'
  const label = 'trust'
  const labelWidth = 44
  const valueWidth = 12 + value.length * 7
  const width = labelWidth + valueWidth
  const colour = COLOURS[level] ?? COLOURS.unknown
  const title = escapeXml(`${label}: ${value}`)
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="20" role="img" aria-label="${title}">
  <title>${title}</title>
  <rect width="${labelWidth}" height="20" fill="#555"/>
  <rect x="${labelWidth}" width="${valueWidth}" height="20" fill="${colour}"/>
  <g fill="#fff" font-family="Verdana,DejaVu Sans,sans-serif" font-size="11">
    <text x="8" y="14">${escapeXml(label)}</text>
    <text x="${labelWidth + 6}" y="14">${escapeXml(value)}</text>
  </g>
</svg>
`
}
