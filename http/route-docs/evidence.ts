import { toJsonSchema } from '../../core/operations/json-schema.ts'
import {
  jsonResponse,
  keyRouteProblems,
  operatorSeesEveryKey,
  type ParameterDescription,
  type RouteDescription,
} from '../route-description.ts'
import { AuditTrailQuery, AuditVerifyQuery } from '../routes/evidence-routes.ts'

/** The evidence routes of http/routes/evidence-routes.ts: receipts and the audit trail. */

const hex64 = { type: 'string', pattern: '^[0-9a-f]{64}$' }

const receiptSchema = {
  type: 'object',
  description:
    'The signed receipt of a paid answer. The signature is a detached compact JWS (EdDSA) over the RFC 8785 (JCS) canonical JSON of every other field; verify it with the key of /.well-known/jwks.json whose kid is key_id (validation-cli receipts verify, or the openssl recipe of docs/evidence.md)',
  properties: {
    receipt_id: { type: 'string', pattern: '^rcpt_[0-9a-f]{32}$' },
    issued_at: { type: 'string', format: 'date-time', description: 'When the answer was produced' },
    operation: { type: 'string', description: 'Operation id (MCP tool name)' },
    quality: { type: 'string', enum: ['cached', 'fresh', 'enhanced'] },
    request_id: { type: 'string', description: 'X-Request-Id of the call' },
    request_hash: {
      ...hex64,
      description:
        'SHA-256 of the JCS of the input as received (body, or query and path parameters, or tool arguments)',
    },
    response_hash: {
      ...hex64,
      description: 'SHA-256 of the JCS of the JSON answer (REST body, MCP structuredContent)',
    },
    hash_algorithm: { type: 'string', enum: ['SHA-256'] },
    canonicalization: { type: 'string', enum: ['RFC 8785 (JCS)'] },
    payment: {
      type: 'object',
      properties: {
        method: { type: 'string', enum: ['account', 'x402'] },
        amount_micros: { type: 'string', pattern: '^[0-9]+$', description: 'Integer micro-USDC' },
        amount_usd: { type: 'string' },
        key_id: { type: 'string' },
        network: { type: 'string', description: 'x402: CAIP-2 network' },
        payer: { type: 'string', description: 'x402: payer address' },
        transaction: { type: 'string', description: 'x402: transaction hash (empty while pending)' },
        settlement: { type: 'string', enum: ['settled', 'pending'] },
      },
      required: ['method', 'amount_micros', 'amount_usd'],
    },
    lists: {
      type: 'array',
      description: 'Screening operations: the sanctions list versions held when the answer was produced',
      items: {
        type: 'object',
        properties: {
          list: { type: 'string' },
          list_key: { type: 'string' },
          version_id: { type: 'string' },
          publication_date: { type: ['string', 'null'] },
          sha256: { ...hex64, description: 'SHA-256 of the list file the version was built from' },
        },
        required: ['list', 'list_key', 'version_id', 'publication_date', 'sha256'],
      },
    },
    matcher_version: { type: 'string', description: 'Screening operations: the matching rules version' },
    signature_algorithm: { type: 'string', enum: ['EdDSA (Ed25519)'] },
    key_id: { type: 'string', description: 'kid of the signing key in /.well-known/jwks.json' },
    jwks_url: { type: 'string', description: 'Informative only: verify with a JWKS you chose' },
    signature: { type: 'string', description: 'Detached compact JWS (header..signature)' },
  },
  required: [
    'receipt_id',
    'issued_at',
    'operation',
    'quality',
    'request_id',
    'request_hash',
    'response_hash',
    'hash_algorithm',
    'canonicalization',
    'payment',
    'signature_algorithm',
    'key_id',
    'jwks_url',
    'signature',
  ],
}

const auditRowSchema = {
  type: 'object',
  properties: {
    id: { type: 'string', description: 'Row id (the cursor)' },
    chain: { type: 'string', description: 'key:<key id>, x402:<network>:<payer>, or platform' },
    seq: { type: 'string', description: '1, 2, 3 ... within the chain' },
    key_id: { type: ['string', 'null'] },
    at: { type: 'string', format: 'date-time' },
    kind: { type: 'string', enum: ['call', 'change', 'checkpoint'] },
    action: {
      type: 'string',
      description: 'Operation id, key.create/credit/revoke/expire/upgrade, or retention.drop',
    },
    outcome: { type: 'string' },
    subject: { type: ['string', 'null'], description: 'Who or what the call was about; null once erased' },
    subject_sha256: { type: ['string', 'null'], description: 'SHA-256 of the normalised subject (chained)' },
    paid_with: { type: ['string', 'null'] },
    amount_micros: { type: ['string', 'null'] },
    receipt_id: { type: ['string', 'null'] },
    detail: { description: 'Change details, or a checkpoint’s dropped range and signature' },
    prev_hash: hex64,
    hash: { ...hex64, description: 'SHA-256 of the JCS of the chained fields' },
  },
  required: ['id', 'chain', 'seq', 'at', 'kind', 'action', 'outcome', 'prev_hash', 'hash'],
}

const brokenLinkSchema = {
  type: 'object',
  properties: {
    chain: { type: 'string' },
    row_id: { type: 'string' },
    seq: { type: 'string' },
    field: {
      type: 'string',
      description:
        'The field found changed (amount_micros, at, subject, seq, prev_hash, hash, signature ...)',
    },
    problem: { type: 'string' },
  },
  required: ['chain', 'row_id', 'seq', 'field', 'problem'],
}

/** Query parameters from a zod query schema. */
function queryParameters(schema: Parameters<typeof toJsonSchema>[0]): ParameterDescription[] {
  const json = toJsonSchema(schema, 'input')
  const properties = (json.properties ?? {}) as Record<string, Record<string, unknown>>
  return Object.entries(properties).map(([name, property]) => ({
    name,
    in: 'query' as const,
    required: false,
    ...(typeof property.description === 'string' ? { description: property.description } : {}),
    schema: property,
  }))
}

const receiptGet: RouteDescription = {
  id: 'receipts_get',
  method: 'GET',
  path: '/v1/receipts/{receipt_id}',
  tags: ['Keys'],
  summary: 'The signed receipt of a paid answer',
  description:
    'A receipt of a key-paid answer is returned to that key (and the operator key), once the answer was delivered; an x402 receipt to anyone with its id (unguessable, 128 random bits). The same JSON as the X-Receipt header and MCP _meta.receipt.',
  access: 'public-or-key',
  parameters: [
    {
      name: 'receipt_id',
      in: 'path',
      required: true,
      schema: { type: 'string', pattern: '^rcpt_[0-9a-f]{32}$' },
    },
  ],
  responses: [jsonResponse(200, 'The receipt', receiptSchema)],
  errors: keyRouteProblems({ scope: 'any-key', parameters: true, lookup: true }),
}

const auditTrail: RouteDescription = {
  id: 'audit_trail',
  method: 'GET',
  path: '/v1/audit/trail',
  tags: ['Keys'],
  summary: "The key's audit trail: paid calls and changes, hash-chained",
  description: `Oldest first. With Accept: text/csv or application/x-ndjson the whole range the filters select is exported, streamed (CSV with a header row, or JSON Lines). ${operatorSeesEveryKey('sees every chain (the platform-wide view)')} See docs/evidence.md.`,
  access: 'key',
  parameters: queryParameters(AuditTrailQuery),
  responses: [
    {
      status: 200,
      description: 'A page of rows (JSON), or the export (CSV, JSON Lines)',
      headers: ['pagination'],
      content: {
        'application/json': {
          type: 'object',
          properties: {
            rows: { type: 'array', items: auditRowSchema },
            next_cursor: {
              type: ['string', 'null'],
              description: 'cursor of the next page; null on the last',
            },
          },
          required: ['rows', 'next_cursor'],
        },
        'text/csv': { type: 'string' },
        'application/x-ndjson': { type: 'string' },
      },
    },
  ],
  errors: keyRouteProblems({ scope: 'own-or-operator', parameters: true }),
}

const auditVerify: RouteDescription = {
  id: 'audit_verify',
  method: 'GET',
  path: '/v1/audit/verify',
  tags: ['Keys'],
  summary: "Re-computes the key's audit chain and names the first broken link",
  description: `Every row: seq follows the previous one, prev_hash is its hash, the hash is the SHA-256 of the JCS of its chained fields, the subject is the one whose SHA-256 was chained; a chain may open with a retention checkpoint signed by the service key. ${operatorSeesEveryKey('verifies every chain')}`,
  access: 'key',
  parameters: queryParameters(AuditVerifyQuery),
  responses: [
    jsonResponse(200, 'The verification', {
      type: 'object',
      properties: {
        ok: { type: 'boolean' },
        chains: { type: 'integer' },
        rows: { type: 'integer' },
        checkpoints: { type: 'integer' },
        first_broken: brokenLinkSchema,
        broken_chains: { type: 'array', items: brokenLinkSchema },
      },
      required: ['ok', 'chains', 'rows', 'checkpoints', 'broken_chains'],
    }),
  ],
  errors: keyRouteProblems({ scope: 'own-or-operator', parameters: true }),
}

export const evidenceRoutes: readonly RouteDescription[] = [receiptGet, auditTrail, auditVerify]
