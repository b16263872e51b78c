import type { Context, MiddlewareHandler } from 'hono'
import type { KeyCaller } from '../../core/context.ts'
import { ServiceError } from '../../core/errors.ts'
import type { ApiKeyService } from '../../core/keys/index.ts'
import { assertOperator } from '../../core/keys/roles.ts'
import type { AppEnv } from '../env.ts'

/** Middleware: the route needs an API key (401 without one); the caller is set on the context. */
export function requireKey(keys: Pick<ApiKeyService, 'authenticate'>): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const caller = await keys.authenticate(c.req.header('x-api-key'))
    if (caller.kind !== 'key') throw new ServiceError('unauthorized', 'an API key is required (X-API-Key)')
    c.set('caller', caller)
    await next()
  }
}

/** Middleware after requireKey: operator key only (customers get 403 Insufficient role). */
export function requireOperator(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    assertOperator(keyCaller(c))
    await next()
  }
}

/** The caller requireKey set. */
export function keyCaller(c: Context<AppEnv>): KeyCaller {
  const caller = c.get('caller')
  if (!caller) throw new Error('keyCaller() used on a route without requireKey()')
  return caller
}
