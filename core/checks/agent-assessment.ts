/**
 * The pure rules of the agent check: wallet risk rules, the verdict and the domain's
 * web score. Documented in docs/agent-checks.md; the operation
 * (core/operations/agent-check.ts) gathers the parts and calls these.
 */

export type RiskSeverity = 'low' | 'medium' | 'high' | 'critical'

export interface RuleFired {
  rule: string
  severity: RiskSeverity
  points: number
  detail: string
}

/** What the wallet risk rules look at; `null` means the part that knows it could not be read. */
export interface WalletRiskInput {
  sanctioned: boolean | null
  /** USDC and ETH both zero and no transaction sent. */
  emptyAndUnused: boolean | null
  isContract: boolean | null
  /** Agent ids the wallet owns or is the agent wallet of. */
  walletAgentIds: string[] | null
  /** The asked agent (agent_id given): registered, and whether the wallet controls it. */
  askedAgent: { agent_id: string; registered: boolean; controlled: boolean } | null | undefined
}

/** Points per rule; the score is their sum capped at 100. */
export const WALLET_RISK_RULES = {
  sanctioned_address: { severity: 'critical', points: 100 },
  agent_not_registered: { severity: 'high', points: 40 },
  agent_registered_to_other_owner: { severity: 'high', points: 40 },
  empty_wallet_no_history: { severity: 'medium', points: 25 },
  wallet_is_contract: { severity: 'low', points: 10 },
  no_agent_identity: { severity: 'medium', points: 20 },
} as const satisfies Record<string, { severity: RiskSeverity; points: number }>

export function riskLevelOf(score: number): RiskSeverity {
  if (score >= 100) return 'critical'
  if (score >= 40) return 'high'
  if (score >= 20) return 'medium'
  return 'low'
}

/** The wallet risk rules: each that fired with its points; inputs not read are listed as missing. */
export function assessWalletRisk(input: WalletRiskInput): {
  risk_score: number
  risk_level: RiskSeverity
  rules_fired: RuleFired[]
  missing: string[]
} {
  const fired: RuleFired[] = []
  const missing: string[] = []
  const fire = (rule: keyof typeof WALLET_RISK_RULES, detail: string) =>
    fired.push({ rule, ...WALLET_RISK_RULES[rule], detail })
  if (input.sanctioned === null) missing.push('sanctions')
  else if (input.sanctioned)
    fire('sanctioned_address', 'the address is on the OFAC SDN list of digital currency addresses')
  if (input.askedAgent === null) missing.push('identity')
  else if (input.askedAgent) {
    if (!input.askedAgent.registered)
      fire(
        'agent_not_registered',
        `agent ${input.askedAgent.agent_id} is not registered in the Identity Registry`,
      )
    else if (!input.askedAgent.controlled)
      fire(
        'agent_registered_to_other_owner',
        `agent ${input.askedAgent.agent_id} is owned by another address and its agent wallet is not this wallet`,
      )
  }
  if (input.emptyAndUnused === null || input.isContract === null) missing.push('balance')
  else {
    if (input.emptyAndUnused) fire('empty_wallet_no_history', 'no USDC, no ETH and no transaction sent')
    if (input.isContract)
      fire('wallet_is_contract', 'the address holds contract code (smart wallet or contract)')
  }
  if (input.walletAgentIds === null) {
    if (!missing.includes('identity')) missing.push('identity')
  } else if (input.walletAgentIds.length === 0)
    fire('no_agent_identity', 'the wallet owns no ERC-8004 agent and is the agent wallet of none')
  const score = Math.min(
    100,
    fired.reduce((sum, rule) => sum + rule.points, 0),
  )
  return { risk_score: score, risk_level: riskLevelOf(score), rules_fired: fired, missing }
}

export type Verdict = 'proceed' | 'review' | 'block'

/**
 * The verdict: `block` on a sanctions hit; `review` when the sanctions screen, the balance, the
 * identity or the reputation could not be read, or a wallet risk rule of medium or higher
 * severity fired; `proceed` otherwise (low rules such as a contract wallet are reported only).
 * The domain never counts (spec: "reported but never used by the verdict").
 */
export function decideVerdict(input: {
  sanctionsHit: boolean | null
  unavailableParts: string[]
  /** Parts read only in part (e.g. identity without the agent-wallet scan). */
  partialParts?: string[]
  rulesFired: RuleFired[]
}): { verdict: Verdict; verdict_reasons: string[] } {
  const reasons: string[] = []
  if (input.sanctionsHit) {
    reasons.push('sanctions_hit: the wallet is on the OFAC SDN list of digital currency addresses')
    return { verdict: 'block', verdict_reasons: reasons }
  }
  for (const part of input.unavailableParts) reasons.push(`part_unavailable: ${part} could not be read`)
  for (const part of input.partialParts ?? []) reasons.push(`part_partial: ${part} was only partly read`)
  for (const rule of input.rulesFired)
    if (rule.severity !== 'low') reasons.push(`${rule.rule}: ${rule.detail}`)
  if (reasons.length > 0) return { verdict: 'review', verdict_reasons: reasons }
  return {
    verdict: 'proceed',
    verdict_reasons: [
      'all parts answered; not sanctioned; no wallet risk rule of medium or higher severity fired',
    ],
  }
}

/** What the domain probes found, for the web score (null: that probe did not answer). */
export interface WebSignals {
  registered: boolean | null
  ageDays: number | null
  daysToExpiry: number | null
  hasMx: boolean | null
  hasSpf: boolean | null
  hasDmarc: boolean | null
  sslValid: boolean | null
}

/**
 * web_score 0-100 from the probes: registered a year or more 30 (90 days or more 15), not
 * expiring within 30 days 10, MX 15, SPF 10, DMARC 10, valid TLS certificate 25. null when a
 * probe did not answer (a partial score would read as a bad one).
 */
export function webScore(signals: WebSignals): number | null {
  const values = Object.values(signals)
  if (signals.registered === null || signals.hasMx === null || signals.sslValid === null) return null
  if (values.some((value) => value === undefined)) return null
  let score = 0
  if (signals.registered) {
    if ((signals.ageDays ?? 0) >= 365) score += 30
    else if ((signals.ageDays ?? 0) >= 90) score += 15
    if (signals.daysToExpiry === null || signals.daysToExpiry > 30) score += 10
  }
  if (signals.hasMx) score += 15
  if (signals.hasSpf) score += 10
  if (signals.hasDmarc) score += 10
  if (signals.sslValid) score += 25
  return score
}
