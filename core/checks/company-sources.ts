import type { DnsProbe, KboLookup, KvkClient, RdapClient, TlsProbe, ViesClient } from '../sources/index.ts'

/**
 * The upstream sources a company check may call, each optional: a source that is not
 * configured (no KVK API key, no KBO data) is reported `unavailable` with reason
 * `not_configured`, never skipped silently. The composition root builds the real adapters from
 * config; tests point them at the fakes.
 */
export interface CompanySources {
  kvk?: Pick<KvkClient, 'lookupCompany' | 'searchCompanies'>
  kbo?: Pick<KboLookup, 'lookupEnterprise'> & Partial<Pick<KboLookup, 'datasetState'>>
  vies?: Pick<ViesClient, 'checkVat'>
  rdap?: Pick<RdapClient, 'lookupDomain'>
  dns?: Pick<DnsProbe, 'probe'>
  tls?: Pick<TlsProbe, 'probe'>
}
