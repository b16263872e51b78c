/**
 * How `npm start` runs the service (package.json `scripts.start`): the environment it sets and the
 * Node flags it passes. Benchmarks that start the service in a child process run it the same way,
 * so their memory and CPU figures are those of the real start command, not of a bare `node`.
 */
import { readFileSync } from 'node:fs'

export interface StartCommand {
  /** Variables the start command sets (e.g. glibc malloc settings read before any code runs). */
  env: Record<string, string>
  /** Flags given to node before the entry file (e.g. V8 heap settings). */
  nodeFlags: string[]
}

const START = /^((?:[A-Z_][A-Z0-9_]*=\S+\s+)*)exec node((?:\s+--\S+)*)\s+server\/main\.ts$/

/** Reads the start script; throws when it no longer has the shape `[VAR=value ...] exec node [--flag ...] server/main.ts`. */
export function startCommand(): StartCommand {
  const pkg = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as {
    scripts: { start: string }
  }
  const match = START.exec(pkg.scripts.start.trim())
  if (!match) throw new Error(`package.json scripts.start has an unexpected shape: ${pkg.scripts.start}`)
  const env = Object.fromEntries(
    match[1]!
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map((pair) => [pair.slice(0, pair.indexOf('=')), pair.slice(pair.indexOf('=') + 1)]),
  )
  const nodeFlags = match[2]!.trim().split(/\s+/).filter(Boolean)
  return { env, nodeFlags }
}

/**
 * Throws on a Node without type stripping (the service's `engines`: 22.18 or newer): benchmarks
 * that start children run them on it, as `npm start` runs the service.
 */
export function assertTypeStripping(): void {
  if (!(process.features as { typescript?: unknown }).typescript)
    throw new Error(
      `this benchmark runs the service as npm start does, on Node's own type stripping; Node ${process.version} has none: run it with Node 24 or 22.18+`,
    )
}

/**
 * The Node arguments that run `entry` as `npm start` runs the service: its flags, then the file on
 * Node's own type stripping. Not this process's loader (`tsx` runs the benchmark scripts): under it
 * every module of the service would be compiled by esbuild instead, with CPU and memory costs of
 * its own that `npm start` does not have.
 */
export function serviceNodeArgs(entry: string, extraFlags: readonly string[] = []): string[] {
  assertTypeStripping()
  return [...startCommand().nodeFlags, ...extraFlags, entry]
}
