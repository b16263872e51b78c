import { z } from 'zod'
import { validateCbeNumber } from './cbe.ts'
import { validateCountry } from './country.ts'
import { validateDomain } from './domain.ts'
import { ENTITY_NAME_MAX, ENTITY_NAME_MIN, validateEntityName } from './entity-name.ts'
import { validateIban } from './iban.ts'
import { validateKvkNumber } from './kvk.ts'
import { stringSchemaFrom } from './result.ts'
import { validateVatNumber } from './vat.ts'
import { validateEvmAddress, validateSolanaAddress, validateWalletAddress, WALLET_CHAINS } from './wallet.ts'

/*
 * Field schemas for operation inputs (spec: "Validation rules behind 422"). Each refines a plain
 * string with the validator of the same rule, so a failing field yields one issue whose message
 * is the validator's. They do not transform: run the validator to get the normalised value.
 */

export const countrySchema = stringSchemaFrom(
  validateCountry,
  'ISO 3166-1 alpha-2 country code, uppercase (e.g. NL)',
  {
    pattern: '^[A-Z]{2}$',
    examples: ['NL', 'BE'],
  },
)

export const entityNameSchema = stringSchemaFrom(
  validateEntityName,
  'Legal or trading name, 2-255 characters',
  {
    minLength: ENTITY_NAME_MIN,
    maxLength: ENTITY_NAME_MAX,
    examples: ['Koninklijke Philips N.V.'],
  },
)

export const kvkNumberSchema = stringSchemaFrom(
  validateKvkNumber,
  'Dutch KVK number: exactly 8 digits, no spaces, dashes or prefix',
  {
    pattern: '^[0-9]{8}$',
    examples: ['12345678'],
  },
)

export const cbeNumberSchema = stringSchemaFrom(
  validateCbeNumber,
  'Belgian enterprise number: 0XXX.XXX.XXX or 10 digits (mod-97 checked)',
  {
    pattern: '^[01][0-9]{3}\\.?[0-9]{3}\\.?[0-9]{3}$',
    examples: ['0202.239.951', '0202239951'],
  },
)

export const ibanSchema = stringSchemaFrom(
  validateIban,
  'IBAN in electronic format, no spaces: a country of the SWIFT IBAN registry with its length and account format, mod-97 and national check digits verified; territories that use the French or Finnish IBAN (RE, GP, AX, …) use FR or FI',
  {
    pattern: '^[A-Za-z]{2}[0-9]{2}[A-Za-z0-9]{11,30}$',
    examples: ['NL91ABNA0417164300'],
  },
)

export const vatNumberSchema = stringSchemaFrom(
  validateVatNumber,
  'EU VAT number with its VIES country prefix (EL for Greece, XI for Northern Ireland); the national format and check digit are verified for every prefix',
  {
    examples: ['NL004495445B01', 'BE0202239951'],
  },
)

export const walletAddressSchema = stringSchemaFrom(
  validateWalletAddress,
  'Wallet address: EVM (0x + 40 hex), Solana (base58, 32-44 characters) or Bitcoin',
  {
    examples: ['0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'],
  },
)

export const evmAddressSchema = stringSchemaFrom(
  validateEvmAddress,
  'EVM address: 0x + 40 hex (mixed case must be a valid EIP-55 checksum)',
  {
    pattern: '^0x[0-9a-fA-F]{40}$',
    examples: ['0xd8dA6BF26964aF9D7eEd9e03E53415D37aA96045'],
  },
)

export const solanaAddressSchema = stringSchemaFrom(
  validateSolanaAddress,
  'Solana address: base58, 32-44 characters, a 32-byte public key',
  {
    pattern: '^[1-9A-HJ-NP-Za-km-z]{32,44}$',
    examples: ['So11111111111111111111111111111111111111112'],
  },
)

export const walletChainSchema = z
  .enum(WALLET_CHAINS)
  .describe('Chain of wallet_address: eth, base, polygon, arbitrum, btc or sol (defaults to eth)')

export const domainSchema = stringSchemaFrom(
  validateDomain,
  'Bare hostname without protocol, port, path or query (e.g. example.com)',
  {
    maxLength: 253,
    examples: ['philips.com'],
  },
)
