import type { ServiceFacts } from './service-facts.ts'

/**
 * `GET /v1/self-verify` (spec: Public routes): what an agent needs to decide whether to trust this
 * deployment, all checkable elsewhere: the version and commit it runs, the dates of the sanctions
 * lists it screens against, the chains and payTo addresses payments go to (compare them with a
 * 402 challenge before paying), the report signing key id (null until reports are signed), and
 * uptime.
 */
export function buildSelfVerify(facts: ServiceFacts, now: Date) {
  return {
    service: facts.name,
    version: facts.version,
    commit: facts.commit,
    base_url: facts.baseUrl,
    started_at: facts.startedAt.toISOString(),
    uptime_s: Math.max(0, Math.round((now.getTime() - facts.startedAt.getTime()) / 1000)),
    checked_at: now.toISOString(),
    sanctions_lists: facts.listDates(),
    payments: {
      x402_enabled: facts.networks.length > 0,
      networks: facts.networks,
    },
    report_signing: {
      key_id: facts.reportSigningKeyId,
      note:
        facts.reportSigningKeyId === null
          ? 'Reports are not signed by this deployment yet.'
          : 'Reports carry a JWS signed with this key id.',
    },
    discovery: {
      openapi: `${facts.baseUrl}/openapi.json`,
      x402: `${facts.baseUrl}/.well-known/x402.json`,
      agent_card: `${facts.baseUrl}/.well-known/agent.json`,
      mcp: `${facts.baseUrl}/.well-known/mcp.json`,
      security: `${facts.baseUrl}/.well-known/security.txt`,
    },
  }
}
