import { readFile } from 'node:fs/promises'
import { verifyReport } from '../core/reports/evidence.ts'
import { verifyCommand } from './verify-command.ts'

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
export const reportsVerify = verifyCommand<Record<string, unknown>>({
  summary: 'check a saved entity report: hash and signature against a JWKS you choose',
  usage: USAGE,
  noKeysHint:
    "Give --jwks <file|URL> (the JWKS of the service you trust) or --url <service URL> (or VALIDATION_JWKS / VALIDATION_API_URL). The report's own evidence.jwks_url is not used: whoever wrote the report chose it.",
  async read(file) {
    const parsed = JSON.parse(await readFile(file, 'utf8')) as unknown
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
      throw new Error(`${file} is not a JSON report object`)
    }
    return parsed as Record<string, unknown>
  },
  async verify(report, keys, { file, source }) {
    const outcome = await verifyReport(report, keys)
    const named = (report.evidence as { jwks_url?: unknown } | undefined)?.jwks_url
    return {
      ok: outcome.ok,
      output: {
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
      failure: `NOT VERIFIED: ${file} against the keys from ${source.location}: ${outcome.problems.join('; ')}`,
    }
  },
})
