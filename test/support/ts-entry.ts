import { inject } from 'vitest'
import { bundledEntry } from './entry-bundles.ts'

/**
 * The arguments that make `process.execPath` run a TypeScript entry point in a test: the bundle
 * the global setup built of it this run (test/support/entry-bundles.ts: it starts in about half
 * the time), or else its sources, which Node (22.18 or newer, as `engines` requires) runs with
 * its own type stripping.
 */
export function tsEntry(script: string, ...args: string[]): string[] {
  const bundles = inject('entryBundles')
  return [(bundles && bundledEntry(bundles, script)) || script, ...args]
}
