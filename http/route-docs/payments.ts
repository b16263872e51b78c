import { formatUsd } from '../../core/money.ts'
import { toJsonSchema } from '../../core/operations/json-schema.ts'
import { KeysUsageResult } from '../../core/operations/keys-usage.ts'
import { KEY_UPGRADE_OPERATION_ID, KEY_UPGRADE_PRICES, UPGRADE_TIERS } from '../../core/payments/pricing.ts'
import { jsonBody, jsonResponse, type RouteDescription, sharedSchema } from '../route-description.ts'

/** The payment routes of http/routes/payment-routes.ts: x402 discovery, key top-ups, the facilitator routes. */

const keyUsageSchema = toJsonSchema(KeysUsageResult, 'output')

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
    'Networks, USDC contracts, payTo addresses and every price per quality tier, with the x402 Bazaar discovery data of each priced operation; {x402Version, enabled: false, note} when x402 is not configured.',
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
    serviceName: {
      type: 'string',
      description: 'x402 Bazaar service name (the resource.serviceName of every 402 challenge)',
    },
    tags: {
      type: 'array',
      items: { type: 'string' },
      description: 'x402 Bazaar service tags (the resource.tags of every 402 challenge)',
    },
    operations: {
      type: 'array',
      description:
        'One entry per priced operation: method, path, resource URL, prices per tier, and extensions.bazaar (coinbase/x402 specs/extensions/bazaar.md: info.input with the method and an example input, info.output, and the JSON Schema validating info, which holds the input and output schemas)',
      items: { type: 'object', additionalProperties: true },
    },
    keyUpgrades: { type: 'array', items: { type: 'object', additionalProperties: true } },
    paymentHeaders: { type: 'array', items: { type: 'string' } },
    qualityHeader: { type: 'string' },
  },
  required: ['x402Version'],
  additionalProperties: true,
}

const x402Discovery: RouteDescription = {
  id: 'x402_discovery',
  method: 'GET',
  path: '/.well-known/x402.json',
  tags: ['Public', 'Payments'],
  summary: 'x402 discovery: accepted networks, payTo and prices per quality tier',
  access: 'public',
  responses: [jsonResponse(200, 'The discovery document', discoverySchema)],
  errors: [500],
}

const upgradePrices = UPGRADE_TIERS.map((tier) => `${tier} ${formatUsd(KEY_UPGRADE_PRICES[tier])}`).join(', ')

const keyUpgrade: RouteDescription = {
  id: KEY_UPGRADE_OPERATION_ID,
  method: 'POST',
  path: '/v1/keys/upgrade/{tier}',
  tags: ['Keys', 'Payments'],
  summary: 'Buy prepaid balance for the calling key with x402 and raise its tier',
  description: `Always paid per call with x402 (${upgradePrices} USD), credited in full once the payment has settled. Needs the key (X-API-Key) and the payment (PAYMENT-SIGNATURE or X-PAYMENT); without a payment the answer is the 402 challenge.`,
  access: 'key-and-payment',
  parameters: [
    { name: 'tier', in: 'path', required: true, schema: { type: 'string', enum: [...UPGRADE_TIERS] } },
  ],
  priceUsd: {
    x402: Object.fromEntries(UPGRADE_TIERS.map((tier) => [tier, formatUsd(KEY_UPGRADE_PRICES[tier])])),
  },
  responses: [jsonResponse(200, 'Balance credited and tier raised', upgradedKeySchema, ['payment'])],
  errors: [401, 402, 403, 413, 422, 429, 500, 503],
}

const x402Verify: RouteDescription = {
  id: 'x402_verify',
  method: 'POST',
  path: '/x402/verify',
  tags: ['Payments'],
  summary: 'Facilitator verify: check a payment to this service without using its nonce',
  access: 'public',
  body: jsonBody(sharedSchema('FacilitatorRequest')),
  responses: [
    jsonResponse(
      200,
      'isValid, or invalidReason with the payment error code',
      sharedSchema('VerifyResponse'),
    ),
    jsonResponse(
      400,
      'x402 is not configured (invalidReason unsupported_network)',
      sharedSchema('VerifyResponse'),
    ),
  ],
  errors: [413, 429, 500, 503],
}

const x402Settle: RouteDescription = {
  id: 'x402_settle',
  method: 'POST',
  path: '/x402/settle',
  tags: ['Payments'],
  summary: 'Facilitator settle: verify (using the nonce) and settle a payment to this service',
  access: 'public',
  body: jsonBody(sharedSchema('FacilitatorRequest')),
  responses: [
    jsonResponse(200, 'success with the transaction, or errorReason', sharedSchema('SettleResponse')),
    jsonResponse(
      400,
      'x402 is not configured (errorReason unsupported_network)',
      sharedSchema('SettleResponse'),
    ),
  ],
  errors: [413, 429, 500, 503],
}

export const paymentRoutes: readonly RouteDescription[] = [x402Discovery, keyUpgrade, x402Verify, x402Settle]
