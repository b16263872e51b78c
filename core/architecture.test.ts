import { readdirSync, readFileSync } from 'node:fs'
import { join, relative } from 'node:path'
import madge from 'madge'
import { describe, expect, it } from 'vitest'

const CORE = new URL('.', import.meta.url).pathname

/** Production source files of core/ (tests, benchmarks and test helpers excluded). */
function productionFiles(dir = CORE): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name)
    if (entry.isDirectory()) return entry.name === 'testing' ? [] : productionFiles(path)
    return /\.ts$/.test(entry.name) && !/\.(test|bench)\.ts$/.test(entry.name) ? [path] : []
  })
}

/** Source without comments: comments may name a header to explain which one an adapter sets. */
const withoutComments = (source: string) =>
  source.replace(/\/\*[\s\S]*?\*\//g, '').replace(/^\s*\/\/.*$/gm, '')

const importsOf = (source: string) =>
  [...source.matchAll(/^(?:import|export)[^'"]*from\s+'([^']+)'/gm)].map((match) => match[1] as string)

/** DESIGN: dependencies point one way; core knows no transport (CONVENTIONS 1). */
describe('core architecture', () => {
  const files = productionFiles().map((path) => ({
    name: relative(CORE, path),
    source: readFileSync(path, 'utf8'),
  }))

  it('has no import circle (npx madge --circular --extensions ts core)', async () => {
    const graph = await madge(CORE, { fileExtensions: ['ts'] })
    expect(graph.circular()).toEqual([])
  })

  it('keeps context.ts a leaf', () => {
    const context = files.find((file) => file.name === 'context.ts')
    expect(context && importsOf(context.source)).toEqual([])
  })

  it('imports no Hono, no MCP SDK and no x402 middleware', () => {
    for (const file of files) {
      for (const specifier of importsOf(file.source)) {
        expect(specifier, file.name).not.toMatch(/^(hono|@hono\/|@modelcontextprotocol\/|@x402\/|x402-)/)
      }
    }
  })

  it('names no response header of its own (adapters render receipts and challenges)', () => {
    const headers =
      /['"`](X-Payment[\w-]*|PAYMENT-(RESPONSE|REQUIRED)|X-PAYMENT-RESPONSE|X-Charged-Amount|X-Balance-Remaining|Retry-After|X-RateLimit-[\w-]+)['"`]/i
    for (const file of files) expect(withoutComments(file.source), file.name).not.toMatch(headers)
  })

  it('lets payments depend on nothing in operations', () => {
    for (const file of files.filter((candidate) => candidate.name.startsWith('payments/'))) {
      for (const specifier of importsOf(file.source)) expect(specifier, file.name).not.toMatch(/operations\//)
    }
  })
})
