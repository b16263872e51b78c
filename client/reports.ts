import { readFile } from 'node:fs/promises'
import type { JWK } from 'jose'
import { verifyReport } from '../core/reports/evidence.ts'
import type { CliCommand } from './command.ts'

/** The JWKS from a URL (http/https) or a local file; default: the report's own evidence.jwks_url. */
async function loadJwks(source: string): Promise<{ keys: JWK[] }> {
  if (/^https?:\/\//i.test(source)) {
    const response = await fetch(source, { signal: AbortSignal.timeout(10_000) })
    if (!response.ok) throw new Error(`GET ${source}: HTTP ${response.status}`)
    return (await response.json()) as { keys: JWK[] }
  }
  return JSON.parse(await readFile(source, 'utf8')) as { keys: JWK[] }
}

/**
 * `validation-cli reports verify report.json [--jwks URL|file]`: recomputes the report's SHA-256
 * over its RFC 8785 canonical JSON (without `evidence`) and verifies the detached EdDSA JWS with
 * the service's public key. With a JWKS file nothing leaves the machine. Exit 0: intact; 1: the
 * report was altered or the signature does not verify; 2: usage or unreadable input.
 */
export const reportsVerify: CliCommand = {
  summary: 'check a saved entity report: hash and signature (offline with --jwks FILE)',
  usage: [
    'usage: validation-cli reports verify <report.json> [--jwks <URL|file>]',
    '',
    'Recomputes evidence.report_hash (SHA-256 over the RFC 8785 canonical JSON of the report',
    'without evidence) and verifies evidence.signature (detached JWS, EdDSA) with the key from',
    'the JWKS (default: evidence.jwks_url). Exit 0 intact, 1 altered or bad signature, 2 usage.',
  ].join('\n'),
  async run(args) {
    const positional: string[] = []
    let jwksSource: string | undefined
    for (let index = 0; index < args.length; index++) {
      const arg = args[index]!
      if (arg === '--jwks') jwksSource = args[++index]
      else if (arg.startsWith('--jwks=')) jwksSource = arg.slice('--jwks='.length)
      else positional.push(arg)
    }
    const file = positional[0]
    if (!file || positional.length > 1 || (args.includes('--jwks') && !jwksSource)) {
      process.stderr.write(`${this.usage}\n`)
      return 2
    }
    let report: Record<string, unknown>
    let jwks: { keys: JWK[] }
    try {
      report = JSON.parse(await readFile(file, 'utf8')) as Record<string, unknown>
      const source = jwksSource ?? (report.evidence as { jwks_url?: string } | undefined)?.jwks_url
      if (!source) throw new Error('no --jwks given and the report names no evidence.jwks_url')
      jwks = await loadJwks(source)
    } catch (error) {
      process.stderr.write(`cannot verify: ${error instanceof Error ? error.message : String(error)}\n`)
      return 2
    }
    const outcome = await verifyReport(report, jwks)
    process.stdout.write(
      `${JSON.stringify({ file, ok: outcome.ok, hash_matches: outcome.hash_matches, signature_valid: outcome.signature_valid, computed_hash: outcome.computed_hash, problems: outcome.problems }, null, 2)}\n`,
    )
    return outcome.ok ? 0 : 1
  },
}
