import { type Address, formatUnits, getAddress } from 'viem'
import { z } from 'zod'
import { assessWalletRisk, decideVerdict, webScore } from '../checks/agent-assessment.ts'
import { PRICES } from '../payments/pricing.ts'
import {
  ADDRESS_SCREEN_LISTS,
  coverageGaps,
  noCoverage,
  SanctionsCoverageSchema,
} from '../sanctions/coverage.ts'
import type { AgentChainSnapshot } from '../sources/agent-chain.ts'
import type { SourceResult } from '../sources/source-result.ts'
import { domainSchema, evmAddressSchema, validateDomain } from '../validate/index.ts'
import { defineOperation } from './define.ts'
import type { OperationContext } from './operation-context.ts'
import { chainNotReady, listsNotReady } from './readiness.ts'

/** Bumped when the response shape changes (spec: Versioning, agent check schema_version). */
export const AGENT_CHECK_SCHEMA_VERSION = '2026-11-25.1'

const MAX_UINT256 = 2n ** 256n - 1n

/** spec: POST /v1/agent/check request. No other properties. */
export const AgentCheckInput = z
  .object({
    wallet: evmAddressSchema.describe(
      'EVM wallet to check (0x + 40 hex), read on Base; answered EIP-55 checksummed',
    ),
    agent_id: z
      .string()
      .regex(/^(0|[1-9][0-9]{0,77})$/, 'must be a decimal ERC-8004 agentId without leading zeros')
      .refine((value) => /^\d+$/.test(value) && BigInt(value) <= MAX_UINT256, 'must fit in uint256')
      .optional()
      .describe('ERC-8004 agentId (decimal string) the wallet claims to act for'),
    domain: domainSchema
      .optional()
      .describe("The agent's web domain: probed (RDAP, DNS, TLS) and reported, never used by the verdict"),
  })
  .strict()

const PartStatus = z
  .enum(['ok', 'partial', 'unavailable', 'not_requested'])
  .describe(
    'ok: read; partial: some inputs could not be read (see reason); unavailable: could not be read (see reason), never a clean default; not_requested: not asked for',
  )
const Reason = z.string().nullable().describe('Why the part is not ok (null when ok)')

const SanctionsPart = z
  .object({
    status: PartStatus,
    reason: Reason,
    hit: z
      .boolean()
      .nullable()
      .describe('True when the address is a listed digital currency address (null: not screened)'),
    lists: z.array(z.string()).describe('Lists the address is on (empty without a hit)'),
    programs: z.array(z.string()).describe('Sanctions programmes of the matching entries'),
    entries: z
      .array(
        z
          .object({
            list: z.string(),
            entry_id: z.string(),
            name: z.string(),
            currencies: z.array(z.string()),
          })
          .strict(),
      )
      .describe('The matching list entries'),
    lists_checked: z.array(z.string()).describe('Lists held and screened'),
    list_as_of: z
      .string()
      .nullable()
      .describe('Date of the OFAC SDN version screened (publication, else fetch date)'),
    list_status: z
      .enum(['current', 'stale', 'not_loaded'])
      .describe(
        'current: within its freshness threshold and refreshed; stale: older than its threshold or refreshes failing (see coverage); not_loaded: no OFAC list held',
      ),
    coverage: SanctionsCoverageSchema.describe(
      'The OFAC SDN list (the only list with digital currency addresses): checked with its publication date and age, or not checked and why. "Not listed" needs it checked.',
    ),
  })
  .strict()

const BalancePart = z
  .object({
    status: PartStatus,
    reason: Reason,
    chain_id: z.number().int().describe('Chain the balances were read on (8453 Base)'),
    balance_usdc: z.number().nullable().describe('USDC balance in USDC (6 decimals)'),
    balance_usdc_raw: z.string().nullable().describe('USDC balance in 6-decimal units (integer string)'),
    balance_native: z.string().nullable().describe('ETH balance in ETH (decimal string, 18 decimals)'),
    transaction_count: z.number().int().nullable().describe('Transactions sent from the wallet (nonce)'),
    is_contract: z.boolean().nullable().describe('The address holds contract code'),
    block_number: z.string().nullable().describe('Block the balances were read at'),
    block_timestamp: z.number().int().nullable().describe('Unix seconds of that block'),
  })
  .strict()

const IdentityPart = z
  .object({
    status: PartStatus,
    reason: Reason,
    registry: z.string().describe('ERC-8004 Identity Registry address read'),
    wallet_agent_ids: z
      .array(z.string())
      .nullable()
      .describe(
        'Agent ids the wallet owns or is the agent wallet of now (from registry events, confirmed on current state)',
      ),
    wallet_agent_ids_capped: z.boolean().describe('More agent ids were found than are listed (20)'),
    agent_id: z.string().nullable().describe('The agent_id asked about'),
    agent_registered: z.boolean().nullable(),
    agent_owner: z.string().nullable().describe('Owner of the asked agent (ERC-721 ownerOf)'),
    agent_wallet: z
      .string()
      .nullable()
      .describe('Agent wallet of the asked agent (getAgentWallet; null when unset)'),
    wallet_controls_agent: z
      .boolean()
      .nullable()
      .describe('The wallet is the owner or the agent wallet of the asked agent'),
  })
  .strict()

const ReputationPart = z
  .object({
    status: PartStatus,
    reason: Reason,
    registry: z.string().describe('ERC-8004 Reputation Registry address read'),
    note: z.string(),
    agents: z.array(
      z
        .object({
          agent_id: z.string(),
          feedback_count: z.number().int().describe('Feedback not revoked, from the clients read'),
          distinct_clients: z.number().int().describe('Clients read (at most 100)'),
          clients_capped: z.boolean().describe('The agent has more clients than were read'),
          top_tags: z
            .array(
              z
                .object({
                  tag: z.string(),
                  count: z.number().int(),
                  avg: z.number().describe('Mean feedback value (value / 10^decimals) with this tag'),
                })
                .strict(),
            )
            .describe('Most used tags (tag1 and tag2), at most 5'),
        })
        .strict(),
    ),
  })
  .strict()

const WalletRiskPart = z
  .object({
    status: PartStatus,
    reason: Reason,
    risk_score: z
      .number()
      .int()
      .min(0)
      .max(100)
      .describe('Sum of the points of the rules fired, capped at 100'),
    risk_level: z.enum(['low', 'medium', 'high', 'critical']),
    rules_fired: z.array(
      z
        .object({
          rule: z.string(),
          severity: z.enum(['low', 'medium', 'high', 'critical']),
          points: z.number().int(),
          detail: z.string(),
        })
        .strict(),
    ),
  })
  .strict()

const DomainPart = z
  .object({
    status: PartStatus,
    reason: Reason,
    domain: z.string().nullable(),
    probes: z
      .record(z.string(), z.enum(['ok', 'unavailable']))
      .describe('Status of each probe (rdap, dns, tls)'),
    domain_age_days: z.number().int().nullable(),
    domain_expires_at: z.string().nullable(),
    has_mx: z.boolean().nullable(),
    has_spf: z.boolean().nullable(),
    has_dmarc: z.boolean().nullable(),
    ssl_valid: z.boolean().nullable(),
    ssl_issuer: z.string().nullable(),
    web_score: z
      .number()
      .int()
      .min(0)
      .max(100)
      .nullable()
      .describe('0-100 from the probes (docs/agent-checks.md); null when a probe did not answer'),
  })
  .strict()

/** spec: POST /v1/agent/check response 200. */
export const AgentCheckResult = z
  .object({
    wallet: z.string().describe('The wallet, EIP-55 checksummed'),
    chain_id: z.number().int(),
    verdict: z
      .enum(['proceed', 'review', 'block'])
      .describe(
        'block: sanctions hit; review: a required part unavailable or a wallet risk rule of medium or higher severity fired; proceed otherwise',
      ),
    verdict_reasons: z.array(z.string()),
    ran: z.array(z.string()).describe('Parts that answered (ok or partial)'),
    did_not_run: z.array(z.string()).describe('Parts unavailable or not requested'),
    sanctions: SanctionsPart,
    balance: BalancePart,
    identity: IdentityPart,
    reputation: ReputationPart,
    wallet_risk: WalletRiskPart,
    domain: DomainPart,
    schema_version: z.string(),
    checked_at: z.string().describe('ISO timestamp'),
  })
  .strict()

type Result = z.infer<typeof AgentCheckResult>

const REPUTATION_NOTE =
  'Open ERC-8004 feedback as published on chain by any client: reported, not scored; anyone can give feedback.'

function reasonOf(result: SourceResult<unknown>): string {
  return result.status === 'ok' ? '' : result.detail ? `${result.reason}: ${result.detail}` : result.reason
}

function sanctionsPart(
  wallet: string,
  ctx: OperationContext<'sanctionsLists'>,
): z.infer<typeof SanctionsPart> {
  const lists = ctx.deps.sanctionsLists
  const ofac = lists?.status().find((list) => list.list_key === 'ofac_sdn')
  const listStatus = !ofac?.loaded ? 'not_loaded' : ofac.stale ? 'stale' : 'current'
  const screen = lists?.screenAddress(wallet)
  const coverage =
    screen?.coverage ?? noCoverage(ADDRESS_SCREEN_LISTS, 'this service runs without sanctions lists')
  const empty = { hit: null, lists: [], programs: [], entries: [], lists_checked: [], coverage }
  if (!screen || screen.status === 'unavailable')
    return {
      status: 'unavailable',
      reason: 'sanctions_lists_not_loaded',
      ...empty,
      list_as_of: null,
      list_status: listStatus,
    }
  if (!ofac?.loaded)
    return {
      status: 'unavailable',
      reason: 'ofac_list_not_loaded: the OFAC SDN list holds the digital currency addresses',
      ...empty,
      lists_checked: screen.lists.map((list) => list.list),
      list_as_of: null,
      list_status: listStatus,
    }
  // A stale OFAC list screened the address against what it said then, not today: a hit is still
  // a hit (block), but "not listed" is only partial and the verdict is never proceed.
  const stale = coverage.status !== 'complete'
  return {
    status: stale ? ('partial' as const) : ('ok' as const),
    reason: stale ? `ofac_list_stale: ${coverageGaps(coverage)}` : null,
    hit: screen.matches.length > 0,
    lists: [...new Set(screen.matches.map((match) => match.list))],
    programs: [...new Set(screen.matches.flatMap((match) => match.programmes))],
    entries: screen.matches.map((match) => ({
      list: match.list,
      entry_id: match.entry_id,
      name: match.matched_name,
      currencies: match.basis.currencies ?? [],
    })),
    lists_checked: screen.lists.map((list) => list.list),
    list_as_of: ofac.loaded.as_of,
    list_status: listStatus,
    coverage,
  }
}

async function domainPart(
  domain: string | undefined,
  ctx: OperationContext<'companySources'>,
): Promise<z.infer<typeof DomainPart>> {
  const none = {
    probes: {},
    domain_age_days: null,
    domain_expires_at: null,
    has_mx: null,
    has_spf: null,
    has_dmarc: null,
    ssl_valid: null,
    ssl_issuer: null,
    web_score: null,
  }
  if (!domain) return { status: 'not_requested', reason: 'no domain given', domain: null, ...none }
  const parsed = validateDomain(domain)
  const host = parsed.ok ? parsed.value.hostname : domain
  const registrable = parsed.ok ? parsed.value.registrable_domain : domain
  const sources = ctx.deps.companySources ?? {}
  const [rdap, dns, tls] = await Promise.all([
    sources.rdap?.lookupDomain(registrable),
    sources.dns?.probe(registrable),
    sources.tls?.probe(host),
  ])
  const probes: Record<string, 'ok' | 'unavailable'> = {
    rdap: rdap?.status ?? 'unavailable',
    dns: dns?.status ?? 'unavailable',
    tls: tls?.status ?? 'unavailable',
  }
  const r = rdap?.status === 'ok' ? rdap.data : null
  const d = dns?.status === 'ok' ? dns.data : null
  const t = tls?.status === 'ok' ? tls.data : null
  const now = ctx.clock.now().getTime()
  const daysToExpiry = r?.expires_at ? Math.floor((Date.parse(r.expires_at) - now) / 86_400_000) : null
  const failed = Object.entries(probes)
    .filter(([, status]) => status !== 'ok')
    .map(([name]) => {
      const result = { rdap, dns, tls }[name]
      return `${name} ${result ? reasonOf(result) : 'not_configured'}`
    })
  return {
    status: failed.length === 0 ? 'ok' : failed.length === 3 ? 'unavailable' : 'partial',
    reason: failed.length === 0 ? null : failed.join('; '),
    domain: registrable,
    probes,
    domain_age_days: r?.domain_age_days ?? null,
    domain_expires_at: r?.expires_at ?? null,
    has_mx: d ? d.has_mx : null,
    has_spf: d ? d.has_spf : null,
    has_dmarc: d ? d.has_dmarc : null,
    ssl_valid: t ? t.ssl_valid : null,
    ssl_issuer: t?.issuer ?? null,
    web_score: webScore({
      registered: r ? r.registered : null,
      ageDays: r?.domain_age_days ?? null,
      daysToExpiry,
      hasMx: d ? d.has_mx : null,
      hasSpf: d ? d.has_spf : null,
      hasDmarc: d ? d.has_dmarc : null,
      sslValid: t ? t.ssl_valid : null,
    }),
  }
}

const NOT_CONFIGURED = {
  source: 'base_rpc',
  status: 'unavailable',
  reason: 'not_configured',
  detail: 'no RPC URL for AGENT_CHAIN (BASE_RPC_URL or BASE_SEPOLIA_RPC_URL)',
  fetched_at: '',
  latency_ms: 0,
} as const

/**
 * spec: POST /v1/agent/check. The sanctions screen (local OFAC addresses), the chain reads
 * (balances, identity, reputation) and the domain probes run in parallel; the wallet risk rules
 * and the verdict are computed from what answered. A part that could not be read says so and the
 * verdict is then never `proceed`.
 */
export async function runAgentCheck(
  input: z.infer<typeof AgentCheckInput>,
  ctx: OperationContext<'agentChain' | 'agentRegistries' | 'companySources' | 'sanctionsLists'>,
): Promise<Result> {
  const wallet = getAddress(input.wallet) as Address
  const reader = ctx.deps.agentChain
  const agentId = input.agent_id === undefined ? undefined : BigInt(input.agent_id)
  const [snapshot, domain] = await Promise.all([
    reader
      ? reader.readWallet({ wallet, agentId, reputation: true })
      : Promise.resolve<AgentChainSnapshot>({
          balances: NOT_CONFIGURED,
          identity: NOT_CONFIGURED,
          reputation: NOT_CONFIGURED,
        }),
    domainPart(input.domain, ctx),
  ])
  const sanctions = sanctionsPart(wallet, ctx)
  const chainId = reader?.chainId ?? 8453
  const registries = ctx.deps.agentRegistries ?? { identity: '', reputation: '' }

  const b = snapshot.balances
  const balance: z.infer<typeof BalancePart> =
    b.status === 'ok'
      ? {
          status: 'ok',
          reason: null,
          chain_id: chainId,
          balance_usdc: Number(formatUnits(b.data.usdc_raw, 6)),
          balance_usdc_raw: b.data.usdc_raw.toString(),
          balance_native: formatUnits(b.data.native_wei, 18),
          transaction_count: b.data.transaction_count,
          is_contract: b.data.is_contract,
          block_number: b.data.block_number.toString(),
          block_timestamp: b.data.block_timestamp,
        }
      : {
          status: 'unavailable',
          reason: reasonOf(b),
          chain_id: chainId,
          balance_usdc: null,
          balance_usdc_raw: null,
          balance_native: null,
          transaction_count: null,
          is_contract: null,
          block_number: null,
          block_timestamp: null,
        }

  const i = snapshot.identity
  const asked = i.status === 'ok' ? i.data.agent : null
  const lowerWallet = wallet.toLowerCase()
  const controls = asked
    ? asked.owner?.toLowerCase() === lowerWallet || asked.agent_wallet?.toLowerCase() === lowerWallet
    : null
  const scanError = i.status === 'ok' ? i.data.agent_wallet_scan_error : null
  const identity: z.infer<typeof IdentityPart> = {
    status: i.status !== 'ok' ? 'unavailable' : scanError ? 'partial' : 'ok',
    reason:
      i.status !== 'ok'
        ? reasonOf(i)
        : scanError
          ? `the RPC refused the agent-wallet event scan (${scanError}): wallet_agent_ids lists the agents the wallet owns only`
          : null,
    registry: registries.identity,
    wallet_agent_ids: i.status === 'ok' ? i.data.wallet_agent_ids : null,
    wallet_agent_ids_capped: i.status === 'ok' ? i.data.wallet_agent_ids_capped : false,
    agent_id: input.agent_id ?? null,
    agent_registered: asked ? asked.registered : null,
    agent_owner: asked?.owner ?? null,
    agent_wallet: asked?.agent_wallet ?? null,
    wallet_controls_agent: asked ? controls : null,
  }

  const rep = snapshot.reputation ?? NOT_CONFIGURED
  const reputation: z.infer<typeof ReputationPart> = {
    status: rep.status === 'ok' ? 'ok' : 'unavailable',
    reason: rep.status === 'ok' ? null : reasonOf(rep),
    registry: registries.reputation,
    note: REPUTATION_NOTE,
    agents: rep.status === 'ok' ? rep.data.agents : [],
  }

  const risk = assessWalletRisk({
    sanctioned: sanctions.status === 'ok' ? sanctions.hit : null,
    emptyAndUnused:
      b.status === 'ok'
        ? b.data.usdc_raw === 0n && b.data.native_wei === 0n && b.data.transaction_count === 0
        : null,
    isContract: b.status === 'ok' ? b.data.is_contract : null,
    // An empty list from an incomplete scan proves nothing: the rule is not evaluated then.
    walletAgentIds:
      i.status === 'ok' && !(scanError && i.data.wallet_agent_ids.length === 0)
        ? i.data.wallet_agent_ids
        : null,
    askedAgent:
      agentId === undefined
        ? undefined
        : asked
          ? { agent_id: asked.agent_id, registered: asked.registered, controlled: controls === true }
          : null,
  })
  const walletRisk: z.infer<typeof WalletRiskPart> = {
    status: risk.missing.length === 0 ? 'ok' : 'partial',
    reason: risk.missing.length === 0 ? null : `not evaluated without: ${risk.missing.join(', ')}`,
    risk_score: risk.risk_score,
    risk_level: risk.risk_level,
    rules_fired: risk.rules_fired,
  }

  const parts = { sanctions, balance, identity, reputation, wallet_risk: walletRisk, domain }
  const ran = Object.entries(parts)
    .filter(([, part]) => part.status === 'ok' || part.status === 'partial')
    .map(([name]) => name)
  const didNotRun = Object.entries(parts)
    .filter(([, part]) => part.status === 'unavailable' || part.status === 'not_requested')
    .map(([name]) => name)
  const required = ['sanctions', 'balance', 'identity', 'reputation'] as const
  const { verdict, verdict_reasons } = decideVerdict({
    sanctionsHit: sanctions.hit,
    unavailableParts: required.filter((name) => parts[name].status === 'unavailable'),
    partialParts: required.filter((name) => parts[name].status === 'partial'),
    rulesFired: risk.rules_fired,
  })
  return {
    wallet,
    chain_id: chainId,
    verdict,
    verdict_reasons,
    ran,
    did_not_run: didNotRun,
    ...parts,
    schema_version: AGENT_CHECK_SCHEMA_VERSION,
    checked_at: ctx.clock.now().toISOString(),
  }
}

export const agentCheck = defineOperation({
  id: 'agent_check',
  http: { method: 'POST', path: '/v1/agent/check' },
  summary:
    "Check an agent's wallet before paying or trusting it: sanctions, Base balance, ERC-8004 identity and reputation",
  description:
    'Screens the wallet against the OFAC digital currency addresses held locally, reads its USDC and ETH balance on Base, its ERC-8004 identity (agents it owns or is the agent wallet of; the asked agent_id) and the open feedback of those agents, fires the documented wallet risk rules and gives a verdict: block on a sanctions hit, review when a part could not be read or a wallet risk rule of medium or higher severity fired, proceed otherwise. The domain is probed and reported, never used by the verdict. Live key or x402 only.',
  input: AgentCheckInput,
  output: AgentCheckResult,
  price: PRICES.agent_check,
  essentials: {
    parts: [
      {
        part: 'sanctions',
        when: 'always',
        needs: 'the OFAC SDN list loaded (the only list with digital currency addresses)',
      },
      {
        part: 'chain',
        when: 'always (balance, identity, reputation)',
        needs: 'BASE_RPC_URL (AGENT_CHAIN=base) or BASE_SEPOLIA_RPC_URL',
      },
    ],
    check: (_input, deps) => [...listsNotReady(deps, 'addresses'), ...chainNotReady(deps)],
  },
  ports: ['agentChain', 'agentRegistries', 'companySources', 'sanctionsLists'],
  access: { sandbox: 'refuse' },
  openWorld: true,
  run: runAgentCheck,
})
