import { escapeXml } from './badge.ts'
import type { EntityReport } from './report-schema.ts'

/**
 * The printable page of an entity report (GET /v1/reports/{id} with Accept: text/html): what a
 * compliance officer files. Every value from the report goes through `esc` (the five HTML special
 * characters: names and evidence texts come from registers and news sources, never trusted as
 * markup). The page has no scripts and loads nothing (inline CSS only).
 */
const esc = (value: unknown): string => escapeXml(value === null || value === undefined ? '—' : String(value))

/** Labels of the machine codes a reader meets on the page; any other code is put in words. */
const LABELS: Readonly<Record<string, string>> = {
  ok: 'Answered',
  partial: 'Partly answered',
  unavailable: 'Unavailable',
  not_configured: 'Not configured',
  not_requested: 'Not requested',
  no_match: 'No match',
  possible_match: 'Possible match',
  none: 'None',
  pep: 'Politically exposed person',
  rca: 'Relative or close associate',
  high: 'High',
  medium: 'Medium',
  low: 'Low',
  very_low: 'Very low',
  blocked: 'Blocked',
  approve: 'Approve',
  approve_with_monitoring: 'Approve with monitoring',
  manual_review: 'Manual review',
  reject: 'Reject',
  low_risk: 'Low risk',
  moderate_risk: 'Moderate risk',
  elevated_risk: 'Elevated risk',
  high_risk: 'High risk',
  sanctions_flagged: 'Sanctions flagged',
  kvk: 'KVK (Dutch business register)',
  kbo: 'KBO/CBE (Belgian business register)',
  vies: 'VIES (EU VAT)',
  rdap: 'RDAP (domain registration)',
  dns: 'DNS',
  tls: 'TLS certificate',
  sanctions: 'Sanctions lists',
  opensanctions: 'OpenSanctions (PEP)',
  exact: 'Exact name',
  name_exact: 'Exact name',
  name_fuzzy: 'Similar name',
  alias: 'Alias',
  vat_number: 'VAT number',
  iban: 'IBAN',
  domain: 'Domain',
  wallet_address: 'Wallet address',
  register_number: 'Register number',
  director: 'Director',
  country: 'Country',
  entity_hash: 'Entity id',
  kvk_number: 'KVK number',
  cbe_number: 'CBE number',
  wallet_chain: 'Wallet chain',
}

/** A code as a reader's words: its label, else underscores as spaces with a capital first letter. */
export function labelOf(code: unknown): string {
  if (code === null || code === undefined) return '—'
  const text = String(code)
  const known = LABELS[text]
  if (known) return known
  if (!/^[a-z0-9_]+$/.test(text)) return text
  const words = text.replace(/_/g, ' ')
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** The page's overall verdict: a hit, something to review, or clear (every promised source answered). */
export type ReportVerdict = 'hit' | 'review' | 'clear'

/**
 * Hit: a possible sanctions match or a blocked entity. Clear only when the sanctions screen covered
 * every promised list, none of them stale, with no match, every source answered, no PEP exposure and the trust level is
 * high or medium (never more than was checked). Anything else: review.
 */
export function reportVerdict(report: EntityReport): ReportVerdict {
  const { sanctions, risk, pep, sources } = report
  if (sanctions.result === 'possible_match' || risk.trust_level === 'blocked') return 'hit'
  const fresh = !sanctions.coverage?.lists_checked.some((list) => list.stale)
  const complete =
    sanctions.status === 'ok' &&
    fresh &&
    sanctions.result === 'no_match' &&
    sources.every((source) => source.status === 'ok') &&
    pep.status !== 'unavailable' &&
    (pep.exposure === null || pep.exposure === 'none')
  return complete && (risk.trust_level === 'high' || risk.trust_level === 'medium') ? 'clear' : 'review'
}

const VERDICT_TEXT: Readonly<Record<ReportVerdict, { title: string; text: string }>> = {
  hit: {
    title: 'HIT: possible sanctions match',
    text: 'Do not proceed before a reviewer has compared the matched entry below with this entity.',
  },
  review: {
    title: 'REVIEW: not a clear result',
    text: 'Something was not checked in full, or a finding needs a person to look at it (see below).',
  },
  clear: {
    title: 'CLEAR: no sanctions match',
    text: 'Every promised source answered and no list matched this entity.',
  },
}

/**
 * A short code kept on one line (a programme such as RUSSIA-EO14024, a date): a line never breaks
 * at its hyphens. A long one (past 32 characters) is left to wrap, so it cannot widen the page.
 */
const unbroken = (value: string | null | undefined) =>
  value && value.length <= 32 ? `<span class="nowrap">${esc(value)}</span>` : esc(value)
const row = (cells: readonly unknown[]) => `<tr>${cells.map((cell) => `<td>${esc(cell)}</td>`).join('')}</tr>`
const head = (cells: readonly string[]) => `<tr>${cells.map((cell) => `<th>${esc(cell)}</th>`).join('')}</tr>`
/**
 * A table, or the `empty` sentence; `codes`: its cells hold hashes and keys. Every cell may wrap
 * anywhere (`overflow-wrap:anywhere` lets a cell shrink below its longest word), so a long value
 * never pushes a table past the printed page's margin; headers wrap between words only.
 */
const table = (
  headers: readonly string[],
  rows: readonly (readonly unknown[])[],
  empty: string,
  codes = false,
) =>
  rows.length === 0
    ? `<p class="empty">${esc(empty)}</p>`
    : `<table${codes ? ' class="codes"' : ''}>${head(headers)}${rows.map(row).join('')}</table>`

export function reportHtml(report: EntityReport): string {
  const { entity, risk, sanctions, pep, domain, evidence } = report
  const identifiers = Object.entries(entity)
    .filter(([key]) => key !== 'entity_name')
    .map(([key, value]) => [labelOf(key), value])
  const verdict = reportVerdict(report)
  const banner = VERDICT_TEXT[verdict]
  const coverage = sanctions.coverage
  const listRows = coverage
    ? [
        ...coverage.lists_checked.map((list) => [
          list.list,
          list.publication_date ?? `fetched ${list.as_of}`,
          `${list.age_days} day${list.age_days === 1 ? '' : 's'}`,
          list.stale ? `Stale: ${list.stale_reason ?? 'too old'}` : 'Screened',
        ]),
        ...coverage.lists_not_checked.map((list) => [
          list.list,
          null,
          null,
          `Not checked: ${labelOf(list.reason)}`,
        ]),
      ]
    : sanctions.lists.map((list) => [list.list, list.date, null, 'Screened'])
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<link rel="icon" href="data:,">
<title>Entity report ${esc(report.report_id)}</title>
<style>
body{font-family:system-ui,"DejaVu Sans",sans-serif;margin:2em auto;padding:0 1em;color:#111;max-width:60em;line-height:1.4;overflow-wrap:anywhere}
h1{font-size:1.5em;margin-bottom:.2em}h2{font-size:1.1em;border-bottom:1px solid #999;margin-top:1.5em}
.meta{color:#444;font-size:.9em;margin-top:0}
.verdict{border:2px solid;border-left-width:.6em;border-radius:4px;padding:.6em 1em;margin:1em 0;-webkit-print-color-adjust:exact;print-color-adjust:exact}
.verdict strong{display:block;font-size:1.25em;letter-spacing:.02em}
.verdict-hit{background:#fde8e8;border-color:#b91c1c;color:#7f1d1d}
.verdict-review{background:#fff4d6;border-color:#b45309;color:#78350f}
.verdict-clear{background:#e6f4ea;border-color:#15803d;color:#14532d}
table{border-collapse:collapse;width:100%;max-width:100%;font-size:.9em;margin:.5em 0}
td,th{border:1px solid #bbb;padding:.3em .5em;text-align:left;vertical-align:top}
th{background:#f1f1f1;hyphens:none;overflow-wrap:break-word}
tr{break-inside:avoid}
code{word-break:break-all;font-size:.8em}.empty{color:#555}.nowrap{white-space:nowrap}
.match td{background:#fde8e8;-webkit-print-color-adjust:exact;print-color-adjust:exact}
@media print{body{margin:0;max-width:none}}
</style>
</head>
<body>
<h1>Entity report: ${esc(entity.entity_name)}</h1>
<p class="meta">Report <code>${esc(report.report_id)}</code>, built ${esc(report.created_at)} from check <code>${esc(report.check_id)}</code>.</p>
<div class="verdict verdict-${verdict}" role="status"><strong>${esc(banner.title)}</strong>${esc(banner.text)} Trust ${esc(risk.trust_score)}/100 (${esc(labelOf(risk.trust_level))}); recommendation: ${esc(labelOf(risk.recommendation))}.</div>
<h2>Entity</h2>
${table(['Field', 'Value'], identifiers, 'No identifiers', true)}
<h2>Risk</h2>
${table(
  ['Trust score', 'Trust level', 'Recommendation', 'Cluster', 'Confidence', 'Sources checked'],
  [
    [
      risk.trust_score,
      labelOf(risk.trust_level),
      labelOf(risk.recommendation),
      labelOf(risk.cluster),
      risk.confidence,
      risk.sources_checked,
    ],
  ],
  '',
)}
<h2>Sanctions</h2>
<p>Screening: ${esc(labelOf(sanctions.status))}; result: ${esc(labelOf(sanctions.result))} (threshold ${esc(sanctions.threshold)})${sanctions.reason ? `; ${esc(sanctions.reason)}` : ''}.</p>
${table(['List', 'Version (published)', 'Age', 'Status'], listRows, 'No lists screened')}
${
  sanctions.matches.length === 0
    ? `<p class="empty">${esc('No possible matches')}</p>`
    : `<table>${head(['List', 'Entry', 'Matched name', 'Programme', 'Listed on', 'Score', 'Match'])}${sanctions.matches
        .map(
          (match) =>
            `<tr class="match">${[
              `<td>${esc(match.list)}</td>`,
              `<td>${esc(match.entry_id)}</td>`,
              `<td>${esc(match.matched_name)}</td>`,
              `<td>${match.programmes?.length ? match.programmes.map(unbroken).join(', ') : esc(null)}</td>`,
              `<td>${unbroken(match.listed_on)}</td>`,
              `<td>${esc(match.match_score)}</td>`,
              `<td>${esc(labelOf(match.match_type))}</td>`,
            ].join('')}</tr>`,
        )
        .join('')}</table>`
}
<h2>PEP and relatives/close associates</h2>
<p>Screening: ${esc(labelOf(pep.status))}; exposure: ${esc(labelOf(pep.exposure))}${pep.reason ? `; ${esc(pep.reason)}` : ''}.</p>
${table(
  ['Name', 'Type', 'Topics', 'Datasets', 'Score', 'Countries'],
  pep.matches.map((match) => [
    match.caption,
    match.schema_type,
    match.topics.join(', '),
    match.datasets.join(', '),
    match.score,
    match.countries.join(', '),
  ]),
  'No matches',
)}
<h2>Domain</h2>
<p>Checks: ${esc(labelOf(domain.status))}; domain ${esc(domain.domain)}; age ${esc(domain.domain_age_days)} days.</p>
<h2>Findings</h2>
${table(
  ['Factor', 'Source', 'Severity', 'Evidence'],
  report.findings.map((finding) => [
    labelOf(finding.factor),
    labelOf(finding.source),
    labelOf(finding.severity),
    finding.evidence,
  ]),
  'No findings',
)}
<h2>Sources</h2>
${table(
  ['Source', 'Status', 'Reason', 'Retrieved at'],
  report.sources.map((source) => [
    labelOf(source.source),
    labelOf(source.status),
    source.reason,
    source.fetched_at,
  ]),
  'No sources',
)}
<h2>Correlations with earlier reports</h2>
<p>${esc(report.correlations.scope_note)}</p>
${table(
  ['Report', 'Shared', 'Value', 'Entity', 'Created'],
  report.correlations.links.map((link) => [
    link.report_id,
    labelOf(link.kind),
    link.value,
    link.entity_name,
    link.created_at,
  ]),
  'None',
)}
<h2>Evidence</h2>
${table(
  ['Field', 'Value'],
  [
    ['Report hash', evidence.report_hash],
    ['Hash algorithm', `${evidence.hash_algorithm} over ${evidence.canonicalization}`],
    ['Signature (detached JWS)', evidence.signature],
    ['Signature algorithm', evidence.signature_algorithm],
    ['Key id', evidence.key_id],
    ['Public key (JWKS)', evidence.jwks_url],
  ],
  '',
  true,
)}
<p>Verify: <code>validation-cli reports verify report.json --jwks &lt;the service's JWKS file you saved&gt;</code> (offline), or <code>--url &lt;the service you trust&gt;</code>; never a key address taken from the report itself.</p>
</body>
</html>
`
}
