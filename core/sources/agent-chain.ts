import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  defineChain,
  http,
  type PublicClient,
  parseAbi,
} from 'viem'
import {
  type AgentRecord,
  type AgentRegistryReads,
  type AgentReputation,
  agentRegistryReads,
  IDENTITY_REGISTRY_ABI,
} from './agent-registry.ts'
import type { CircuitBreaker } from './circuit-breaker.ts'
import { runSourceCall } from './source-call.ts'
import { resolveCommon, type SourceClientOptions } from './source-options.ts'
import { type SourceResult, type UnavailableReason, UpstreamFailure } from './source-result.ts'

/**
 * Chain reads for agent wallet checks: Base (or Base Sepolia) over JSON-RPC with viem.
 *
 * Round trips. The reads of one check are issued in parallel and viem's HTTP transport sends the
 * requests of one tick as one JSON-RPC batch (one HTTP request), so one check costs three
 * round trips: (1) block, ETH and USDC balances, code, the asked agent and the identity logs;
 * (2) the current owner and agent wallet of every agent id the logs name, and the client lists
 * of the agents whose reputation is read; (3) the feedback of those clients. Multicall3 would
 * merge the eth_calls of one batch into one call but not save a round trip, so it is not used.
 *
 * Which agent ids a wallet owns or is the agent wallet of: the Identity Registry is an ERC-721
 * without the Enumerable extension, so ids cannot be listed by owner on chain. They are found in
 * the registry's events (`Transfer` to the wallet; `MetadataSet` of key `agentWallet` whose value
 * is the wallet) from `fromBlock`, then confirmed against the current state (`ownerOf`,
 * `getAgentWallet`), so a transferred agent or a replaced wallet is never reported.
 */

export const ERC20_BALANCE_ABI = parseAbi(['function balanceOf(address account) view returns (uint256)'])

/** Official USDC (Circle) and the ERC-8004 registries (README of erc-8004/erc-8004-contracts). */
export const AGENT_CHAINS = {
  base: {
    chainId: 8453,
    usdc: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    identityRegistry: '0x8004A169FB4a3325136EB29fA0ceB6D2e539a432',
    reputationRegistry: '0x8004BAa17C55a88189AE136b182e5fdA19dE9b63',
  },
  'base-sepolia': {
    chainId: 84532,
    usdc: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    identityRegistry: '0x8004A818BFB912233c491871b3d84c89A494BD9e',
    reputationRegistry: '0x8004B663056A597Dffe9eCcC1965A193B7388713',
  },
} as const satisfies Record<
  string,
  { chainId: number; usdc: Address; identityRegistry: Address; reputationRegistry: Address }
>
export type AgentChainName = keyof typeof AGENT_CHAINS

/** At most this many agent ids per wallet are confirmed and reported (newest first). */
export const MAX_WALLET_AGENT_IDS = 20
/** Reputation is read for at most this many agents per check. */
export const MAX_REPUTATION_AGENTS = 5
export interface WalletBalances {
  usdc_raw: bigint
  native_wei: bigint
  /** Transactions sent from the address (its nonce): 0 means no outgoing history. */
  transaction_count: number
  /** True when the address holds contract code (a smart wallet or any contract). */
  is_contract: boolean
  block_number: bigint
  /** Unix seconds of the block the balances were read at. */
  block_timestamp: number
}

export interface WalletIdentity {
  /** Agent ids the wallet owns or is the agent wallet of now (confirmed against the current state). */
  wallet_agent_ids: string[]
  /** True when more ids were found than MAX_WALLET_AGENT_IDS. */
  wallet_agent_ids_capped: boolean
  /**
   * Why the scan for agents whose agent wallet is this wallet failed (null: it ran); the ids
   * then cover the agents the wallet owns only.
   */
  agent_wallet_scan_error: string | null
  /** The asked agent, when an agent id was given. */
  agent: AgentRecord | null
}

export interface AgentChainSnapshot {
  balances: SourceResult<WalletBalances>
  identity: SourceResult<WalletIdentity>
  /** Not read (`undefined`) when the caller did not ask for reputation. */
  reputation?: SourceResult<{ agents: AgentReputation[] }>
}

export interface AgentChainReader {
  readonly source: 'base_rpc'
  readonly chainId: number
  readonly breaker: CircuitBreaker
  /** eth_chainId; throws when the RPC answers another chain (start-up check). */
  verifyChainId(): Promise<void>
  /** Balances, identity and (optionally) reputation of a wallet, parts read in parallel. */
  readWallet(request: {
    wallet: Address
    agentId?: bigint
    reputation?: boolean
  }): Promise<AgentChainSnapshot>
  /** JSON-RPC HTTP requests sent so far (round trips), for figures and tests. */
  roundTrips(): number
}

export interface AgentChainOptions extends Omit<SourceClientOptions, 'fetch'> {
  rpcUrl: string
  chainId: number
  usdc: Address
  identityRegistry: Address
  reputationRegistry: Address
  /** First block of the identity event scan (the registry's deployment block). Default 0. */
  fromBlock?: bigint
}

/** The viem client of the reader: one JSON-RPC batch per tick, requests counted (round trips). */
function createRpcClient(options: AgentChainOptions, timeoutMs: number) {
  let requests = 0
  const chain = defineChain({
    id: options.chainId,
    name: `chain-${options.chainId}`,
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [options.rpcUrl] } },
  })
  const client = createPublicClient({
    chain,
    transport: http(options.rpcUrl, {
      batch: { batchSize: 200, wait: 0 },
      retryCount: 0,
      timeout: timeoutMs,
      onFetchRequest: () => {
        requests++
      },
    }),
  }) as PublicClient
  return { client, roundTrips: () => requests }
}

/** A part of a snapshot under the source call rules (timeout, breaker, `unavailable` with a reason). */
type RunPart = <T>(call: () => Promise<T>) => Promise<SourceResult<T>>

/**
 * The reads of round trip 1, issued in one tick so viem sends them as one JSON-RPC batch: block,
 * balances, code, nonce, the asked agent and the identity registry's logs (transfers to the
 * wallet; agent wallets set to it).
 */
function startFirstRoundTrip(
  client: PublicClient,
  options: AgentChainOptions,
  registry: AgentRegistryReads,
  wallet: Address,
  agentId: bigint | undefined,
) {
  const fromBlock = options.fromBlock ?? 0n
  const reads = {
    block: client.getBlock({ blockTag: 'latest' }),
    native: client.getBalance({ address: wallet }),
    code: client.getCode({ address: wallet }),
    sent: client.getTransactionCount({ address: wallet }),
    usdc: client.readContract({
      address: options.usdc,
      abi: ERC20_BALANCE_ABI,
      functionName: 'balanceOf',
      args: [wallet],
    }),
    asked: agentId === undefined ? Promise.resolve(null) : registry.readAgent(agentId),
    transfers: client.getLogs({
      address: options.identityRegistry,
      event: IDENTITY_REGISTRY_ABI[3],
      args: { to: wallet },
      fromBlock,
      toBlock: 'latest',
    }),
    walletSets: client.getLogs({
      address: options.identityRegistry,
      event: IDENTITY_REGISTRY_ABI[4],
      args: { indexedMetadataKey: 'agentWallet' },
      fromBlock,
      toBlock: 'latest',
    }),
  }
  for (const pending of Object.values(reads)) pending?.catch(() => {})
  return reads
}

type FirstRoundTrip = ReturnType<typeof startFirstRoundTrip>

async function balancesOf(first: FirstRoundTrip): Promise<WalletBalances> {
  const [b, n, c, t, u] = await Promise.all([first.block, first.native, first.code, first.sent, first.usdc])
  return {
    usdc_raw: u,
    native_wei: n,
    transaction_count: t,
    is_contract: c !== undefined && c !== '0x',
    block_number: b.number ?? 0n,
    block_timestamp: Number(b.timestamp),
  }
}

/**
 * The agent ids the wallet controls now: candidates from the logs (newest first), confirmed
 * against the current state in round trip 2; while that runs, the client lists of the agents
 * whose reputation will be read are asked too (`readClientsEarly`).
 */
async function identityOf(
  first: FirstRoundTrip,
  registry: AgentRegistryReads,
  wallet: Address,
  readClientsEarly: ((id: bigint) => void) | undefined,
): Promise<WalletIdentity> {
  const [received, agent] = await Promise.all([first.transfers, first.asked])
  // Providers cap eth_getLogs (range or result count): a refused agent-wallet scan leaves
  // the owned agents, reported as incomplete rather than failing the whole part.
  const scan = await first.walletSets.then(
    (logs) => ({ logs, error: null }),
    (error: unknown) => ({
      logs: [],
      error:
        error instanceof BaseError
          ? [error.shortMessage, error.details].filter(Boolean).join(': ')
          : String(error),
    }),
  )
  const candidates = new Set<bigint>()
  for (const log of [...received].reverse())
    if (log.args.tokenId !== undefined) candidates.add(log.args.tokenId)
  const lower = wallet.toLowerCase()
  for (const log of [...scan.logs].reverse()) {
    if (log.args.agentId !== undefined && (log.args.metadataValue ?? '').toLowerCase() === lower)
      candidates.add(log.args.agentId)
  }
  const ids = [...candidates]
  const capped = ids.length > MAX_WALLET_AGENT_IDS
  // Round trip 2: the current state of each candidate.
  const checked = ids.slice(0, MAX_WALLET_AGENT_IDS)
  if (readClientsEarly) for (const id of checked.slice(0, MAX_REPUTATION_AGENTS)) readClientsEarly(id)
  const records = await Promise.all(checked.map((id) => registry.readAgent(id)))
  const controlled = records
    .filter((r) => r.owner?.toLowerCase() === lower || r.agent_wallet?.toLowerCase() === lower)
    .map((r) => r.agent_id)
    .sort((a, b) => (BigInt(a) < BigInt(b) ? -1 : 1))
  return {
    wallet_agent_ids: controlled,
    wallet_agent_ids_capped: capped,
    agent_wallet_scan_error: scan.error,
    agent,
  }
}

/** Reputation of the asked agent (when registered) and the wallet's agents, at most MAX_REPUTATION_AGENTS. */
async function reputationOf(
  identity: SourceResult<WalletIdentity>,
  agentId: bigint | undefined,
  registry: AgentRegistryReads,
  clientsOf: (id: bigint) => Promise<readonly Address[]>,
): Promise<{ agents: AgentReputation[] }> {
  if (identity.status !== 'ok')
    throw new UpstreamFailure(identity.reason as UnavailableReason, 'identity could not be read')
  const found = identity.data.wallet_agent_ids
  const agentIds = [...new Set([...(agentId !== undefined ? [agentId.toString()] : []), ...found])].slice(
    0,
    MAX_REPUTATION_AGENTS,
  )
  const registered = agentIds.filter((id) => id !== agentId?.toString() || identity.data.agent?.registered)
  const agents = await Promise.all(
    registered.map((id) => registry.readReputation(BigInt(id), clientsOf(BigInt(id)))),
  )
  return { agents }
}

/**
 * The Base chain reader over a JSON-RPC URL. Every part runs under the source call rules
 * (timeout, one circuit breaker for the RPC, `unavailable` with a reason instead of a throw).
 */
export function createAgentChainReader(options: AgentChainOptions): AgentChainReader {
  const { clock, timeoutMs, breaker } = resolveCommon(options)
  const { client, roundTrips } = createRpcClient(options, timeoutMs)
  const registry = agentRegistryReads(client, options)
  const part: RunPart = (call) =>
    runSourceCall({ source: 'base_rpc', clock, timeoutMs, breaker, call: () => call().catch(rethrow) })

  return {
    source: 'base_rpc',
    chainId: options.chainId,
    breaker,
    roundTrips,
    async verifyChainId() {
      const actual = await client.getChainId()
      if (actual !== options.chainId)
        throw new Error(`the RPC answers chain id ${actual}, expected ${options.chainId}`)
    },
    async readWallet({ wallet, agentId, reputation }) {
      if (breaker.state() === 'open') {
        // Short-circuit before any request is sent: each part answers `circuit_open`.
        const refused = () => part<never>(() => Promise.reject(new UpstreamFailure('circuit_open')))
        const [balances, identity] = await Promise.all([refused(), refused()])
        return { balances, identity, ...(reputation ? { reputation: await refused() } : {}) }
      }
      // Round trip 1: everything that needs nothing else (one JSON-RPC batch).
      const first = startFirstRoundTrip(client, options, registry, wallet, agentId)
      // Client lists are read alongside identity (speculatively), so reputation costs one round trip more.
      const clientLists = new Map<string, Promise<readonly Address[]>>()
      const clientsOf = (id: bigint) => {
        let list = clientLists.get(id.toString())
        if (!list) {
          list = registry.readClients(id)
          list.catch(() => {})
          clientLists.set(id.toString(), list)
        }
        return list
      }
      if (agentId !== undefined && reputation) clientsOf(agentId)
      const balances = part(() => balancesOf(first))
      const identity = part(() => identityOf(first, registry, wallet, reputation ? clientsOf : undefined))
      const snapshot: AgentChainSnapshot = { balances: await balances, identity: await identity }
      if (reputation) {
        snapshot.reputation = await part(() => reputationOf(snapshot.identity, agentId, registry, clientsOf))
      }
      return snapshot
    },
  }
}

function isRevert(error: unknown): boolean {
  return error instanceof BaseError && error.walk((e) => e instanceof ContractFunctionRevertedError) !== null
}

/** viem errors to the source failure reasons (an RPC error answer is the upstream failing). */
function rethrow(error: unknown): never {
  if (error instanceof UpstreamFailure) throw error
  if (error instanceof BaseError) {
    const name = error.walk((e) => (e as { name?: string }).name === 'TimeoutError')
    if (name) throw new UpstreamFailure('timeout', error.shortMessage)
    const text = `${error.name}: ${error.shortMessage}`
    if (/HttpRequestError|fetch failed|ECONNREFUSED/i.test(`${text} ${error.details ?? ''}`))
      throw new UpstreamFailure('connection_refused', error.shortMessage)
    if (isRevert(error)) throw new UpstreamFailure('request_rejected', error.shortMessage)
    throw new UpstreamFailure('upstream_error', error.shortMessage)
  }
  throw error
}
