import {
  type Address,
  BaseError,
  ContractFunctionRevertedError,
  getAddress,
  type PublicClient,
  parseAbi,
} from 'viem'

/** The ABI fragments read here, as in the reference contracts (erc-8004/erc-8004-contracts). */
export const IDENTITY_REGISTRY_ABI = parseAbi([
  'function ownerOf(uint256 tokenId) view returns (address)',
  'function balanceOf(address owner) view returns (uint256)',
  'function getAgentWallet(uint256 agentId) view returns (address)',
  'event Transfer(address indexed from, address indexed to, uint256 indexed tokenId)',
  'event MetadataSet(uint256 indexed agentId, string indexed indexedMetadataKey, string metadataKey, bytes metadataValue)',
])

export const REPUTATION_REGISTRY_ABI = parseAbi([
  'function getClients(uint256 agentId) view returns (address[])',
  'function readAllFeedback(uint256 agentId, address[] clientAddresses, string tag1, string tag2, bool includeRevoked) view returns (address[] clients, uint64[] feedbackIndexes, int128[] values, uint8[] valueDecimals, string[] tag1s, string[] tag2s, bool[] revokedStatuses)',
])

export interface AgentRecord {
  agent_id: string
  registered: boolean
  owner: Address | null
  agent_wallet: Address | null
}

export interface TagSummary {
  tag: string
  count: number
  /** Mean of the feedback values (value / 10^decimals) carrying this tag. */
  avg: number
}

export interface AgentReputation {
  agent_id: string
  /** Feedback not revoked, from the clients read. */
  feedback_count: number
  distinct_clients: number
  clients_capped: boolean
  top_tags: TagSummary[]
}

/** Feedback is read from at most this many clients per agent (`clients_capped`). */
export const MAX_FEEDBACK_CLIENTS = 100
/** Tags reported per agent, most used first. */
export const TOP_TAGS = 5

/** The ERC-8004 registries of one chain. */
export interface AgentRegistries {
  identityRegistry: Address
  reputationRegistry: Address
}

/** What the ERC-8004 Identity and Reputation registries are asked, one agent at a time. */
export interface AgentRegistryReads {
  /** The agent's owner and agent wallet now; unregistered when `ownerOf` says it was never minted. */
  readAgent(id: bigint): Promise<AgentRecord>
  /** The clients that gave the agent feedback. */
  readClients(id: bigint): Promise<readonly Address[]>
  /** Feedback count, distinct clients and top tags, from the clients read (or read here). */
  readReputation(id: bigint, clientsRead?: Promise<readonly Address[]>): Promise<AgentReputation>
}

/** The registry reads over a viem client (the reader's batching transport). */
export function agentRegistryReads(client: PublicClient, registries: AgentRegistries): AgentRegistryReads {
  return {
    async readAgent(id: bigint): Promise<AgentRecord> {
      const owner = client
        .readContract({
          address: registries.identityRegistry,
          abi: IDENTITY_REGISTRY_ABI,
          functionName: 'ownerOf',
          args: [id],
        })
        .then(
          (address) => address as Address | null,
          (error: unknown) => {
            if (revertSelector(error) === NONEXISTENT_TOKEN) return null // not registered
            throw error
          },
        )
      const agentWallet = client.readContract({
        address: registries.identityRegistry,
        abi: IDENTITY_REGISTRY_ABI,
        functionName: 'getAgentWallet',
        args: [id],
      })
      agentWallet.catch(() => {})
      const [ownerAddress, walletAddress] = await Promise.all([owner, agentWallet])
      const zero = /^0x0{40}$/i
      return {
        agent_id: id.toString(),
        registered: ownerAddress !== null,
        owner: ownerAddress ? getAddress(ownerAddress) : null,
        agent_wallet: walletAddress && !zero.test(walletAddress) ? getAddress(walletAddress) : null,
      }
    },

    readClients: (id: bigint) => readClients(client, registries, id),

    async readReputation(id: bigint, clientsRead?: Promise<readonly Address[]>): Promise<AgentReputation> {
      const clients = await (clientsRead ?? readClients(client, registries, id))
      const capped = clients.length > MAX_FEEDBACK_CLIENTS
      const read = clients.slice(0, MAX_FEEDBACK_CLIENTS)
      if (read.length === 0)
        return {
          agent_id: id.toString(),
          feedback_count: 0,
          distinct_clients: 0,
          clients_capped: false,
          top_tags: [],
        }
      const [, , values, decimals, tag1s, tag2s] = await client.readContract({
        address: registries.reputationRegistry,
        abi: REPUTATION_REGISTRY_ABI,
        functionName: 'readAllFeedback',
        args: [id, read, '', '', false],
      })
      const tags = new Map<string, { count: number; sum: number }>()
      values.forEach((value, index) => {
        const scaled = Number(value) / 10 ** (decimals[index] ?? 0)
        for (const tag of new Set([tag1s[index], tag2s[index]])) {
          if (!tag) continue
          const entry = tags.get(tag) ?? { count: 0, sum: 0 }
          entry.count++
          entry.sum += scaled
          tags.set(tag, entry)
        }
      })
      const top = [...tags]
        .sort((a, b) => b[1].count - a[1].count || a[0].localeCompare(b[0]))
        .slice(0, TOP_TAGS)
        .map(([tag, { count, sum }]) => ({ tag, count, avg: Math.round((sum / count) * 10_000) / 10_000 }))
      return {
        agent_id: id.toString(),
        feedback_count: values.length,
        distinct_clients: read.length,
        clients_capped: capped,
        top_tags: top,
      }
    },
  }
}

function readClients(
  client: PublicClient,
  registries: AgentRegistries,
  id: bigint,
): Promise<readonly Address[]> {
  return client.readContract({
    address: registries.reputationRegistry,
    abi: REPUTATION_REGISTRY_ABI,
    functionName: 'getClients',
    args: [id],
  })
}

/** `ERC721NonexistentToken(uint256)`: what `ownerOf` reverts with for an id never minted. */
const NONEXISTENT_TOKEN = '0x7e273289'

/**
 * The 4-byte selector of a revert, wherever viem put it: a decoded ContractFunctionRevertedError,
 * or the `data` of the RPC error (nodes answer a reverted eth_call with code 3 or -32602 and the
 * revert data, also inside a JSON-RPC batch).
 */
function revertSelector(error: unknown): string | undefined {
  if (!(error instanceof BaseError)) return undefined
  let selector: string | undefined
  error.walk((e) => {
    const data = (e as { data?: unknown }).data
    const raw = typeof data === 'string' ? data : (data as { data?: unknown } | undefined)?.data
    if (typeof raw === 'string' && /^0x[0-9a-f]{8}/i.test(raw)) selector = raw.slice(0, 10).toLowerCase()
    if (e instanceof ContractFunctionRevertedError && e.raw) selector = e.raw.slice(0, 10).toLowerCase()
    return false
  })
  return selector
}
