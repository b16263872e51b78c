import type { CountryCode } from '../validate/index.ts'

export type CountryListId =
  | 'fatf_call_for_action'
  | 'fatf_increased_monitoring'
  | 'eu_high_risk_third_countries'
  | 'comprehensive_sanctions'
  | 'sectoral_sanctions'
  | 'eu_eea_member'
  | 'fatf_member'

/** A dated, sourced list of countries used by the country-risk score. */
export type CountryList = {
  id: CountryListId
  name: string
  /** Publisher and document. */
  source: string
  source_url: string
  /** Date of the decision or publication the list reflects (YYYY-MM-DD). */
  as_of: string
  note?: string
  countries: readonly CountryCode[]
}

/**
 * FATF "black list". Outcome of the FATF plenary of 17-19 June 2026 (Paris): unchanged since
 * October 2022. DPRK and Iran are subject to countermeasures; for Myanmar the FATF calls for
 * enhanced due diligence proportionate to the risk. No later plenary outcome could be verified
 * when this table was compiled (2026-11-21): the October 2026 plenary, if held, is not reflected.
 */
export const FATF_CALL_FOR_ACTION: CountryList = {
  id: 'fatf_call_for_action',
  name: 'FATF high-risk jurisdictions subject to a call for action',
  source: 'FATF, High-Risk Jurisdictions subject to a Call for Action, June 2026',
  source_url: 'https://www.fatf-gafi.org/en/topics/high-risk-and-other-monitored-jurisdictions.html',
  as_of: '2026-06-19',
  countries: ['IR', 'KP', 'MM'],
}

/**
 * FATF "grey list" after the June 2026 plenary (22 jurisdictions). Derived from the October 2025
 * list (FATF publication of 24 October 2025: Algeria, Angola, Bolivia, Bulgaria, Cameroon,
 * Côte d'Ivoire, DR Congo, Haiti, Kenya, Lao PDR, Lebanon, Monaco, Namibia, Nepal, South Sudan,
 * Syria, Venezuela, Vietnam, Virgin Islands (UK), Yemen), plus Kuwait and Papua New Guinea
 * (added 13 February 2026), plus Bosnia and Herzegovina and Iraq and minus Algeria and Namibia
 * (19 June 2026). Same caveat about the October 2026 plenary as above.
 */
export const FATF_INCREASED_MONITORING: CountryList = {
  id: 'fatf_increased_monitoring',
  name: 'FATF jurisdictions under increased monitoring',
  source: 'FATF, Jurisdictions under Increased Monitoring, June 2026',
  source_url: 'https://www.fatf-gafi.org/en/topics/high-risk-and-other-monitored-jurisdictions.html',
  as_of: '2026-06-19',
  // biome-ignore format: alphabetical by code
  countries: [
    'AO', 'BA', 'BG', 'BO', 'CD', 'CI', 'CM', 'HT', 'IQ', 'KE', 'KW',
    'LA', 'LB', 'MC', 'NP', 'PG', 'SS', 'SY', 'VE', 'VG', 'VN', 'YE',
  ],
}

/**
 * EU list of high-risk third countries: Annex to Commission Delegated Regulation (EU) 2016/1675,
 * as last amended by Delegated Regulations (EU) 2026/46 (adds Russia, new point IV: FATF
 * membership suspended) and (EU) 2026/83 (adds Bolivia and the British Virgin Islands; removes
 * Burkina Faso, Mali, Mozambique, Nigeria, South Africa, Tanzania), both published in the OJ on
 * 9 January 2026 and in force from 29 January 2026. The later FATF changes of February and June
 * 2026 had not been transposed by an amendment we could verify.
 */
export const EU_HIGH_RISK_THIRD_COUNTRIES: CountryList = {
  id: 'eu_high_risk_third_countries',
  name: 'EU high-risk third countries (AML/CFT)',
  source: 'Delegated Regulation (EU) 2016/1675, as amended by (EU) 2026/46 and (EU) 2026/83',
  source_url: 'https://eur-lex.europa.eu/eli/reg_del/2016/1675/oj',
  as_of: '2026-01-29',
  // biome-ignore format: alphabetical by code
  countries: [
    'AF', 'AO', 'BO', 'CD', 'CI', 'CM', 'DZ', 'HT', 'IR', 'KE', 'KP', 'LA', 'LB',
    'MC', 'MM', 'NA', 'NP', 'RU', 'SS', 'SY', 'TT', 'VE', 'VG', 'VN', 'VU', 'YE',
  ],
}

/**
 * Country-wide embargoes: US (OFAC) comprehensive programmes for Cuba, Iran and North Korea;
 * Iran and North Korea are also under UN and EU measures. Syria is deliberately absent: the US
 * comprehensive Syria programme was terminated by Executive Order 14312 (effective 1 July 2025)
 * and the EU lifted its economic sanctions in May 2025; targeted listings remain and are
 * screened by name, not by country.
 */
export const COMPREHENSIVE_SANCTIONS: CountryList = {
  id: 'comprehensive_sanctions',
  name: 'Comprehensive (country-wide) sanctions programmes',
  source: 'OFAC Sanctions Programs and Country Information; EU Sanctions Map',
  source_url: 'https://ofac.treasury.gov/sanctions-programs-and-country-information',
  as_of: '2025-07-01',
  note: 'Date of the last change to this set (Syria programme terminated). Set reviewed 2026-11-21.',
  countries: ['CU', 'IR', 'KP'],
}

/**
 * Extensive sectoral sanctions short of a full embargo: Russia (EU Regulation 833/2014 and US
 * Russia-related programmes) and Belarus (EU Regulation 765/2006 and US Belarus programme).
 */
export const SECTORAL_SANCTIONS: CountryList = {
  id: 'sectoral_sanctions',
  name: 'Extensive sectoral sanctions programmes',
  source: 'Council Regulation (EU) 833/2014 (Russia), Council Regulation (EC) 765/2006 (Belarus); OFAC',
  source_url: 'https://www.sanctionsmap.eu/',
  as_of: '2025-07-01',
  note: 'Programmes in force since 2014 (Russia) and 2006 (Belarus), extended repeatedly; reviewed 2026-11-21.',
  countries: ['BY', 'RU'],
}

/** EU-27 plus Iceland, Liechtenstein and Norway (EEA Agreement). */
export const EU_EEA_MEMBERS: CountryList = {
  id: 'eu_eea_member',
  name: 'EU and EEA member states',
  source: 'European Union member states; EEA Agreement',
  source_url: 'https://european-union.europa.eu/principles-countries-history/eu-countries_en',
  as_of: '2020-02-01',
  note: 'Unchanged since the United Kingdom left the EU on 1 February 2020.',
  // biome-ignore format: alphabetical by code
  countries: [
    'AT', 'BE', 'BG', 'CY', 'CZ', 'DE', 'DK', 'EE', 'ES', 'FI', 'FR', 'GR', 'HR', 'HU', 'IE',
    'IS', 'IT', 'LI', 'LT', 'LU', 'LV', 'MT', 'NL', 'NO', 'PL', 'PT', 'RO', 'SE', 'SI', 'SK',
  ],
}

/**
 * FATF member jurisdictions: 37 countries (38 with Russia; the European Commission and the Gulf Co-operation
 * Council are members too but not countries). Russia is left out: its membership has been
 * suspended since 24 February 2023.
 */
export const FATF_MEMBERS: CountryList = {
  id: 'fatf_member',
  name: 'FATF member jurisdictions (membership not suspended)',
  source: 'FATF, Members and Observers',
  source_url: 'https://www.fatf-gafi.org/en/countries.html',
  as_of: '2023-10-27',
  note: 'Indonesia became the 40th member in October 2023; Russia suspended in February 2023.',
  // biome-ignore format: alphabetical by code
  countries: [
    'AR', 'AT', 'AU', 'BE', 'BR', 'CA', 'CH', 'CN', 'DE', 'DK', 'ES', 'FI', 'FR', 'GB', 'GR', 'HK', 'ID', 'IE', 'IL',
    'IN', 'IS', 'IT', 'JP', 'KR', 'LU', 'MX', 'MY', 'NL', 'NO', 'NZ', 'PT', 'SA', 'SE', 'SG', 'TR', 'US', 'ZA',
  ],
}
