import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import type { Clock } from '../core/context.ts'
import {
  type LegalDocument,
  privacyDocument,
  SERVICE_NAME,
  type ServiceFacts,
  type StoredCategoryNote,
  termsDocument,
} from '../core/discovery/index.ts'
import type { PaymentConfig } from '../core/payments/index.ts'
import type { SanctionsService } from '../core/sanctions/index.ts'
import type { DiscoveryRoutesOptions } from '../http/routes/discovery-routes.ts'
import type { Config } from './config.ts'

/** The commit this process runs: SERVICE_COMMIT, else `git rev-parse HEAD` in the project, else `unknown`. */
export function serviceCommit(config: Config): string {
  if (config.SERVICE_COMMIT) return config.SERVICE_COMMIT
  try {
    return execFileSync('git', ['rev-parse', 'HEAD'], {
      cwd: new URL('..', import.meta.url),
      encoding: 'utf8',
      timeout: 2000,
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim()
  } catch {
    return 'unknown'
  }
}

/** Reads an operator-provided text file once at start-up; an unreadable file stops start-up naming the variable. */
function readLegalFile(variable: string, file: string | undefined): string | undefined {
  if (!file) return undefined
  try {
    return readFileSync(file, 'utf8')
  } catch (error) {
    throw new Error(
      `invalid configuration:\n  ${variable}: cannot read ${file} (${(error as Error).message})`,
    )
  }
}

export interface DiscoveryInputs {
  config: Config
  version: string
  baseUrl: string
  startedAt: Date
  clock: Clock
  payment?: PaymentConfig
  sanctions: Pick<SanctionsService, 'status'>
  /** Stored data categories for the privacy placeholder (the retention registry). */
  storedCategories: readonly StoredCategoryNote[]
}

/** The facts and texts of the public discovery routes, from config and the running parts. */
export function buildDiscovery(inputs: DiscoveryInputs): Omit<DiscoveryRoutesOptions, 'operations'> {
  const { config } = inputs
  const facts: ServiceFacts = {
    name: SERVICE_NAME,
    version: inputs.version,
    commit: serviceCommit(config),
    baseUrl: inputs.baseUrl.replace(/\/+$/, ''),
    startedAt: inputs.startedAt,
    networks: (inputs.payment?.networks ?? []).map((network) => ({
      network: network.network,
      kind: network.kind,
      chain_id: network.chainId,
      asset: network.asset,
      pay_to: network.payTo,
    })),
    listDates: () =>
      inputs.sanctions.status().map((status) => ({
        list_key: status.list_key,
        list: status.list,
        loaded: status.loaded !== null,
        publication_date: status.loaded?.publication_date ?? null,
        as_of: status.loaded?.as_of ?? null,
        entry_count: status.loaded?.entry_count ?? 0,
        fetched_at: status.loaded?.fetched_at.toISOString() ?? null,
        checked_at: status.loaded?.checked_at.toISOString() ?? null,
      })),
    // Report signing (another issue) sets this to the JWS key id of its signing key.
    reportSigningKeyId: null,
  }
  const terms: LegalDocument = termsDocument(
    readLegalFile('LEGAL_TERMS_FILE', config.LEGAL_TERMS_FILE),
    SERVICE_NAME,
  )
  const privacy: LegalDocument = privacyDocument(
    readLegalFile('LEGAL_PRIVACY_FILE', config.LEGAL_PRIVACY_FILE),
    SERVICE_NAME,
    inputs.storedCategories,
  )
  return {
    facts,
    clock: inputs.clock,
    legal: { terms, privacy },
    securityTxt: {
      contacts: config.SECURITY_CONTACT
        ? config.SECURITY_CONTACT.split(',').map((entry) => entry.trim())
        : null,
      ...(config.SECURITY_POLICY_URL ? { policyUrl: config.SECURITY_POLICY_URL } : {}),
      ...(config.SECURITY_TXT_EXPIRES ? { expires: new Date(config.SECURITY_TXT_EXPIRES) } : {}),
    },
  }
}
