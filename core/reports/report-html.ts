import { escapeXml } from './badge.ts'
import type { EntityReport } from './report-schema.ts'

/**
 * The printable page of an entity report (GET /v1/reports/{id} with Accept: text/html): what a
 * compliance officer files. Every value from the report goes through `esc` (the five HTML special
 * characters: names and evidence texts come from registers and news sources, never trusted as
 * markup). The page has no scripts and loads nothing (inline CSS only).
 */
const esc = (value: unknown): string => escapeXml(value === null || value === undefined ? '—' : String(value))

const row = (cells: readonly unknown[]) => `<tr>${cells.map((cell) => `<td>${esc(cell)}</td>`).join('')}</tr>`
const head = (cells: readonly string[]) => `<tr>${cells.map((cell) => `<th>${esc(cell)}</th>`).join('')}</tr>`
const table = (headers: readonly string[], rows: readonly (readonly unknown[])[], empty: string) =>
  rows.length === 0
    ? `<p class="empty">${esc(empty)}</p>`
    : `<table>${head(headers)}${rows.map(row).join('')}</table>`

export function reportHtml(report: EntityReport): string {
  const { entity, risk, sanctions, pep, domain, evidence } = report
  const identifiers = Object.entries(entity).filter(([key]) => key !== 'entity_name')
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<link rel="icon" href="data:,">
<title>Entity report ${esc(report.report_id)}</title>
<style>
body{font-family:system-ui,sans-serif;margin:2em;color:#111;max-width:60em}
h1{font-size:1.4em}h2{font-size:1.1em;border-bottom:1px solid #999;margin-top:1.5em}
table{border-collapse:collapse;width:100%;font-size:.9em}td,th{border:1px solid #bbb;padding:.25em .5em;text-align:left;vertical-align:top;overflow-wrap:anywhere}
code{word-break:break-all;font-size:.8em}.empty{color:#555}
@media print{body{margin:0}}
</style>
</head>
<body>
<h1>Entity report: ${esc(entity.entity_name)}</h1>
<p>Report <code>${esc(report.report_id)}</code>, built ${esc(report.created_at)} from check <code>${esc(report.check_id)}</code>.</p>
<h2>Entity</h2>
${table(['Field', 'Value'], identifiers, 'No identifiers')}
<h2>Risk</h2>
${table(
  ['Trust score', 'Trust level', 'Recommendation', 'Cluster', 'Confidence', 'Sources checked'],
  [
    [
      risk.trust_score,
      risk.trust_level,
      risk.recommendation,
      risk.cluster,
      risk.confidence,
      risk.sources_checked,
    ],
  ],
  '',
)}
<h2>Sanctions</h2>
<p>Status ${esc(sanctions.status)}; result ${esc(sanctions.result)} (threshold ${esc(sanctions.threshold)})${sanctions.reason ? `; ${esc(sanctions.reason)}` : ''}.</p>
${table(
  ['List', 'Date'],
  sanctions.lists.map((list) => [list.list, list.date]),
  'No lists screened',
)}
${table(
  ['List', 'Entry', 'Matched name', 'Score', 'Match type'],
  sanctions.matches.map((match) => [
    match.list,
    match.entry_id,
    match.matched_name,
    match.match_score,
    match.match_type,
  ]),
  'No possible matches',
)}
<h2>PEP and relatives/close associates</h2>
<p>Status ${esc(pep.status)}; exposure ${esc(pep.exposure)}${pep.reason ? `; ${esc(pep.reason)}` : ''}.</p>
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
<p>Status ${esc(domain.status)}; domain ${esc(domain.domain)}; age ${esc(domain.domain_age_days)} days.</p>
<h2>Findings</h2>
${table(
  ['Factor', 'Source', 'Severity', 'Evidence'],
  report.findings.map((finding) => [finding.factor, finding.source, finding.severity, finding.evidence]),
  'No findings',
)}
<h2>Sources</h2>
${table(
  ['Source', 'Status', 'Reason', 'Retrieved at'],
  report.sources.map((source) => [source.source, source.status, source.reason, source.fetched_at]),
  'No sources',
)}
<h2>Correlations with earlier reports</h2>
<p>${esc(report.correlations.scope_note)}</p>
${table(
  ['Report', 'Shared', 'Value', 'Entity', 'Created'],
  report.correlations.links.map((link) => [
    link.report_id,
    link.kind,
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
)}
<p>Verify: <code>validation-cli reports verify report.json --jwks &lt;the service's JWKS file you saved&gt;</code> (offline), or <code>--url &lt;the service you trust&gt;</code>; never a key address taken from the report itself.</p>
</body>
</html>
`
}
