export { BIDI_CONTROL, bidiControlProblem, neutraliseBidi } from './bidi.ts'
export { formatCbeNumber, isCbeChecksumValid, validateCbeNumber } from './cbe.ts'
export {
  countryForVatPrefix,
  EEA_NON_EU_STATES,
  EU_MEMBER_STATES,
  isCountryCode,
  isEeaMemberState,
  isEuMemberState,
  validateCountry,
  vatPrefixForCountry,
} from './country.ts'
export { type ParsedDomain, validateDomain } from './domain.ts'
export { ENTITY_NAME_MAX, ENTITY_NAME_MIN, validateEntityName } from './entity-name.ts'
export { ibanCountry, type ParsedIban, validateIban } from './iban.ts'
export { type CountryCode, ISO_3166_ALPHA2_CODES } from './iso-3166-alpha2.ts'
export { validateKvkNumber } from './kvk.ts'
export { invalid, stringSchemaFrom, type ValidationResult, type Validator, valid } from './result.ts'
export {
  cbeNumberSchema,
  countrySchema,
  domainSchema,
  entityNameSchema,
  evmAddressSchema,
  ibanSchema,
  kvkNumberSchema,
  solanaAddressSchema,
  vatNumberSchema,
  walletAddressSchema,
  walletChainSchema,
} from './schemas.ts'
export {
  type ParsedVatNumber,
  splitVatNumber,
  VAT_RULES,
  type VatPrefix,
  validateVatNumber,
} from './vat.ts'
export {
  DEFAULT_WALLET_CHAIN,
  type ParsedWallet,
  validateBitcoinAddress,
  validateEvmAddress,
  validateSolanaAddress,
  validateWalletAddress,
  validateWalletForChain,
  WALLET_CHAINS,
  WALLET_KIND_OF_CHAIN,
  type WalletChain,
  type WalletKind,
  walletChainOf,
} from './wallet.ts'
