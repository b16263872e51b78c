import { TrieRouter } from 'hono/router/trie-router'
import type { RouterRoute } from 'hono/types'

/** Hono's method of a middleware (`use`) or an `all` route: it says nothing about what a path allows. */
const ANY_METHOD = 'ALL'

/**
 * The methods each path answers, from the routes an app registered (sub-apps included), for the
 * 405 of a known path called with another method (RFC 9110 15.5.6: the answer lists them in
 * `Allow`). Middleware and `all` routes are left out. GET implies HEAD (Hono answers HEAD with the
 * GET handler).
 */
export function allowedMethodsOf(routes: readonly RouterRoute[]): (path: string) => string[] {
  const methods = [...new Set(routes.map((route) => route.method).filter((method) => method !== ANY_METHOD))]
  const router = new TrieRouter<string>()
  for (const route of routes) {
    if (route.method !== ANY_METHOD) router.add(route.method, route.path, route.method)
  }
  return (path) => {
    const allowed = methods.filter((method) => router.match(method, path)[0].length > 0)
    if (allowed.includes('GET')) allowed.splice(allowed.indexOf('GET') + 1, 0, 'HEAD')
    return allowed
  }
}
