import {
  AdminCreateKeyInput,
  AdminCreditInput,
  AdminExpireInput,
  CreateKeyInput,
} from '../core/keys/index.ts'
import { formatUsd } from '../core/money.ts'
import { AdminRefreshInput } from '../core/monitoring/operator-view.ts'
import { toJsonSchema } from '../core/operations/json-schema.ts'
import { KeysUsageResult } from '../core/operations/keys-usage.ts'
import { KEY_UPGRADE_OPERATION_ID, KEY_UPGRADE_PRICES, UPGRADE_TIERS } from '../core/payments/pricing.ts'
import { errorResponses, paidSuccessHeaders, requestIdHeader, schemaRef } from './openapi-components.ts'
import { discoveryRoutePaths } from './openapi-discovery-routes.ts'

/**
 * The OpenAPI operations of the routes outside the operation registry: public routes
 * (http/routes/public-routes.ts), operator routes (admin-routes.ts), payment routes
 * (payment-routes.ts) and `/mcp`. http/openapi.test.ts compares them with the router, so a route
 * added without its entry here fails the tests.
 */

const json = (schema: unknown) => ({ 'application/json': { schema } })
const jsonBody = (schema: unknown) => ({ required: true, content: json(schema) })
const success = (description: string, schema: unknown, headers: object = requestIdHeader) => ({
  description,
  headers,
  content: json(schema),
})

const PUBLIC: unknown[] = []
const KEY = [{ apiKey: [] }]

const keyUsageSchema = toJsonSchema(KeysUsageResult, 'output')
const keyIdParameter = {
  name: 'key_id',
  in: 'path',
  required: true,
  description: 'key_id from the key creation; a control character in it is a 422, an unknown id a 404',
  schema: { type: 'string', minLength: 1, maxLength: 100 },
}

const healthSchema = {
  type: 'object',
  properties: {
    status: { type: 'string', enum: ['ok', 'degraded'] },
    version: { type: 'string' },
    database: {
      type: 'object',
      properties: { kind: { type: 'string' }, reachable: { type: 'boolean' } },
      required: ['kind', 'reachable'],
    },
    sanctions_lists: {
      type: 'array',
      description:
        'Each sanctions list: loaded, stale, loading or unavailable, with the reason when it is not loaded and current (status is then degraded, still 200)',
      items: {
        type: 'object',
        properties: {
          list_key: { type: 'string' },
          status: { type: 'string', enum: ['loaded', 'stale', 'loading', 'unavailable'] },
          reason: { type: 'string' },
          as_of: { type: 'string' },
          entries: { type: 'integer' },
        },
        required: ['list_key', 'status'],
      },
    },
    uptime_s: { type: 'integer', minimum: 0 },
  },
  required: ['status', 'version', 'database', 'uptime_s'],
}

const createdKeySchema = {
  type: 'object',
  properties: {
    api_key: { type: 'string', description: 'The key; shown once, only its SHA-256 is stored' },
    key_id: { type: 'string' },
    email: { type: 'string' },
    tier: { type: 'string', enum: ['sandbox', 'free'] },
    mode: { type: 'string', enum: ['sandbox', 'live'] },
    note: { type: 'string' },
  },
  required: ['api_key', 'key_id', 'email', 'tier', 'mode', 'note'],
}

const adminCreatedKeySchema = {
  ...keyUsageSchema,
  properties: {
    api_key: { type: 'string', description: 'The key; shown once' },
    ...(keyUsageSchema.properties as object),
  },
  required: ['api_key', ...((keyUsageSchema.required as string[] | undefined) ?? [])],
}

const upgradedKeySchema = {
  ...keyUsageSchema,
  properties: {
    ...(keyUsageSchema.properties as object),
    credited_micros: { type: 'integer', description: 'Balance added by this top-up, micro-USDC' },
  },
  required: [...((keyUsageSchema.required as string[] | undefined) ?? []), 'credited_micros'],
}

const discoverySchema = {
  type: 'object',
  description:
    'Networks, USDC contracts, payTo addresses and every price per quality tier; {x402Version, enabled: false, note} when x402 is not configured.',
  properties: {
    x402Version: { type: 'integer' },
    enabled: { type: 'boolean', const: false },
    note: { type: 'string' },
    schemes: { type: 'array', items: { type: 'string' } },
    currency: { type: 'string' },
    decimals: { type: 'integer' },
    qualities: { type: 'array', items: { type: 'string', enum: ['cached', 'fresh', 'enhanced'] } },
    defaultQuality: { type: 'string' },
    maxTimeoutSeconds: { type: 'integer' },
    networks: {
      type: 'array',
      description:
        'One entry per accepted network: CAIP-2 network, asset, payTo; EVM networks add eip712, Solana networks extra.feePayer (the key x402 SVM clients name as fee payer: the service itself when SOLANA_FEE_PAYER_KEY is set).',
      items: { type: 'object', additionalProperties: true },
    },
    operations: { type: 'array', items: { type: 'object', additionalProperties: true } },
    keyUpgrades: { type: 'array', items: { type: 'object', additionalProperties: true } },
    paymentHeaders: { type: 'array', items: { type: 'string' } },
    qualityHeader: { type: 'string' },
  },
  required: ['x402Version'],
  additionalProperties: true,
}

const jsonRpcMessage = {
  type: 'object',
  description: 'A JSON-RPC 2.0 request or notification (MCP)',
  properties: {
    jsonrpc: { type: 'string', const: '2.0' },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }] },
    method: { type: 'string', examples: ['initialize', 'tools/list', 'tools/call'] },
    params: { type: 'object', additionalProperties: true },
  },
  required: ['jsonrpc', 'method'],
}

const jsonRpcResponse = {
  type: 'object',
  description: 'A JSON-RPC 2.0 response (MCP)',
  properties: {
    jsonrpc: { type: 'string', const: '2.0' },
    id: { oneOf: [{ type: 'string' }, { type: 'integer' }, { type: 'null' }] },
    result: { type: 'object', additionalProperties: true },
    error: {
      type: 'object',
      properties: { code: { type: 'integer' }, message: { type: 'string' }, data: {} },
      required: ['code', 'message'],
    },
  },
  required: ['jsonrpc'],
}

const upgradePrices = UPGRADE_TIERS.map((tier) => `${tier} ${formatUsd(KEY_UPGRADE_PRICES[tier])}`).join(', ')

/** Path -> method -> OpenAPI operation, for every route the registry does not generate. */
export const serviceRoutePaths: Record<string, Record<string, unknown>> = {
  ...discoveryRoutePaths,
  '/health': {
    get: {
      operationId: 'health',
      tags: ['Public'],
      summary: 'Liveness and database reachability',
      security: PUBLIC,
      responses: {
        200: success(
          'The service and its database answer; status degraded names each sanctions list that is not loaded and why',
          healthSchema,
        ),
        503: success('The database does not answer (status degraded)', healthSchema),
        ...errorResponses([500]),
      },
    },
  },
  '/openapi.json': {
    get: {
      operationId: 'openapi_document',
      tags: ['Public'],
      summary: 'This OpenAPI 3.1 document',
      security: PUBLIC,
      responses: {
        200: success('The document', { type: 'object', additionalProperties: true }),
        ...errorResponses([500]),
      },
    },
  },
  '/.well-known/x402.json': {
    get: {
      operationId: 'x402_discovery',
      tags: ['Public', 'Payments'],
      summary: 'x402 discovery: accepted networks, payTo and prices per quality tier',
      security: PUBLIC,
      responses: {
        200: success('The discovery document', discoverySchema),
        ...errorResponses([500]),
      },
    },
  },
  '/v1/methodology': {
    get: {
      operationId: 'methodology',
      tags: ['Public'],
      summary: 'The scoring methodology (Markdown)',
      security: PUBLIC,
      responses: {
        200: {
          description: 'core/scoring/METHODOLOGY.md',
          headers: requestIdHeader,
          content: { 'text/markdown': { schema: { type: 'string' } } },
        },
        ...errorResponses([500]),
      },
    },
  },
  '/v1/keys/create': {
    post: {
      operationId: 'keys_create',
      tags: ['Public', 'Keys'],
      summary: 'Create a sandbox or free API key',
      description:
        'sandbox keys (svc_sandbox_…) get mock data for free; free keys (svc_live_…) get real data and a prepaid balance starting at 0. Other tiers get 422 naming POST /v1/keys/upgrade/{tier}.',
      security: PUBLIC,
      requestBody: jsonBody(toJsonSchema(CreateKeyInput, 'input')),
      responses: {
        201: success('The key, shown once', createdKeySchema),
        ...errorResponses([400, 413, 422, 429, 500, 503]),
      },
    },
  },
  '/v1/keys/upgrade/{tier}': {
    post: {
      operationId: KEY_UPGRADE_OPERATION_ID,
      tags: ['Keys', 'Payments'],
      summary: 'Buy prepaid balance for the calling key with x402 and raise its tier',
      description: `Always paid per call with x402 (${upgradePrices} USD), credited in full once the payment has settled. Needs the key (X-API-Key) and the payment (PAYMENT-SIGNATURE or X-PAYMENT); without a payment the answer is the 402 challenge.`,
      security: [
        { apiKey: [], x402Payment: [] },
        { apiKey: [], x402PaymentV1: [] },
      ],
      parameters: [
        {
          name: 'tier',
          in: 'path',
          required: true,
          schema: { type: 'string', enum: [...UPGRADE_TIERS] },
        },
      ],
      'x-price-usd': {
        x402: Object.fromEntries(UPGRADE_TIERS.map((tier) => [tier, formatUsd(KEY_UPGRADE_PRICES[tier])])),
      },
      responses: {
        200: success('Balance credited and tier raised', upgradedKeySchema, paidSuccessHeaders),
        ...errorResponses([401, 402, 403, 413, 422, 429, 500, 503]),
      },
    },
  },
  '/x402/verify': {
    post: {
      operationId: 'x402_verify',
      tags: ['Payments'],
      summary: 'Facilitator verify: check a payment to this service without using its nonce',
      security: PUBLIC,
      requestBody: jsonBody(schemaRef('FacilitatorRequest')),
      responses: {
        200: success('isValid, or invalidReason with the payment error code', schemaRef('VerifyResponse')),
        400: success(
          'x402 is not configured (invalidReason unsupported_network)',
          schemaRef('VerifyResponse'),
        ),
        ...errorResponses([413, 429, 500, 503]),
      },
    },
  },
  '/x402/settle': {
    post: {
      operationId: 'x402_settle',
      tags: ['Payments'],
      summary: 'Facilitator settle: verify (using the nonce) and settle a payment to this service',
      security: PUBLIC,
      requestBody: jsonBody(schemaRef('FacilitatorRequest')),
      responses: {
        200: success('success with the transaction, or errorReason', schemaRef('SettleResponse')),
        400: success('x402 is not configured (errorReason unsupported_network)', schemaRef('SettleResponse')),
        ...errorResponses([413, 429, 500, 503]),
      },
    },
  },
  '/v1/admin/keys': {
    post: {
      operationId: 'admin_keys_create',
      tags: ['Operator'],
      summary: 'Operator: create a funded live key',
      description: 'Needs the operator key (ADMIN_API_KEY); customer keys get 403 Insufficient role.',
      security: KEY,
      requestBody: jsonBody(toJsonSchema(AdminCreateKeyInput, 'input')),
      responses: {
        201: success('The key, shown once, and its usage record', adminCreatedKeySchema),
        ...errorResponses([400, 401, 403, 413, 422, 429, 500, 503]),
      },
    },
  },
  '/v1/admin/keys/{key_id}/credit': {
    post: {
      operationId: 'admin_keys_credit',
      tags: ['Operator'],
      summary: "Operator: add to a key's prepaid balance",
      description: 'Needs the operator key (ADMIN_API_KEY); customer keys get 403 Insufficient role.',
      security: KEY,
      parameters: [keyIdParameter],
      requestBody: jsonBody(toJsonSchema(AdminCreditInput, 'input')),
      responses: {
        200: success("The key's usage record after the credit", keyUsageSchema),
        ...errorResponses([400, 401, 403, 404, 413, 422, 429, 500, 503]),
      },
    },
  },
  '/v1/admin/keys/{key_id}/revoke': {
    post: {
      operationId: 'admin_keys_revoke',
      tags: ['Operator'],
      summary: 'Operator: revoke a key at once (no body)',
      description: 'Needs the operator key (ADMIN_API_KEY); customer keys get 403 Insufficient role.',
      security: KEY,
      parameters: [keyIdParameter],
      responses: {
        200: success("The key's usage record, status revoked", keyUsageSchema),
        ...errorResponses([401, 403, 404, 422, 429, 500, 503]),
      },
    },
  },
  '/v1/admin/keys/{key_id}/expire': {
    post: {
      operationId: 'admin_keys_expire',
      tags: ['Operator'],
      summary: 'Operator: set when a key stops working (default now)',
      description: 'Needs the operator key (ADMIN_API_KEY); customer keys get 403 Insufficient role.',
      security: KEY,
      parameters: [keyIdParameter],
      requestBody: jsonBody(toJsonSchema(AdminExpireInput, 'input')),
      responses: {
        200: success("The key's usage record with its expires_at", keyUsageSchema),
        ...errorResponses([400, 401, 403, 404, 413, 422, 429, 500, 503]),
      },
    },
  },
  '/v1/admin/sanctions/refresh': {
    post: {
      operationId: 'admin_sanctions_refresh',
      tags: ['Operator'],
      summary: 'Operator: refresh the sanctions lists now, then turn new diffs into alerts',
      description:
        'Needs the operator key (ADMIN_API_KEY). The body is optional (default: every configured list, forced). Answers each list outcome (updated, unchanged, failed with its error, not_configured) and the number of compliance alerts created.',
      security: KEY,
      requestBody: { required: false, content: json(toJsonSchema(AdminRefreshInput, 'input')) },
      responses: {
        200: success('The refresh report and alerts created', {
          type: 'object',
          properties: {
            ran: { type: 'boolean' },
            skipped: { type: 'string', enum: ['lease_held', 'no_sources', 'stopped'] },
            lists: { type: 'array', items: { type: 'object' } },
            alerts_created: { type: 'integer', minimum: 0 },
          },
          required: ['ran', 'lists', 'alerts_created'],
        }),
        ...errorResponses([400, 401, 403, 413, 422, 429, 500, 503]),
      },
    },
  },
  '/v1/admin/sanctions/lists': {
    get: {
      operationId: 'admin_sanctions_lists',
      tags: ['Operator'],
      summary: 'Operator: list versions, dates, counts, last check and error, diffs and their alerts',
      description:
        'Needs the operator key (ADMIN_API_KEY). Per list: the loaded version, every stored version, the last refresh attempt and error, and each diff with whether it was turned into alerts and how many.',
      security: KEY,
      responses: {
        200: success('Per list status', {
          type: 'object',
          properties: { lists: { type: 'array', items: { type: 'object' } } },
          required: ['lists'],
        }),
        ...errorResponses([401, 403, 429, 500, 503]),
      },
    },
  },
  '/mcp': {
    post: {
      operationId: 'mcp',
      tags: ['MCP'],
      summary: 'MCP Streamable HTTP endpoint (stateless; JSON responses)',
      description:
        'Every registry operation is also an MCP tool. Send JSON-RPC with POST and `Accept: application/json, text/event-stream`; GET and DELETE get 405. A browser Origin other than the public base URL, loopback or MCP_ALLOWED_ORIGINS gets 403. With X-API-Key, paid tools are debited from the key; without, a paid tool answers with the x402 PaymentRequired object and is paid through `_meta["x402/payment"]`.',
      security: [{}, { apiKey: [] }],
      parameters: [
        {
          name: 'mcp-protocol-version',
          in: 'header',
          required: false,
          schema: { type: 'string', examples: ['2025-06-18'] },
        },
      ],
      requestBody: jsonBody({ oneOf: [jsonRpcMessage, { type: 'array', items: jsonRpcMessage }] }),
      responses: {
        200: success('JSON-RPC response(s)', {
          oneOf: [jsonRpcResponse, { type: 'array', items: jsonRpcResponse }],
        }),
        202: { description: 'Notification or response accepted (no body)', headers: requestIdHeader },
        400: success('Malformed JSON-RPC (JSON-RPC error body)', jsonRpcResponse),
        403: {
          description: 'Origin not allowed (DNS rebinding protection)',
          headers: requestIdHeader,
          content: { 'application/problem+json': { schema: schemaRef('Problem') } },
        },
        406: success('Accept must include application/json and text/event-stream', jsonRpcResponse),
        415: success('Content-Type must be application/json', jsonRpcResponse),
        ...errorResponses([413, 429, 500]),
      },
    },
  },
}
