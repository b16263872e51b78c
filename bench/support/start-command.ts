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
