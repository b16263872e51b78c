import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, relative, resolve } from 'node:path'
import madge from 'madge'
import { describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '..')

/** The production layers, each a top-level folder; `test/` and `bench/` are not among them. */
const PRODUCTION_LAYERS = ['core', 'http', 'tools', 'server', 'client'] as const

/** Production source files of a top-level folder, relative to the root (tests excluded). */
function productionFiles(folder: string): string[] {
  const walk = (dir: string): string[] =>
    readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) return walk(path)
      return /\.ts$/.test(entry.name) && !/\.test\.ts$/.test(entry.name) ? [relative(ROOT, path)] : []
    })
  return walk(join(ROOT, folder))
}

/** Source without comments: comments may name a header to explain which one an adapter sets. */
const withoutComments = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')

const importsOf = (source: string) =>
  [...source.matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((match) => match[1] as string)

/** The top-level folder a relative import of `file` lands in (undefined for a package import). */
function layerOf(file: string, specifier: string): string | undefined {
  if (!specifier.startsWith('.')) return undefined
  return relative(ROOT, resolve(ROOT, dirname(file), specifier)).split('/')[0]
}

const files = PRODUCTION_LAYERS.flatMap(productionFiles).map((name) => ({
  name,
  layer: name.split('/')[0] as string,
  source: readFileSync(join(ROOT, name), 'utf8'),
}))
const core = files.filter((file) => file.layer === 'core')

/** DESIGN: dependencies point one way; core knows no transport (CONVENTIONS 1). */
describe('architecture', () => {
  // madge parses every file with the TypeScript compiler: seconds of CPU, more on a busy machine.
  it('has no import circle (npx madge --circular --extensions ts core http tools server client)', {
    timeout: 120_000,
  }, async () => {
    const graph = await madge(
      PRODUCTION_LAYERS.map((layer) => join(ROOT, layer)),
      { fileExtensions: ['ts'] },
    )
    expect(graph.circular()).toEqual([])
  })

  it('keeps test harnesses and benchmarks out of production code', () => {
    for (const file of files) {
      for (const specifier of importsOf(file.source)) {
        expect(['test', 'bench'], `${file.name} imports ${specifier}`).not.toContain(
          layerOf(file.name, specifier),
        )
      }
    }
  })

  it('lets core import nothing from the adapters or the composition root', () => {
    for (const file of core) {
      for (const specifier of importsOf(file.source)) {
        expect(layerOf(file.name, specifier), `${file.name} imports ${specifier}`).toBe(
          specifier.startsWith('.') ? 'core' : undefined,
        )
      }
    }
  })

  it('keeps context.ts a leaf', () => {
    const context = core.find((file) => file.name === 'core/context.ts')
    expect(context && importsOf(context.source)).toEqual([])
  })

  it('imports no Hono, no MCP SDK and no x402 middleware into core', () => {
    for (const file of core) {
      for (const specifier of importsOf(file.source)) {
        expect(specifier, file.name).not.toMatch(/^(hono|@hono\/|@modelcontextprotocol\/|@x402\/|x402-)/)
      }
    }
  })

  it('names no response header in core (adapters render receipts and challenges)', () => {
    const headers =
      /['"`](X-Payment[\w-]*|PAYMENT-(RESPONSE|REQUIRED)|X-PAYMENT-RESPONSE|X-Charged-Amount|X-Balance-Remaining|Retry-After|X-RateLimit-[\w-]+)['"`]/i
    for (const file of core) expect(withoutComments(file.source), file.name).not.toMatch(headers)
  })

  it('lets payments depend on nothing in operations', () => {
    for (const file of core.filter((candidate) => candidate.name.startsWith('core/payments/'))) {
      for (const specifier of importsOf(file.source)) expect(specifier, file.name).not.toMatch(/operations\//)
    }
  })
})
