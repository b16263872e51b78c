import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { type TrustedKeys, trustedKeysFrom, verifyReport } from '../core/reports/evidence.ts'
import type { CliCommand } from './command.ts'

/** Where the trusted keys came from, as the verifier chose it (shown in the output). */
interface KeySource {
  /** A file path or an http(s) URL. */
  location: string
  /** How it was chosen: a flag or an environment variable. */
  chosenBy: '--jwks' | '--url' | 'VALIDATION_JWKS' | 'VALIDATION_API_URL'
}

/** The JWKS of a service at its base URL (the spec's public `GET /.well-known/jwks.json`). */
function jwksUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/.well-known/jwks.json`
}

/**
 * The key source the verifier chose: `--jwks` (a file or URL), else `--url` (the service whose
 * JWKS to fetch), else the same two from the environment. Never the report's own
 * evidence.jwks_url: whoever forged a report wrote that URL too.
 */
export function chooseKeySource(values: { jwks?: string; url?: string }): KeySource | undefined {
  if (values.jwks) return { location: values.jwks, chosenBy: '--jwks' }
  if (values.url) return { location: jwksUrlOf(values.url), chosenBy: '--url' }
  if (process.env.VALIDATION_JWKS)
    return { location: process.env.VALIDATION_JWKS, chosenBy: 'VALIDATION_JWKS' }
  if (process.env.VALIDATION_API_URL) {
    return { location: jwksUrlOf(process.env.VALIDATION_API_URL), chosenBy: 'VALIDATION_API_URL' }
  }
  return undefined
}

/** The trusted keys from a URL (http/https) or a local key file (JWKS or kid-to-key map). */
export async function loadTrustedKeys(location: string): Promise<TrustedKeys> {
  if (/^https?:\/\//i.test(location)) {
    const response = await fetch(location, { signal: AbortSignal.timeout(10_000) })
    if (!response.ok) throw new Error(`GET ${location}: HTTP ${response.status}`)
    return trustedKeysFrom(await response.json())
  }
  return trustedKeysFrom(JSON.parse(await readFile(location, 'utf8')))
}

const USAGE = `usage: validation-cli reports verify <report.json> [--jwks <file|URL>] [--url <service URL>]

Recomputes evidence.report_hash (SHA-256 over the RFC 8785 canonical JSON of the report without
evidence) and verifies evidence.signature (detached JWS, EdDSA) with a key YOU chose:

  --jwks   the service's JWKS saved to a file (offline: nothing leaves the machine) or its URL;
           a file may also map kid to public key ({"<kid>": <JWK> or "<PEM>"}), to pin keys
  --url    the service you trust (env VALIDATION_API_URL): its /.well-known/jwks.json is fetched
  env VALIDATION_JWKS   a pinned key file or URL, used when neither flag is given

The report's own evidence.jwks_url is never used: whoever wrote the report chose it, so a forged
report would name the forger's keys. The key id and that URL are checked against the signed
JWS header. Exit 0 intact and signed by a trusted key; 1 altered, forged or signed by another
key; 2 usage, no trusted key chosen, or unreadable input.`

/**
 * `validation-cli reports verify report.json`: checks a saved entity report against keys the
 * verifier chose (see USAGE). Exit 0: intact and signed by a trusted key; 1: altered, forged or
 * signed by a key not trusted; 2: usage, no key source, or unreadable input.
 */
export const reportsVerify: CliCommand = {
  summary: 'check a saved entity report: hash and signature against a JWKS you choose',
  usage: USAGE,
  async run(args) {
    let values: { jwks?: string; url?: string }
    let positionals: string[]
    try {
      ;({ values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { jwks: { type: 'string' }, url: { type: 'string' } },
      }))
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`)
      return 2
    }
    const file = positionals[0]
    if (!file || positionals.length > 1 || values.jwks === '' || values.url === '') {
      process.stderr.write(`${USAGE}\n`)
      return 2
    }
    const source = chooseKeySource(values)
    if (!source) {
      process.stderr.write(
        "cannot verify: no trusted keys chosen. Give --jwks <file|URL> (the JWKS of the service you trust) or --url <service URL> (or VALIDATION_JWKS / VALIDATION_API_URL). The report's own evidence.jwks_url is not used: whoever wrote the report chose it.\n",
      )
      return 2
    }
    let report: Record<string, unknown>
    let keys: TrustedKeys
    try {
      const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        throw new Error(`${file} is not a JSON report object`)
      }
      report = parsed as Record<string, unknown>
    } catch (error) {
      process.stderr.write(`cannot verify: ${error instanceof Error ? error.message : String(error)}\n`)
      return 2
    }
    try {
      keys = await loadTrustedKeys(source.location)
    } catch (error) {
      process.stderr.write(
        `cannot verify: trusted keys from ${source.location} (${source.chosenBy}): ${error instanceof Error ? error.message : String(error)}\n`,
      )
      return 2
    }
    const outcome = await verifyReport(report, keys)
    const named = (report.evidence as { jwks_url?: unknown } | undefined)?.jwks_url
    process.stdout.write(
      `${JSON.stringify(
        {
          file,
          ok: outcome.ok,
          hash_matches: outcome.hash_matches,
          signature_valid: outcome.signature_valid,
          computed_hash: outcome.computed_hash,
          trusted_keys: source.location,
          trusted_keys_chosen_by: source.chosenBy,
          ...(typeof named === 'string' && named !== source.location
            ? { report_names_jwks_url: named, note: 'the report names another JWKS URL; it was not used' }
            : {}),
          problems: outcome.problems,
        },
        null,
        2,
      )}\n`,
    )
    if (!outcome.ok) {
      process.stderr.write(
        `NOT VERIFIED: ${file} against the keys from ${source.location}: ${outcome.problems.join('; ')}\n`,
      )
    }
    return outcome.ok ? 0 : 1
  },
}
