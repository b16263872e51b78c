import { CreateKeyInput } from '../../core/keys/index.ts'
import { toJsonSchema } from '../../core/operations/json-schema.ts'
import { jsonBody, jsonResponse, type RouteDescription } from '../route-description.ts'

/** The public routes of http/routes/public-routes.ts: health, this document, the methodology, key creation. */

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
    checked_ms_ago: {
      type: 'integer',
      minimum: 0,
      description:
        'How old the database and list state above is: it is checked in the background about once a second (a hung database counts as unreachable after 2 s), not on each request',
    },
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

const health: RouteDescription = {
  id: 'health',
  method: 'GET',
  path: '/health',
  tags: ['Public'],
  summary: 'Liveness and database reachability',
  access: 'public',
  responses: [
    jsonResponse(
      200,
      'The service and its database answer; status degraded names each sanctions list that is not loaded and why',
      healthSchema,
    ),
    jsonResponse(503, 'The database does not answer (status degraded)', healthSchema),
  ],
  errors: [500],
}

const openApiDocument: RouteDescription = {
  id: 'openapi_document',
  method: 'GET',
  path: '/openapi.json',
  tags: ['Public'],
  summary: 'This OpenAPI 3.1 document',
  access: 'public',
  responses: [jsonResponse(200, 'The document', { type: 'object', additionalProperties: true })],
  errors: [500],
}

const methodology: RouteDescription = {
  id: 'methodology',
  method: 'GET',
  path: '/v1/methodology',
  tags: ['Public'],
  summary: 'The scoring methodology (Markdown)',
  access: 'public',
  responses: [
    {
      status: 200,
      description: 'core/scoring/METHODOLOGY.md',
      content: { 'text/markdown': { type: 'string' } },
    },
  ],
  errors: [500],
}

const keysCreate: RouteDescription = {
  id: 'keys_create',
  method: 'POST',
  path: '/v1/keys/create',
  tags: ['Public', 'Keys'],
  summary: 'Create a sandbox or free API key',
  description:
    'sandbox keys (svc_sandbox_…) get mock data for free; free keys (svc_live_…) get real data and a prepaid balance starting at 0. Other tiers get 422 naming POST /v1/keys/upgrade/{tier}. Limited per client address (default 5 per minute and 20 per rolling 24 hours; an IPv6 address by its /64) and per e-mail mailbox (default 3 per rolling 24 hours; letter case, a +tag and Gmail dots ignored): past either, 429 with Retry-After and X-RateLimit-* naming the limit; a created key carries X-RateLimit-* of the tighter one.',
  access: 'public',
  body: jsonBody(toJsonSchema(CreateKeyInput, 'input')),
  responses: [jsonResponse(201, 'The key, shown once', createdKeySchema)],
  errors: [400, 413, 422, 429, 500, 503],
}

export const publicRoutes: readonly RouteDescription[] = [health, openApiDocument, methodology, keysCreate]
