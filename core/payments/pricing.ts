import { QUALITIES, type Quality, type Tier } from '../context.ts'
import { formatUsd, type Micros, usd } from '../money.ts'
import type { PaymentConfig } from './networks.ts'

/** Prices of one payment method per quality tier. An operation without a cached tier charges fresh. */
export interface TierPrices {
  cached?: Micros
  fresh: Micros
  enhanced?: Micros
}

/** What a priced operation costs, per payment method and quality tier. */
export interface OperationPrice {
  /** Per-call x402 price. */
  x402: TierPrices
  /** Debit from a live key's prepaid balance. */
  account: TierPrices
  /** What one billable unit is when the price is per unit of the input (`lead`), not per call. */
  unit?: string
}

/** The price of a quality tier (missing tiers charge fresh; spec: Endpoints). */
export function priceFor(prices: TierPrices, quality: Quality): Micros {
  return prices[quality] ?? prices.fresh
}

/**
 * The price-per-tier view every document shows (OpenAPI, MCP tools, x402.json, the discovery
 * catalog): the tiers a price list has, in quality order, each amount in the form `format` gives.
 */
export function tierView<T>(prices: TierPrices, format: (micros: Micros) => T): Partial<Record<Quality, T>> {
  const view: Partial<Record<Quality, T>> = {}
  for (const quality of QUALITIES) {
    const micros = prices[quality]
    if (micros !== undefined) view[quality] = format(micros)
  }
  return view
}

/** The quality tiers a caller can choose between (those either method prices), in order. */
export function pricedQualities(price: OperationPrice): Quality[] {
  return QUALITIES.filter(
    (quality) => price.x402[quality] !== undefined || price.account[quality] !== undefined,
  )
}

/** Operation ids (MCP tool names) that carry a price. */
export const PRICED_OPERATION_IDS = [
  'entity_check',
  'risk_score',
  'reputation_score',
  'wallet_balance',
  'compliance_alerts',
  'sanctions_screen',
  'kyb_check',
  'entity_deep_check',
  'entity_report',
  'agent_check',
  'leads_verify',
] as const

export type PricedOperationId = (typeof PRICED_OPERATION_IDS)[number]

const fixed = (amount: string): TierPrices => ({ fresh: usd(amount) })
const tiered = (cached: string | undefined, fresh: string, enhanced: string): TierPrices => ({
  ...(cached === undefined ? {} : { cached: usd(cached) }),
  fresh: usd(fresh),
  enhanced: usd(enhanced),
})

/**
 * The one price table (DESIGN: Payments; spec: Endpoints price table). Inside each spec range the
 * cached tier is the low end (0.11, 0.25 for KYB), fresh the middle and enhanced the high end;
 * PRICING.md lists the figures and the rule. `leads_verify` is per valid lead (up to 100 in a call; invalid leads are not charged).
 */
export const PRICES: Readonly<Record<PricedOperationId, OperationPrice>> = {
  entity_check: { x402: tiered('0.11', '0.20', '0.29'), account: tiered('0.11', '0.58', '1.05') },
  risk_score: { x402: tiered('0.11', '0.18', '0.25'), account: tiered('0.11', '0.50', '0.90') },
  reputation_score: { x402: tiered('0.11', '0.50', '0.90'), account: tiered('0.11', '0.50', '0.90') },
  wallet_balance: { x402: fixed('0.11'), account: fixed('0.11') },
  compliance_alerts: { x402: fixed('0.11'), account: fixed('0.11') },
  sanctions_screen: { x402: fixed('0.005'), account: fixed('0.11') },
  kyb_check: { x402: tiered('0.25', '0.27', '0.29'), account: tiered('0.25', '0.88', '1.50') },
  // No cached tier (spec: deep-check tiers are fresh and enhanced): fresh is the low end.
  entity_deep_check: { x402: tiered(undefined, '0.88', '1.71'), account: tiered(undefined, '0.88', '1.71') },
  entity_report: { x402: fixed('0.55'), account: fixed('1.85') },
  agent_check: { x402: fixed('0.005'), account: fixed('0.75') },
  leads_verify: { x402: fixed('0.10'), account: fixed('0.27'), unit: 'lead' },
}

/** Key tiers that can be bought with POST /v1/keys/upgrade/{tier}. */
export type UpgradeTier = Extract<Tier, 'starter' | 'pro' | 'enterprise'>
export const UPGRADE_TIERS: readonly UpgradeTier[] = ['starter', 'pro', 'enterprise']

/**
 * Prepaid balance bought by POST /v1/keys/upgrade/{tier}, always paid by x402 (spec: Key
 * operations: a top-up buys balance, not a number of calls). The whole amount is credited.
 */
export const KEY_UPGRADE_PRICES: Readonly<Record<UpgradeTier, Micros>> = {
  starter: usd('25'),
  pro: usd('100'),
  enterprise: usd('500'),
}

/** The MCP tool name of the key upgrade (its price depends on the tier, not the quality). */
export const KEY_UPGRADE_OPERATION_ID = 'key_upgrade'

/** The per-call x402 price of an operation at a quality (missing tiers charge fresh; spec: Endpoints). */
export function x402PriceFor(operationId: PricedOperationId, quality: Quality): Micros {
  return priceFor(PRICES[operationId].x402, quality)
}

/** The account (prepaid balance) price of an operation at a quality. */
export function accountPriceFor(operationId: PricedOperationId, quality: Quality): Micros {
  return priceFor(PRICES[operationId].account, quality)
}

export interface DiscoveryRoute {
  method: 'GET' | 'POST' | 'DELETE'
  path: string
}

export interface X402DiscoveryInput {
  config: PaymentConfig
  /** Public base URL, e.g. `https://api.example.com` (no trailing slash). */
  baseUrl: string
  /** HTTP route per operation id, from the operation registry; operations without one list no resource. */
  routes?: Readonly<Record<string, DiscoveryRoute>>
  prices?: Readonly<Record<string, OperationPrice>>
  keyUpgradePrices?: Readonly<Record<UpgradeTier, Micros>>
}

interface PriceView {
  /** USD with 6 decimals, for people. */
  usd: string
  /** USDC 6-decimal units, what `amount` in a challenge says. */
  amount: string
}

const priceView = (micros: Micros): PriceView => ({ usd: formatUsd(micros), amount: micros.toString() })

/**
 * Body of the public `GET /.well-known/x402.json` (spec: Public routes): which networks and USDC
 * contracts are accepted, where payments go, and every price per quality tier, all from the one
 * price table so the document cannot drift from what 402 challenges ask.
 */
export function buildX402Discovery(input: X402DiscoveryInput) {
  const prices = input.prices ?? PRICES
  const upgrades = input.keyUpgradePrices ?? KEY_UPGRADE_PRICES
  const resource = (route: DiscoveryRoute | undefined, tier?: UpgradeTier) => {
    if (!route) return {}
    const path = tier === undefined ? route.path : route.path.replace('{tier}', tier)
    return { method: route.method, path, resource: `${input.baseUrl}${path}` }
  }
  return {
    x402Version: 2,
    schemes: ['exact'],
    currency: 'USDC',
    decimals: 6,
    qualities: [...QUALITIES],
    defaultQuality: 'fresh' as Quality,
    maxTimeoutSeconds: input.config.maxTimeoutSeconds,
    networks: input.config.networks.map((n) => ({
      network: n.network,
      ...(n.v1Network === undefined ? {} : { v1Network: n.v1Network }),
      chainId: n.chainId,
      asset: n.asset,
      contractAddress: n.asset,
      payTo: n.payTo,
      ...(n.eip712 === undefined ? {} : { eip712: n.eip712 }),
      // Solana: the fee payer x402 SVM clients build the transaction for (the challenge's extra.feePayer).
      ...(n.feePayer === undefined ? {} : { extra: { feePayer: n.feePayer } }),
    })),
    operations: Object.entries(prices).map(([id, price]) => ({
      operation: id,
      ...resource(input.routes?.[id]),
      ...(price.unit ? { unit: price.unit } : {}),
      x402: tierView(price.x402, priceView),
      account: tierView(price.account, priceView),
    })),
    keyUpgrades: UPGRADE_TIERS.map((tier) => ({
      tier,
      operation: KEY_UPGRADE_OPERATION_ID,
      ...resource(input.routes?.[KEY_UPGRADE_OPERATION_ID], tier),
      x402: priceView(upgrades[tier]),
    })),
  }
}

export type X402Discovery = ReturnType<typeof buildX402Discovery>
