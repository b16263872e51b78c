import { inject } from 'vitest'
import { bundledEntry } from './entry-bundles.ts'

/**
 * The arguments that make `process.execPath` run a TypeScript entry point in a test: the bundle
 * the global setup built of it this run (test/support/entry-bundles.ts: it starts in about half
 * the time), or else its sources. Node 22.18+ and 24 strip types themselves
 * (`process.features.typescript`), which starts a process of this code base about 1.5 s sooner
 * than the tsx loader (it transforms every module on load); older Nodes get tsx. The code base
 * keeps to erasable syntax (`erasableSyntaxOnly` in tsconfig.json) so both run it alike.
 */
export function tsEntry(script: string, ...args: string[]): string[] {
  const bundles = inject('entryBundles')
  const bundle = bundles ? bundledEntry(bundles, script) : undefined
  if (bundle) return [bundle, ...args]
  const features = process.features as { typescript?: string | false }
  return features.typescript ? [script, ...args] : ['--import', 'tsx', script, ...args]
}
