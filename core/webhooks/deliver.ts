import { isIP } from 'node:net'
import type { Agent } from 'undici'
import { WEBHOOK_LIMITS } from './events.ts'
import { undici } from './undici.ts'
import { checkWebhookUrl, type UrlGuardOptions } from './url-guard.ts'

/**
 * One delivery attempt (spec: Events rules 6 and 10): the URL is checked again, the connection
 * goes to the checked address only (pinned: the agent's lookup answers with it, so DNS cannot
 * rebind between check and connect), TLS is verified against the URL's hostname, redirects are
 * not followed, and the receiver has 10 s. Any 2xx is delivered; everything else is a failure
 * with a reason.
 */

export interface AttemptResult {
  delivered: boolean
  status_code: number | null
  duration_ms: number
  error: string | null
}

export interface DeliverOptions extends UrlGuardOptions {
  timeoutMs?: number
  /** Keeps connections open per pinned address (the worker's); without it each attempt connects anew. */
  agents?: PinnedAgentPool
}

/**
 * Connections kept per (checked address, hostname, port): every agent's lookup answers only its
 * own address, so a kept connection is pinned as much as a new one, and the URL is still checked
 * before every attempt (a host that now resolves elsewhere gets another agent, or is refused).
 */
export interface PinnedAgentPool {
  get(key: string, create: () => Agent): Agent
  close(): Promise<void>
}

export function createPinnedAgentPool(maxAgents = 256): PinnedAgentPool {
  const agents = new Map<string, Agent>()
  return {
    get(key, create) {
      const existing = agents.get(key)
      if (existing) return existing
      if (agents.size >= maxAgents) {
        const [oldestKey, oldest] = agents.entries().next().value as [string, Agent]
        agents.delete(oldestKey)
        oldest.close().catch(() => {})
      }
      const agent = create()
      agents.set(key, agent)
      return agent
    },
    async close() {
      const all = [...agents.values()]
      agents.clear()
      await Promise.all(all.map((agent) => agent.close().catch(() => {})))
    },
  }
}

export async function deliverOnce(
  url: string,
  body: string,
  headers: Record<string, string>,
  options: DeliverOptions = {},
): Promise<AttemptResult> {
  const started = performance.now()
  const elapsed = () => Math.round(performance.now() - started)
  const check = await checkWebhookUrl(url, options)
  if (!check.ok)
    return { delivered: false, status_code: null, duration_ms: elapsed(), error: `refused: ${check.detail}` }
  const timeoutMs = options.timeoutMs ?? WEBHOOK_LIMITS.timeoutMs
  const { address, family } = check
  const createAgent = () =>
    new undici.Agent({
      connect: {
        ...(options.testReceivers ? { ca: options.testReceivers.ca } : {}),
        // SNI carries names only; an IP-literal URL is verified against the certificate's IP SANs.
        ...(isIP(check.hostname) === 0 ? { servername: check.hostname } : {}),
        rejectUnauthorized: true,
        timeout: timeoutMs,
        lookup: ((
          _host: string,
          lookupOptions: { all?: boolean },
          callback: (...args: unknown[]) => void,
        ) => {
          if (lookupOptions?.all) callback(null, [{ address, family }])
          else callback(null, address, family)
        }) as never,
      },
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
    })
  const pooled = options.agents
  const agent = pooled
    ? pooled.get(`${address}|${check.hostname}|${check.port}|${timeoutMs}`, createAgent)
    : createAgent()
  try {
    const response = await undici.request(check.url, {
      method: 'POST',
      body,
      headers: {
        'content-type': 'application/json',
        'user-agent': 'validation-service-webhooks/1',
        ...headers,
      },
      dispatcher: agent,
      signal: AbortSignal.timeout(timeoutMs),
    })
    await response.body.dump({ limit: 64 * 1024 }).catch(() => {})
    const status = response.statusCode
    const delivered = status >= 200 && status < 300
    return {
      delivered,
      status_code: status,
      duration_ms: elapsed(),
      error: delivered
        ? null
        : status >= 300 && status < 400
          ? `redirect ${status} not followed`
          : `HTTP ${status}`,
    }
  } catch (error) {
    const err = error as {
      code?: string
      message?: string
      name?: string
      cause?: { code?: string; message?: string }
    }
    const reason =
      err.name === 'TimeoutError' ||
      err.code === 'UND_ERR_HEADERS_TIMEOUT' ||
      err.code === 'UND_ERR_CONNECT_TIMEOUT'
        ? `timeout after ${timeoutMs} ms`
        : (err.cause?.code ?? err.code ?? err.cause?.message ?? err.message ?? String(error))
    return { delivered: false, status_code: null, duration_ms: elapsed(), error: reason }
  } finally {
    if (!pooled) agent.close().catch(() => {})
  }
}
