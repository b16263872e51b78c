import { readFile } from 'node:fs/promises'
import { verifyAnswerReceipt } from '../core/evidence/answer-receipt.ts'
import { verifyCommand } from './verify-command.ts'

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
export const receiptsVerify = verifyCommand<{
  receipt: Record<string, unknown>
  answer: { body: unknown } | undefined
}>({
  summary: 'check a paid answer’s signed receipt against a JWKS you choose',
  usage: USAGE,
  noKeysHint:
    "Give --jwks <file|URL> or --url <service URL> (or VALIDATION_JWKS / VALIDATION_API_URL). The receipt's own jwks_url is not used.",
  options: ['answer'],
  async read(file, values) {
    const receipt = receiptOf(await readFile(file, 'utf8'), file)
    const answer = values.answer
      ? { body: JSON.parse(await readFile(values.answer, 'utf8')) as unknown }
      : undefined
    return { receipt, answer }
  },
  async verify({ receipt, answer }, keys, { file, source }) {
    const outcome = await verifyAnswerReceipt(receipt, keys, answer)
    return {
      ok: outcome.ok,
      output: {
        file,
        ok: outcome.ok,
        receipt_id: receipt.receipt_id,
        operation: receipt.operation,
        signature_valid: outcome.signature_valid,
        ...(outcome.response_matches === undefined ? {} : { response_matches: outcome.response_matches }),
        trusted_keys: source.location,
        problems: outcome.problems,
      },
    }
  },
})
