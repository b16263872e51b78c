import type { KeyCaller } from '../context.ts'
import { ServiceError } from '../errors.ts'

/**
 * spec: Permissions: operator routes (`/v1/admin/*`) are for the operator key only; every
 * customer key, whatever its tier, gets 403 "Insufficient role".
 */
export function assertOperator(caller: KeyCaller): void {
  if (caller.role !== 'admin') throw new ServiceError('forbidden', 'Insufficient role')
}
