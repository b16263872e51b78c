import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import solc from 'solc'
import type { Abi, Hex } from 'viem'

/** Compiled TestUSDC: ABI and creation bytecode. */
export interface CompiledContract {
  abi: Abi
  bytecode: Hex
}

const SOURCE_PATH = path.join(path.dirname(fileURLToPath(import.meta.url)), 'contracts', 'TestUSDC.sol')

/** `paris` has no PUSH0, so the bytecode runs on any EVM chain, however old its hardfork. */
const SETTINGS = {
  evmVersion: 'paris',
  optimizer: { enabled: true, runs: 200 },
  outputSelection: { '*': { TestUSDC: ['abi', 'evm.bytecode.object'] } },
}

let inProcess: Promise<CompiledContract> | undefined

/**
 * Compiles contracts/TestUSDC.sol with the installed solc-js, once per process, and caches the
 * artifact in the OS temp dir keyed by source, compiler version and settings (never committed),
 * so each test file after the first skips the ~1 s compile.
 */
export function compileTestUsdc(): Promise<CompiledContract> {
  inProcess ??= compileOrLoad()
  return inProcess
}

async function compileOrLoad(): Promise<CompiledContract> {
  const source = await readFile(SOURCE_PATH, 'utf8')
  const key = createHash('sha256')
    .update(source)
    .update(String(solc.version()))
    .update(JSON.stringify(SETTINGS))
    .digest('hex')
    .slice(0, 16)
  const dir = path.join(os.tmpdir(), 'validation-service-solc')
  const file = path.join(dir, `TestUSDC-${key}.json`)
  try {
    return JSON.parse(await readFile(file, 'utf8')) as CompiledContract
  } catch {
    // not cached yet
  }
  const input = { language: 'Solidity', sources: { 'TestUSDC.sol': { content: source } }, settings: SETTINGS }
  const output = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[]
    contracts?: Record<string, Record<string, { abi: Abi; evm: { bytecode: { object: string } } }>>
  }
  const errors = (output.errors ?? []).filter((e) => e.severity === 'error')
  if (errors.length > 0)
    throw new Error(`TestUSDC.sol does not compile:\n${errors.map((e) => e.formattedMessage).join('\n')}`)
  const contract = output.contracts?.['TestUSDC.sol']?.TestUSDC
  if (!contract) throw new Error('solc produced no TestUSDC artifact')
  const compiled: CompiledContract = { abi: contract.abi, bytecode: `0x${contract.evm.bytecode.object}` }
  await mkdir(dir, { recursive: true })
  const temp = `${file}.${process.pid}.tmp`
  await writeFile(temp, JSON.stringify(compiled))
  await rename(temp, file)
  return compiled
}
