export {
  type AnyOperation,
  defineOperation,
  type HttpMethod,
  type OperationAccess,
  type OperationDefinition,
  type OperationHttp,
} from './define.ts'
export {
  type InvocationRequest,
  type InvocationResult,
  invokeOperation,
  type OperationRuntime,
  outcomeOf,
  parseQuality,
} from './invoke.ts'
export {
  companyCheckDeps,
  keyCallerOf,
  type OperationContext,
  type ServiceDeps,
} from './operation-context.ts'
export { operations, sandboxMockIds } from './registry.ts'
export { colonPath, fillPath, pathParameters, pathPattern } from './route-path.ts'
