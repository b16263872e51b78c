export {
  createProviderDirectory,
  DEGRADED_ERROR_RATE,
  type MeasuredHealth,
  measuredHealth,
  type ProviderDirectory,
  type ProviderHealth,
  type ProviderItem,
  type ProviderRegistrations,
  type ProviderRuntime,
  type ProviderStatus,
  publicEndpoint,
  statusOfCalls,
  uuidV5,
} from './provider-directory.ts'
export { createProviderRegistrations } from './provider-registrations.ts'
export { PROVIDERS, type ProviderDefinition, type ProviderKind, type TrustLevel } from './providers.ts'
