import type { AnyOperation } from './define.ts'
import { entityCheck } from './entity-check.ts'
import { kybCheck } from './kyb-check.ts'
import { reputationScore } from './reputation-score.ts'
import { riskScore } from './risk-score.ts'
import { sanctionsScreen } from './sanctions-screen.ts'

/** The operation registry: every REST route under /v1 and every MCP tool comes from this list. */
export const operations: readonly AnyOperation[] = [
  entityCheck,
  riskScore,
  reputationScore,
  kybCheck,
  sanctionsScreen,
] as AnyOperation[]

export {
  type AnyOperation,
  defineOperation,
  type OperationDefinition,
  priceFor,
  type Quality,
} from './define.ts'
