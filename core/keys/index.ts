export {
  type ApiKeyService,
  type CreatedKey,
  createApiKeyService,
  hashKey,
  KEY_PREFIX,
  type KeyRecord,
  SELF_SERVICE_TIERS,
  TIERS,
  tierAtLeast,
} from './api-keys.ts'
export {
  AdminCreateKeyInput,
  AdminCreditInput,
  AdminExpireInput,
  AdminKeyPath,
  CreateKeyInput,
} from './key-schemas.ts'
export { keyUsageView } from './key-views.ts'
