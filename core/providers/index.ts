export {
  createProviderDirectory,
  type ProviderDirectory,
  type ProviderItem,
  type ProviderRuntime,
  type ProviderStatus,
  publicEndpoint,
  statusOfCircuit,
  uuidV5,
} from './provider-directory.ts'
export { PROVIDERS, type ProviderDefinition, type ProviderKind, type TrustLevel } from './providers.ts'
