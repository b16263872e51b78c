import { AdminCreateKeyInput, AdminCreditInput, AdminExpireInput } from '../../core/keys/index.ts'
import { MaintenanceInput } from '../../core/maintenance/index.ts'
import { AdminRefreshInput } from '../../core/monitoring/operator-view.ts'
import { toJsonSchema } from '../../core/operations/json-schema.ts'
import { KeysUsageResult } from '../../core/operations/keys-usage.ts'
import {
  jsonBody,
  jsonResponse,
  keyRouteProblems,
  OPERATOR_ONLY,
  type ProblemTraits,
  type RouteDescription,
} from '../route-description.ts'

/**
 * The operator routes (http/routes/admin-routes.ts, admin-sanctions-routes.ts): the operator key
 * only (ADMIN_API_KEY); customer keys get 403 Insufficient role.
 */

/** The problems of an operator route: the operator key only, rate-limited like every key. */
const operatorProblems = (traits: Omit<ProblemTraits, 'scope' | 'rateLimited'> = {}) =>
  keyRouteProblems({ scope: 'operator', rateLimited: true, ...traits })

const keyUsageSchema = toJsonSchema(KeysUsageResult, 'output')

const adminCreatedKeySchema = {
  ...keyUsageSchema,
  properties: {
    api_key: { type: 'string', description: 'The key; shown once' },
    ...(keyUsageSchema.properties as object),
  },
  required: ['api_key', ...((keyUsageSchema.required as string[] | undefined) ?? [])],
}

const keyIdParameter = {
  name: 'key_id',
  in: 'path',
  required: true,
  description: 'key_id from the key creation; a control character in it is a 422, an unknown id a 404',
  schema: { type: 'string', minLength: 1, maxLength: 100 },
} as const

const adminKeysCreate: RouteDescription = {
  id: 'admin_keys_create',
  method: 'POST',
  path: '/v1/admin/keys',
  tags: ['Operator'],
  summary: 'Operator: create a funded live key',
  description: OPERATOR_ONLY,
  access: 'key',
  body: jsonBody(toJsonSchema(AdminCreateKeyInput, 'input')),
  responses: [jsonResponse(201, 'The key, shown once, and its usage record', adminCreatedKeySchema)],
  errors: operatorProblems({ body: true }),
}

const adminKeysCredit: RouteDescription = {
  id: 'admin_keys_credit',
  method: 'POST',
  path: '/v1/admin/keys/{key_id}/credit',
  tags: ['Operator'],
  summary: "Operator: add to a key's prepaid balance",
  description: OPERATOR_ONLY,
  access: 'key',
  parameters: [keyIdParameter],
  body: jsonBody(toJsonSchema(AdminCreditInput, 'input')),
  responses: [jsonResponse(200, "The key's usage record after the credit", keyUsageSchema)],
  errors: operatorProblems({ body: true, parameters: true, lookup: true }),
}

const adminKeysRevoke: RouteDescription = {
  id: 'admin_keys_revoke',
  method: 'POST',
  path: '/v1/admin/keys/{key_id}/revoke',
  tags: ['Operator'],
  summary: 'Operator: revoke a key at once (no body)',
  description: OPERATOR_ONLY,
  access: 'key',
  parameters: [keyIdParameter],
  responses: [jsonResponse(200, "The key's usage record, status revoked", keyUsageSchema)],
  errors: operatorProblems({ parameters: true, lookup: true }),
}

const adminKeysExpire: RouteDescription = {
  id: 'admin_keys_expire',
  method: 'POST',
  path: '/v1/admin/keys/{key_id}/expire',
  tags: ['Operator'],
  summary: 'Operator: set when a key stops working (default now)',
  description: OPERATOR_ONLY,
  access: 'key',
  parameters: [keyIdParameter],
  body: jsonBody(toJsonSchema(AdminExpireInput, 'input')),
  responses: [jsonResponse(200, "The key's usage record with its expires_at", keyUsageSchema)],
  errors: operatorProblems({ body: true, parameters: true, lookup: true }),
}

const adminSanctionsRefresh: RouteDescription = {
  id: 'admin_sanctions_refresh',
  method: 'POST',
  path: '/v1/admin/sanctions/refresh',
  tags: ['Operator'],
  summary: 'Operator: refresh the sanctions lists now, then turn new diffs into alerts',
  description:
    'Needs the operator key (ADMIN_API_KEY). The body is optional (default: every configured list, forced). Answers each list outcome (updated, unchanged, failed with its error, not_configured) and the number of compliance alerts created.',
  access: 'key',
  body: { required: false, schema: toJsonSchema(AdminRefreshInput, 'input') },
  responses: [
    jsonResponse(200, 'The refresh report and alerts created', {
      type: 'object',
      properties: {
        ran: { type: 'boolean' },
        skipped: { type: 'string', enum: ['lease_held', 'no_sources', 'stopped'] },
        lists: { type: 'array', items: { type: 'object' } },
        alerts_created: { type: 'integer', minimum: 0 },
      },
      required: ['ran', 'lists', 'alerts_created'],
    }),
  ],
  errors: operatorProblems({ body: true }),
}

const adminSanctionsLists: RouteDescription = {
  id: 'admin_sanctions_lists',
  method: 'GET',
  path: '/v1/admin/sanctions/lists',
  tags: ['Operator'],
  summary: 'Operator: list versions, dates, counts, last check and error, diffs and their alerts',
  description:
    'Needs the operator key (ADMIN_API_KEY). Per list: the loaded version, every stored version, the last refresh attempt and error, and each diff with whether it was turned into alerts and how many.',
  access: 'key',
  responses: [
    jsonResponse(200, 'Per list status', {
      type: 'object',
      properties: { lists: { type: 'array', items: { type: 'object' } } },
      required: ['lists'],
    }),
  ],
  errors: operatorProblems(),
}

const maintenanceStateSchema = {
  type: 'object',
  properties: {
    enabled: { type: 'boolean', description: 'True while priced and key routes answer 503' },
    message: { type: 'string', description: 'What callers are told while it is on' },
    retry_after_seconds: { type: 'integer', description: 'The Retry-After callers get while it is on' },
    changed_at: { type: ['string', 'null'], description: 'When it was last switched (null: never)' },
    changed_by: {
      type: ['string', 'null'],
      enum: ['admin_api', 'cli', null],
      description: 'Who switched it last: the operator API or the CLI (null: never)',
    },
  },
  required: ['enabled', 'message', 'retry_after_seconds', 'changed_at', 'changed_by'],
  additionalProperties: false,
}

const MAINTENANCE_NOTE =
  'While on, every priced and key route answers 503 with the message, Retry-After and errorCode maintenance, charging nothing (the operator key still works); /health (status maintenance) and the public routes keep answering. Every process on the database follows within 2 seconds. Also: npm run cli -- maintenance on|off|status.'

const adminMaintenanceGet: RouteDescription = {
  id: 'admin_maintenance_get',
  method: 'GET',
  path: '/v1/admin/maintenance',
  tags: ['Operator'],
  summary: 'Operator: the maintenance switch',
  description: `${OPERATOR_ONLY} ${MAINTENANCE_NOTE}`,
  access: 'key',
  responses: [jsonResponse(200, 'The switch now', maintenanceStateSchema)],
  errors: operatorProblems(),
}

const adminMaintenanceSet: RouteDescription = {
  id: 'admin_maintenance_set',
  method: 'PUT',
  path: '/v1/admin/maintenance',
  tags: ['Operator'],
  summary: 'Operator: turn maintenance mode on or off',
  description: `${OPERATOR_ONLY} ${MAINTENANCE_NOTE}`,
  access: 'key',
  body: jsonBody(toJsonSchema(MaintenanceInput, 'input')),
  responses: [jsonResponse(200, 'The switch after the change', maintenanceStateSchema)],
  errors: operatorProblems({ body: true }),
}

export const operatorRoutes: readonly RouteDescription[] = [
  adminMaintenanceGet,
  adminMaintenanceSet,
  adminKeysCreate,
  adminKeysCredit,
  adminKeysRevoke,
  adminKeysExpire,
  adminSanctionsRefresh,
  adminSanctionsLists,
]
