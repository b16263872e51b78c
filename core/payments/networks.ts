/**
 * The networks x402 payments may use and the per-deployment payment configuration
 * (spec: Authentication, x402 details). Everything is data passed in by the composition root;
 * nothing here reads the environment.
 */

export const BASE_MAINNET = 'eip155:8453'
export const BASE_SEPOLIA = 'eip155:84532'
export const SOLANA_MAINNET = 'solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp'
export const SOLANA_DEVNET = 'solana:EtWTRABZaYq6iMfeYKouRu166VU2xqa1'

export type NetworkKind = 'evm' | 'solana'

/** One network a challenge offers, with the USDC contract (or mint) to pay in. */
export interface PaymentNetwork {
  /** CAIP-2 id, e.g. `eip155:8453`: the x402 v2 `network`. */
  network: string
  kind: NetworkKind
  /** x402 v1 network name (`base`, `base-sepolia`, `solana`, `solana-devnet`) for v1 clients; absent when v1 has none. */
  v1Network?: string
  /** EIP-155 chain id (EVM) or the CAIP-2 reference (Solana genesis hash prefix): the spec's `chainId`. */
  chainId: number | string
  /** USDC contract address (EVM) or mint (Solana): x402 `asset`, the spec's `contractAddress`. */
  asset: string
  /** Where the money goes: x402 `payTo`, the spec's `recipient`. */
  payTo: string
  /** EIP-712 domain of the token (EVM only; spec: name `USD Coin`, version `2`). */
  eip712?: { name: string; version: string }
  /** Solana only: the facilitator's fee payer, which x402 SVM clients need in `extra.feePayer`. */
  feePayer?: string
}

/** How payments work for one deployment: the offered networks and the signature lifetime. */
export interface PaymentConfig {
  /** In the order they are offered in `accepts`. */
  networks: PaymentNetwork[]
  /** x402 `maxTimeoutSeconds`; also the most a validBefore may lie ahead (spec: Limits, 5 minutes). */
  maxTimeoutSeconds: number
  /** Seconds a payment must still be valid when verified, so settlement can land before validBefore. */
  settlementMarginSeconds: number
  /** Spec: Limits, nonce replay window (5 minutes). */
  replayWindowSeconds: number
  /**
   * The service's public origin (PUBLIC_BASE_URL): a challenge names its resource with it and the
   * request's path, never with the Host header a client sent.
   */
  publicBaseUrl?: string
}

/** Spec: Limits, x402 signatures valid 5 minutes. */
export const MAX_SIGNATURE_LIFETIME_SECONDS = 300

/** Preset facts about the networks the spec names: v1 name, chain id, USDC contract, token EIP-712 domain. */
export const KNOWN_NETWORKS: Readonly<Record<string, Omit<PaymentNetwork, 'payTo'>>> = {
  [BASE_MAINNET]: {
    network: BASE_MAINNET,
    kind: 'evm',
    v1Network: 'base',
    chainId: 8453,
    asset: '0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913',
    eip712: { name: 'USD Coin', version: '2' },
  },
  [BASE_SEPOLIA]: {
    network: BASE_SEPOLIA,
    kind: 'evm',
    v1Network: 'base-sepolia',
    chainId: 84532,
    asset: '0x036CbD53842c5426634e7929541eC2318f3dCF7e',
    // The deployed Base Sepolia USDC answers name() = "USDC"; signatures must use its real domain.
    eip712: { name: 'USDC', version: '2' },
  },
  [SOLANA_MAINNET]: {
    network: SOLANA_MAINNET,
    kind: 'solana',
    v1Network: 'solana',
    chainId: '5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp',
    asset: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  },
  [SOLANA_DEVNET]: {
    network: SOLANA_DEVNET,
    kind: 'solana',
    v1Network: 'solana-devnet',
    chainId: 'EtWTRABZaYq6iMfeYKouRu166VU2xqa1',
    asset: '4zMMC9srt5Ri5X14GAgXhaHii3GnPAEERYPJgZJDncDU',
  },
}

export interface PaymentConfigInput {
  /** EVM payTo address for every enabled EVM network. */
  evmPayTo?: string
  /** Solana payTo address for every enabled Solana network. */
  solanaPayTo?: string
  /** CAIP-2 ids of KNOWN_NETWORKS to enable, in offer order. */
  networks: string[]
  /** Per-network overrides (e.g. a local test token at `asset`, a different EIP-712 name, a feePayer). */
  overrides?: Record<string, Partial<Omit<PaymentNetwork, 'network'>>>
  /** Additional networks not in KNOWN_NETWORKS (e.g. a local chain id), appended after `networks`. */
  extraNetworks?: PaymentNetwork[]
  maxTimeoutSeconds?: number
  settlementMarginSeconds?: number
  replayWindowSeconds?: number
  publicBaseUrl?: string
}

/**
 * Builds the payment configuration from the enabled network ids and the payTo addresses,
 * filling contract addresses from KNOWN_NETWORKS. Throws on an unknown network or a missing payTo,
 * because a challenge that cannot be paid must never be served.
 */
export function createPaymentConfig(input: PaymentConfigInput): PaymentConfig {
  const networks: PaymentNetwork[] = input.networks.map((id) => {
    const preset = KNOWN_NETWORKS[id]
    if (!preset) throw new Error(`unknown payment network ${id}; pass it in extraNetworks`)
    const payTo = { evm: input.evmPayTo, solana: input.solanaPayTo }[preset.kind]
    const merged: PaymentNetwork = { ...preset, payTo: payTo ?? '', ...input.overrides?.[id] }
    if (!merged.payTo) throw new Error(`payment network ${id} has no payTo address`)
    return merged
  })
  networks.push(...(input.extraNetworks ?? []))
  if (networks.length === 0) throw new Error('payment config needs at least one network')
  const maxTimeoutSeconds = input.maxTimeoutSeconds ?? MAX_SIGNATURE_LIFETIME_SECONDS
  if (maxTimeoutSeconds > MAX_SIGNATURE_LIFETIME_SECONDS || maxTimeoutSeconds <= 0) {
    throw new Error(`maxTimeoutSeconds must be 1..${MAX_SIGNATURE_LIFETIME_SECONDS}`)
  }
  return {
    networks,
    maxTimeoutSeconds,
    settlementMarginSeconds: input.settlementMarginSeconds ?? 6,
    replayWindowSeconds: input.replayWindowSeconds ?? MAX_SIGNATURE_LIFETIME_SECONDS,
    ...(input.publicBaseUrl ? { publicBaseUrl: input.publicBaseUrl.replace(/\/+$/, '') } : {}),
  }
}

/** The kind of a CAIP-2 network id: `solana:` networks are Solana, every other (`eip155:`) EVM. */
export function networkKindOf(networkId: string): NetworkKind {
  return networkId.startsWith('solana:') ? 'solana' : 'evm'
}

/** The configured networks of one kind, in offer order. */
export function networksOfKind(config: PaymentConfig, kind: NetworkKind): PaymentNetwork[] {
  return config.networks.filter((network) => network.kind === kind)
}

/** What each kind's requirements carry in x402 `extra`: the token's EIP-712 domain, or the fee payer. */
const REQUIREMENT_EXTRA: Readonly<Record<NetworkKind, (network: PaymentNetwork) => Record<string, string>>> =
  {
    evm: ({ eip712 }): Record<string, string> =>
      eip712 ? { name: eip712.name, version: eip712.version } : {},
    // x402 SVM clients build the transaction with this key as fee payer.
    solana: ({ feePayer }): Record<string, string> => (feePayer ? { feePayer } : {}),
  }

/** The x402 `extra` of a requirement on this network. */
export function requirementExtra(network: PaymentNetwork): Record<string, string> {
  return REQUIREMENT_EXTRA[network.kind](network)
}

/**
 * Finds the configured network a payment names, accepting the CAIP-2 id (v2) or the v1 name
 * (`base-sepolia`) that x402 v1 clients send.
 */
export function findPaymentNetwork(config: PaymentConfig, name: string): PaymentNetwork | undefined {
  return config.networks.find(
    (n) => n.network === name || (n.v1Network !== undefined && n.v1Network === name),
  )
}
