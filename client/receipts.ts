import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { verifyAnswerReceipt } from '../core/evidence/answer-receipt.ts'
import type { TrustedKeys } from '../core/reports/evidence.ts'
import type { CliCommand } from './command.ts'
import { chooseKeySource, loadTrustedKeys } from './reports.ts'

const USAGE = `usage: validation-cli receipts verify <receipt> [--jwks <file|URL>] [--url <service URL>] [--answer <file>]

Verifies the signed receipt of a paid answer offline: the detached JWS (EdDSA) over the RFC 8785
canonical JSON of every receipt field but "signature", with a key YOU chose. <receipt> is a file
holding the receipt JSON (GET /v1/receipts/{id}, MCP _meta.receipt) or the X-Receipt header value
(base64url JSON).

  --jwks    the service's JWKS saved to a file, or its URL (a kid-to-key map pins keys)
  --url     the service you trust (env VALIDATION_API_URL): its /.well-known/jwks.json is fetched
  --answer  the answer's JSON body, saved: also checks that response_hash is its JCS SHA-256
  env VALIDATION_JWKS   a pinned key file or URL, used when neither flag is given

The receipt's own jwks_url is never used. Exit 0 intact and signed by a trusted key (and the
answer matches); 1 altered, forged, signed by another key, or the answer differs; 2 usage, no
trusted key chosen, or unreadable input.`

/** A receipt from a file: JSON, or the base64url JSON of the X-Receipt header. */
function receiptOf(text: string, file: string): Record<string, unknown> {
  const trimmed = text.trim()
  const json = trimmed.startsWith('{') ? trimmed : Buffer.from(trimmed, 'base64url').toString('utf8')
  let parsed: unknown
  try {
    parsed = JSON.parse(json)
  } catch {
    throw new Error(`${file} is neither receipt JSON nor an X-Receipt header value`)
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new Error(`${file} is not a receipt object`)
  }
  return parsed as Record<string, unknown>
}

/**
 * `validation-cli receipts verify receipt.json --jwks jwks.json`: checks a paid answer's receipt
 * against keys the verifier chose (see USAGE), and optionally the answer it describes.
 */
export const receiptsVerify: CliCommand = {
  summary: 'check a paid answer’s signed receipt against a JWKS you choose',
  usage: USAGE,
  async run(args) {
    let values: { jwks?: string; url?: string; answer?: string }
    let positionals: string[]
    try {
      ;({ values, positionals } = parseArgs({
        args,
        allowPositionals: true,
        options: { jwks: { type: 'string' }, url: { type: 'string' }, answer: { type: 'string' } },
      }))
    } catch (error) {
      process.stderr.write(`${(error as Error).message}\n\n${USAGE}\n`)
      return 2
    }
    const file = positionals[0]
    if (!file || positionals.length > 1 || values.jwks === '' || values.url === '' || values.answer === '') {
      process.stderr.write(`${USAGE}\n`)
      return 2
    }
    const source = chooseKeySource(values)
    if (!source) {
      process.stderr.write(
        "cannot verify: no trusted keys chosen. Give --jwks <file|URL> or --url <service URL> (or VALIDATION_JWKS / VALIDATION_API_URL). The receipt's own jwks_url is not used.\n",
      )
      return 2
    }
    let receipt: Record<string, unknown>
    let answer: { body: unknown } | undefined
    let keys: TrustedKeys
    try {
      receipt = receiptOf(await readFile(file, 'utf8'), file)
      if (values.answer) answer = { body: JSON.parse(await readFile(values.answer, 'utf8')) as unknown }
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
    const outcome = await verifyAnswerReceipt(receipt, keys, answer)
    process.stdout.write(
      `${JSON.stringify(
        {
          file,
          ok: outcome.ok,
          receipt_id: receipt.receipt_id,
          operation: receipt.operation,
          signature_valid: outcome.signature_valid,
          ...(outcome.response_matches === undefined ? {} : { response_matches: outcome.response_matches }),
          trusted_keys: source.location,
          problems: outcome.problems,
        },
        null,
        2,
      )}\n`,
    )
    return outcome.ok ? 0 : 1
  },
}
