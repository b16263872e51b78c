import { readFileSync } from 'node:fs'
import { Ajv } from 'ajv'
import addFormats from 'ajv-formats'
import { describe, expect, it } from 'vitest'
import { ConfigSchema } from '../server/config.ts'

/**
 * server.json (the MCP registry's format) and mcp.json (the client config shown to users),
 * checked offline. The registry schema is vendored: test/support/mcp-registry/server.schema.json
 * is https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json, the schema
 * version server.json names (from github.com/modelcontextprotocol/static, schemas/2025-12-11,
 * commit a9ba437d9fbbe92076a24b20d56449ac7c7786ac; byte for byte, sha256 3fba0959…4114de0, kept out of the
 * formatter in biome.json). Bump both together on purpose.
 */

const read = (file: string) => JSON.parse(readFileSync(new URL(`../${file}`, import.meta.url), 'utf8'))
const schema = read('test/support/mcp-registry/server.schema.json')
const serverJson = read('server.json')
const packageJson = read('package.json')
const mcpJson = read('mcp.json')

function validator() {
  // Strict, but for the OpenAPI `example` annotation the schema uses and its `required` lists
  // naming properties defined in another allOf branch (valueHint): both are authoring style.
  const ajv = new Ajv({ allErrors: true, strict: true, strictRequired: false })
  ajv.addKeyword('example')
  addFormats.default(ajv)
  return ajv.compile(schema)
}

interface EnvironmentVariable {
  name: string
  choices?: string[]
  default?: string
}

describe('server.json for the MCP registry', () => {
  it('is valid against the registry schema it names', () => {
    expect(serverJson.$schema).toBe(schema.$id)
    expect(schema.$id).toBe('https://static.modelcontextprotocol.io/schemas/2025-12-11/server.schema.json')
    const validate = validator()
    const valid = validate(serverJson)
    expect(validate.errors ?? []).toEqual([])
    expect(valid).toBe(true)
  })

  it('the schema check can fail: a description over 100 characters, a "latest" package version, no url', () => {
    const validate = validator()
    expect(validate({ ...serverJson, description: 'x'.repeat(101) })).toBe(false)
    expect(validate({ ...serverJson, packages: [{ ...serverJson.packages[0], version: 'latest' }] })).toBe(
      false,
    )
    expect(validate({ ...serverJson, remotes: [{ type: 'streamable-http' }] })).toBe(false)
    expect(validate({ ...serverJson, name: 'no-namespace' })).toBe(false)
  })

  it('matches the npm package: name, version, mcpName and a bin named after the package that runs the stdio server', () => {
    const [npm] = serverJson.packages
    expect(serverJson.packages).toHaveLength(1)
    expect(npm).toMatchObject({
      registryType: 'npm',
      identifier: packageJson.name,
      version: packageJson.version,
      transport: { type: 'stdio' },
    })
    expect(serverJson.version).toBe(packageJson.version)
    // The registry checks that the npm package claims the server name (package.json mcpName).
    expect(packageJson.mcpName).toBe(serverJson.name)
    // `npx validation-service` runs the bin named after the package: the MCP server over stdio.
    expect(packageJson.bin[packageJson.name]).toBe(packageJson.bin['validation-mcp'])
    expect(packageJson.bin[packageJson.name]).toBe('server/bin/validation-mcp.js')
  })

  it('names only variables the service reads, with their real defaults and choices', () => {
    const variables = serverJson.packages[0].environmentVariables as EnvironmentVariable[]
    const configKeys = new Set(Object.keys(ConfigSchema.shape))
    expect(variables.map((variable) => variable.name)).toEqual([
      'SVC_API_KEY',
      'DATA_DIR',
      'DATABASE_URL',
      'SANCTIONS_DEFAULT_SOURCE',
    ])
    const stdioEntry = readFileSync(new URL('../server/mcp-stdio.ts', import.meta.url), 'utf8')
    expect(stdioEntry).toContain('process.env.SVC_API_KEY')
    for (const variable of variables.filter((entry) => entry.name !== 'SVC_API_KEY')) {
      expect(configKeys.has(variable.name), variable.name).toBe(true)
    }
    const sanctions = variables.find((variable) => variable.name === 'SANCTIONS_DEFAULT_SOURCE')!
    expect(sanctions.choices).toEqual(ConfigSchema.shape.SANCTIONS_DEFAULT_SOURCE.unwrap().options)
    expect(sanctions.default).toBe(ConfigSchema.shape.SANCTIONS_DEFAULT_SOURCE.parse(undefined))
  })

  it('offers the Streamable HTTP endpoint at /mcp with the X-API-Key header (optional: x402 pays without it)', () => {
    expect(serverJson.remotes).toEqual([
      expect.objectContaining({
        type: 'streamable-http',
        url: 'https://{host}/mcp',
        variables: { host: expect.objectContaining({ isRequired: true }) },
        headers: [expect.objectContaining({ name: 'X-API-Key', isRequired: false, isSecret: true })],
      }),
    ])
  })
})

describe('mcp.json for MCP clients', () => {
  const servers = Object.entries(mcpJson.mcpServers as Record<string, Record<string, unknown>>)

  it('holds an mcpServers block in the shape Claude, Cursor and VS Code config files read', () => {
    expect(Object.keys(mcpJson)).toEqual(['mcpServers'])
    expect(servers.length).toBeGreaterThanOrEqual(2)
    for (const [name, entry] of servers) {
      expect(name, name).toMatch(/^[a-z0-9-]+$/)
      if ('command' in entry) {
        // stdio: command, args (strings) and env (string values); no url.
        expect(Object.keys(entry).sort(), name).toEqual(['args', 'command', 'env'])
        expect(typeof entry.command, name).toBe('string')
        expect(
          (entry.args as unknown[]).every((arg) => typeof arg === 'string'),
          name,
        ).toBe(true)
        expect(
          Object.values(entry.env as object).every((value) => typeof value === 'string'),
          name,
        ).toBe(true)
      } else {
        // Streamable HTTP: type "http", the /mcp URL, headers with string values.
        expect(Object.keys(entry).sort(), name).toEqual(['headers', 'type', 'url'])
        expect(entry.type, name).toBe('http')
        expect(new URL(entry.url as string).pathname, name).toBe('/mcp')
        expect(Object.keys(entry.headers as object), name).toEqual(['X-API-Key'])
      }
    }
  })

  it('runs a bin the package has, and its data folder is ignored by git', () => {
    const stdio = servers.map(([, entry]) => entry).filter((entry) => 'command' in entry)
    expect(stdio).toHaveLength(1)
    const [entry] = stdio as { command: string; args: string[]; env: Record<string, string> }[]
    expect(entry!.command).toBe('npx')
    const bin = entry!.args.find((arg) => !arg.startsWith('-'))!
    expect(packageJson.bin[bin]).toBeDefined()
    const dataDir = entry!.env.DATA_DIR!
    const ignored = readFileSync(new URL('../.gitignore', import.meta.url), 'utf8').split('\n')
    expect(ignored).toContain(`${dataDir.replace(/^\.\//, '')}/`)
  })
})
