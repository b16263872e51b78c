import { normaliseName } from './name-normaliser.ts'

/**
 * Country resolution for list parsers: the lists give countries as ISO alpha-2 (EU FSF), ISO
 * alpha-3 (legacy EU), English names in several styles (UN "Iran (Islamic Republic of)", OFAC
 * "Korea, North") or OFAC reference ids. Entries store ISO 3166-1 alpha-2 only; a value that
 * cannot be resolved (regions such as "Region: Crimea", "undetermined", the former "YUG") is left
 * out rather than guessed.
 */

/** ISO 3166-1 alpha-2 and alpha-3 pairs, plus XK/XKX (Kosovo) which OFAC and the EU use. */
const ISO_PAIRS =
  'AD AND AE ARE AF AFG AG ATG AI AIA AL ALB AM ARM AO AGO AQ ATA AR ARG AS ASM AT AUT AU AUS AW ABW ' +
  'AX ALA AZ AZE BA BIH BB BRB BD BGD BE BEL BF BFA BG BGR BH BHR BI BDI BJ BEN BL BLM BM BMU BN BRN ' +
  'BO BOL BQ BES BR BRA BS BHS BT BTN BV BVT BW BWA BY BLR BZ BLZ CA CAN CC CCK CD COD CF CAF CG COG ' +
  'CH CHE CI CIV CK COK CL CHL CM CMR CN CHN CO COL CR CRI CU CUB CV CPV CW CUW CX CXR CY CYP CZ CZE ' +
  'DE DEU DJ DJI DK DNK DM DMA DO DOM DZ DZA EC ECU EE EST EG EGY EH ESH ER ERI ES ESP ET ETH FI FIN ' +
  'FJ FJI FK FLK FM FSM FO FRO FR FRA GA GAB GB GBR GD GRD GE GEO GF GUF GG GGY GH GHA GI GIB GL GRL ' +
  'GM GMB GN GIN GP GLP GQ GNQ GR GRC GS SGS GT GTM GU GUM GW GNB GY GUY HK HKG HM HMD HN HND HR HRV ' +
  'HT HTI HU HUN ID IDN IE IRL IL ISR IM IMN IN IND IO IOT IQ IRQ IR IRN IS ISL IT ITA JE JEY JM JAM ' +
  'JO JOR JP JPN KE KEN KG KGZ KH KHM KI KIR KM COM KN KNA KP PRK KR KOR KW KWT KY CYM KZ KAZ LA LAO ' +
  'LB LBN LC LCA LI LIE LK LKA LR LBR LS LSO LT LTU LU LUX LV LVA LY LBY MA MAR MC MCO MD MDA ME MNE ' +
  'MF MAF MG MDG MH MHL MK MKD ML MLI MM MMR MN MNG MO MAC MP MNP MQ MTQ MR MRT MS MSR MT MLT MU MUS ' +
  'MV MDV MW MWI MX MEX MY MYS MZ MOZ NA NAM NC NCL NE NER NF NFK NG NGA NI NIC NL NLD NO NOR NP NPL ' +
  'NR NRU NU NIU NZ NZL OM OMN PA PAN PE PER PF PYF PG PNG PH PHL PK PAK PL POL PM SPM PN PCN PR PRI ' +
  'PS PSE PT PRT PW PLW PY PRY QA QAT RE REU RO ROU RS SRB RU RUS RW RWA SA SAU SB SLB SC SYC SD SDN ' +
  'SE SWE SG SGP SH SHN SI SVN SJ SJM SK SVK SL SLE SM SMR SN SEN SO SOM SR SUR SS SSD ST STP SV SLV ' +
  'SX SXM SY SYR SZ SWZ TC TCA TD TCD TF ATF TG TGO TH THA TJ TJK TK TKL TL TLS TM TKM TN TUN TO TON ' +
  'TR TUR TT TTO TV TUV TW TWN TZ TZA UA UKR UG UGA UM UMI US USA UY URY UZ UZB VA VAT VC VCT VE VEN ' +
  'VG VGB VI VIR VN VNM VU VUT WF WLF WS WSM YE YEM YT MYT ZA ZAF ZM ZMB ZW ZWE XK XKX'

/** Official and list-specific English names that differ from the common English name. */
const NAME_ALIASES: ReadonlyArray<readonly [string, string]> = [
  ['KP', 'Korea, North'],
  ['KP', "Democratic People's Republic of Korea"],
  ['KP', "Korea, Democratic People's Republic of"],
  ['KR', 'Korea, South'],
  ['KR', 'Republic of Korea'],
  ['KR', 'Korea, Republic of'],
  ['MM', 'Burma'],
  ['MM', 'Myanmar'],
  ['CD', 'Congo, Democratic Republic of the'],
  ['CD', 'Democratic Republic of the Congo'],
  ['CG', 'Congo, Republic of the'],
  ['CG', 'Republic of the Congo'],
  ['CG', 'Congo'],
  ['IR', 'Iran (Islamic Republic of)'],
  ['IR', 'Islamic Republic of Iran'],
  ['SY', 'Syrian Arab Republic'],
  ['TZ', 'United Republic of Tanzania'],
  ['TZ', 'Tanzania, United Republic of'],
  ['RU', 'Russian Federation'],
  ['GB', 'United Kingdom of Great Britain and Northern Ireland'],
  ['GB', 'Great Britain'],
  ['US', 'United States of America'],
  ['PS', 'State of Palestine'],
  ['PS', 'Palestinian'],
  ['PS', 'Palestine'],
  ['PS', 'West Bank'],
  ['PS', 'Gaza'],
  ['PS', 'Region: Gaza'],
  ['TR', 'Turkey'],
  ['TR', 'Türkiye'],
  ['GM', 'The Gambia'],
  ['GM', 'Gambia, The'],
  ['BS', 'Bahamas, The'],
  ['BS', 'The Bahamas'],
  ['CI', "Cote d'Ivoire"],
  ['CI', 'Cote d Ivoire'],
  ['CI', 'Ivory Coast'],
  ['VG', 'Virgin Islands, British'],
  ['VI', 'Virgin Islands, U.S.'],
  ['CZ', 'Czech Republic'],
  ['MK', 'North Macedonia, The Republic of'],
  ['MK', 'Republic of North Macedonia'],
  ['MK', 'Macedonia'],
  ['MK', 'The former Yugoslav Republic of Macedonia'],
  ['CV', 'Cabo Verde'],
  ['LA', "Lao People's Democratic Republic"],
  ['MO', 'Macau'],
  ['MO', 'Macao'],
  ['VN', 'Viet Nam'],
  ['BN', 'Brunei Darussalam'],
  ['BO', 'Bolivia (Plurinational State of)'],
  ['VE', 'Venezuela (Bolivarian Republic of)'],
  ['MD', 'Republic of Moldova'],
  ['FM', 'Micronesia (Federated States of)'],
  ['FM', 'Micronesia, Federated States of'],
  ['VA', 'Holy See'],
  ['SZ', 'Swaziland'],
  ['TL', 'East Timor'],
  ['LY', 'Libyan Arab Jamahiriya'],
  ['HK', 'Hong Kong'],
  ['TW', 'Taiwan'],
  ['XK', 'Kosovo'],
  ['SS', 'South Sudan'],
  ['AE', 'UAE'],
]

const alpha2Set = new Set<string>()
const alpha3To2 = new Map<string, string>()
{
  const codes = ISO_PAIRS.split(' ')
  for (let i = 0; i + 1 < codes.length; i += 2) {
    const a2 = codes[i]!
    const a3 = codes[i + 1]!
    alpha2Set.add(a2)
    alpha3To2.set(a3, a2)
  }
}

let namesToAlpha2: Map<string, string> | undefined

/** Built on first use: common English names from ICU plus the aliases above. Pure data. */
function nameTable(): Map<string, string> {
  if (namesToAlpha2) return namesToAlpha2
  const table = new Map<string, string>()
  const display = new Intl.DisplayNames(['en'], { type: 'region' })
  for (const code of alpha2Set) {
    const name = display.of(code)
    if (name && name !== code) table.set(normaliseName(name), code)
  }
  for (const [code, name] of NAME_ALIASES) table.set(normaliseName(name), code)
  namesToAlpha2 = table
  return table
}

/**
 * Resolves a country as a list writes it (alpha-2, alpha-3 or English name) to ISO alpha-2.
 * Returns null for anything it cannot resolve with certainty.
 */
export function countryToAlpha2(value: string | null | undefined): string | null {
  if (!value) return null
  const trimmed = value.trim()
  if (trimmed.length === 2) {
    const upper = trimmed.toUpperCase()
    return alpha2Set.has(upper) ? upper : null
  }
  if (trimmed.length === 3 && /^[A-Za-z]{3}$/.test(trimmed)) {
    const fromAlpha3 = alpha3To2.get(trimmed.toUpperCase())
    if (fromAlpha3) return fromAlpha3
  }
  return nameTable().get(normaliseName(trimmed)) ?? null
}
