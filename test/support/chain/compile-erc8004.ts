import { createHash } from 'node:crypto'
import { readFileSync } from 'node:fs'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import solc from 'solc'
import type { Abi } from 'viem'
import type { CompiledContract } from './compile-test-usdc.ts'

/** The ERC-8004 reference contracts (vendored in contracts/, see their header comments). */
export const ERC8004_CONTRACTS = [
  'IdentityRegistryUpgradeable',
  'ReputationRegistryUpgradeable',
  'HardhatMinimalUUPS',
  'ERC1967Proxy',
] as const
export type Erc8004ContractName = (typeof ERC8004_CONTRACTS)[number]

const CONTRACTS_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), 'contracts')
const require = createRequire(import.meta.url)

/**
 * `cancun`, as Base runs (OpenZeppelin 5.7 uses its MCOPY). viaIR and 200 optimizer runs as the
 * reference's hardhat config (ReputationRegistry is "stack too deep" without the IR pipeline).
 */
const SETTINGS = {
  evmVersion: 'cancun',
  viaIR: true,
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { '*': ['abi', 'evm.bytecode.object'] } },
}

let inProcess: Promise<Record<Erc8004ContractName, CompiledContract>> | undefined

/**
 * Compiles the vendored ERC-8004 Identity and Reputation registries (and the reference's proxy
 * and minimal UUPS bootstrap) with solc-js, resolving `@openzeppelin/...` imports from
 * node_modules; cached in the OS temp dir like the TestUSDC artifact.
 */
export function compileErc8004(): Promise<Record<Erc8004ContractName, CompiledContract>> {
  inProcess ??= compileOrLoad()
  return inProcess
}

function findImport(importPath: string): { contents: string } | { error: string } {
  try {
    return { contents: readFileSync(require.resolve(importPath), 'utf8') }
  } catch (error) {
    return { error: `cannot resolve ${importPath}: ${String(error)}` }
  }
}

async function compileOrLoad(): Promise<Record<Erc8004ContractName, CompiledContract>> {
  const sources: Record<string, { content: string }> = {}
  for (const name of ERC8004_CONTRACTS) {
    sources[`${name}.sol`] = { content: await readFile(path.join(CONTRACTS_DIR, `${name}.sol`), 'utf8') }
  }
  const key = createHash('sha256')
    .update(JSON.stringify(sources))
    .update(String(solc.version()))
    .update(JSON.stringify(SETTINGS))
    .digest('hex')
    .slice(0, 16)
  const dir = path.join(os.tmpdir(), 'validation-service-solc')
  const file = path.join(dir, `ERC8004-${key}.json`)
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<Erc8004ContractName, CompiledContract>
  } catch {
    // not cached yet
  }
  const input = { language: 'Solidity', sources, settings: SETTINGS }
  const output = JSON.parse(solc.compile(JSON.stringify(input), { import: findImport })) as {
    errors?: { severity: string; formattedMessage: string }[]
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
  }
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0)
    throw new Error(`ERC-8004 contracts do not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  const compiled = {} as Record<Erc8004ContractName, CompiledContract>
  for (const name of ERC8004_CONTRACTS) {
    const contract = output.contracts?.[`${name}.sol`]?.[name]
    if (!contract) throw new Error(`solc produced no ${name} artifact`)
    compiled[name] = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }
  }
  await mkdir(dir, { recursive: true })
  const temp = `${file}.${process.pid}.tmp`
  await writeFile(temp, JSON.stringify(compiled))
  await rename(temp, file)
  return compiled
}
