import { readFile } from 'node:fs/promises'
import { parseArgs } from 'node:util'
import { type TrustedKeys, trustedKeysFrom } from '../core/reports/evidence.ts'
import type { CliCommand } from './command.ts'

/**
 * The frame of the `validation-cli … verify` commands (signed reports, signed receipts): one file
 * to check, keys the verifier chose (never the ones the document names), and the same exit codes
 * (0 verified, 1 not verified, 2 usage, no key source or unreadable input).
 */

/** Where the trusted keys came from, as the verifier chose it (shown in the output). */
export interface KeySource {
  /** A file path or an http(s) URL. */
  location: string
  /** How it was chosen: a flag or an environment variable. */
  chosenBy: '--jwks' | '--url' | 'VALIDATION_JWKS' | 'VALIDATION_API_URL'
}

/** The JWKS of a service at its base URL (the spec's public `GET /.well-known/jwks.json`). */
function jwksUrlOf(baseUrl: string): string {
  return `${baseUrl.replace(/\/+$/, '')}/.well-known/jwks.json`
}

/**
 * The key source the verifier chose: `--jwks` (a file or URL), else `--url` (the service whose
 * JWKS to fetch), else the same two from the environment. Never the document's own JWKS URL:
 * whoever forged a report or receipt wrote that URL too.
 */
export function chooseKeySource(values: { jwks?: string; url?: string }): KeySource | undefined {
  if (values.jwks) return { location: values.jwks, chosenBy: '--jwks' }
  if (values.url) return { location: jwksUrlOf(values.url), chosenBy: '--url' }
  if (process.env.VALIDATION_JWKS)
    return { location: process.env.VALIDATION_JWKS, chosenBy: 'VALIDATION_JWKS' }
  if (process.env.VALIDATION_API_URL) {
    return { location: jwksUrlOf(process.env.VALIDATION_API_URL), chosenBy: 'VALIDATION_API_URL' }
  }
  return undefined
}

/** The trusted keys from a URL (http/https) or a local key file (JWKS or kid-to-key map). */
export async function loadTrustedKeys(location: string): Promise<TrustedKeys> {
  if (/^https?:\/\//i.test(location)) {
    const response = await fetch(location, { signal: AbortSignal.timeout(10_000) })
    if (!response.ok) throw new Error(`GET ${location}: HTTP ${response.status}`)
    return trustedKeysFrom(await response.json())
  }
  return trustedKeysFrom(JSON.parse(await readFile(location, 'utf8')))
}

/** What a verify command checks, and how it reads and verifies it. */
export interface VerifySpec<T> {
  summary: string
  usage: string
  /** Why a source of keys is needed, said when none was chosen (after "no trusted keys chosen."). */
  noKeysHint: string
  /** Further string flags (besides --jwks and --url), each refused when given empty. */
  options?: readonly string[]
  /** Reads the file (and the further flags); throws with a message saying why it cannot. */
  read(file: string, values: Record<string, string | undefined>): Promise<T>
  /**
   * Verifies against the chosen keys: `ok`, the JSON to print, and on failure what to say on
   * stderr (if anything).
   */
  verify(
    input: T,
    keys: TrustedKeys,
    context: { file: string; source: KeySource },
  ): Promise<{ ok: boolean; output: Record<string, unknown>; failure?: string }>
}

const messageOf = (error: unknown) => (error instanceof Error ? error.message : String(error))

/** A `validation-cli … verify <file>` command: argument checks, key choice, reading, exit codes. */
export function verifyCommand<T>(spec: VerifySpec<T>): CliCommand {
  const names = ['jwks', 'url', ...(spec.options ?? [])]
  return {
    summary: spec.summary,
    usage: spec.usage,
    async run(args) {
      let values: Record<string, string | undefined>
      let positionals: string[]
      try {
        ;({ values, positionals } = parseArgs({
          args,
          allowPositionals: true,
          options: Object.fromEntries(names.map((name) => [name, { type: 'string' as const }])),
        }) as { values: Record<string, string | undefined>; positionals: string[] })
      } catch (error) {
        process.stderr.write(`${(error as Error).message}\n\n${spec.usage}\n`)
        return 2
      }
      const file = positionals[0]
      if (!file || positionals.length > 1 || names.some((name) => values[name] === '')) {
        process.stderr.write(`${spec.usage}\n`)
        return 2
      }
      const source = chooseKeySource(values)
      if (!source) {
        process.stderr.write(`cannot verify: no trusted keys chosen. ${spec.noKeysHint}\n`)
        return 2
      }
      let input: T
      let keys: TrustedKeys
      try {
        input = await spec.read(file, values)
      } catch (error) {
        process.stderr.write(`cannot verify: ${messageOf(error)}\n`)
        return 2
      }
      try {
        keys = await loadTrustedKeys(source.location)
      } catch (error) {
        process.stderr.write(
          `cannot verify: trusted keys from ${source.location} (${source.chosenBy}): ${messageOf(error)}\n`,
        )
        return 2
      }
      const outcome = await spec.verify(input, keys, { file, source })
      process.stdout.write(`${JSON.stringify(outcome.output, null, 2)}\n`)
      if (!outcome.ok && outcome.failure) process.stderr.write(`${outcome.failure}\n`)
      return outcome.ok ? 0 : 1
    },
  }
}
