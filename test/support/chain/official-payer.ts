import { x402Client } from '@x402/core/client'
import { encodePaymentSignatureHeader } from '@x402/core/http'
import type { PaymentRequired } from '@x402/core/types'
import { ExactEvmScheme } from '@x402/evm/exact/client'
import type { Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import type { LocalPaymentSetup } from './payment-fixtures.ts'

/** The official x402 v2 client for one payer, allowed to pay in the local TestUSDC. */
export function officialV2Client(setup: LocalPaymentSetup, key: Hex): x402Client {
  const client = new x402Client().register('eip155:84532', new ExactEvmScheme(privateKeyToAccount(key)))
  client.setSpendControls({ allowedAssets: [{ network: 'eip155:84532', asset: setup.usdc.address }] })
  return client
}

/**
 * The PaymentRequired object of an unpaid POST (read from the PAYMENT-REQUIRED header). Its
 * connection is closed, not left idle in the pool: signing payments for the challenge can keep
 * the event loop busy for seconds, long enough for a server to time the idle connection out
 * while the pool still offers it to the next POST (which fails, and a POST is not resent).
 */
export async function fetchChallenge(url: string, body: unknown = { text: 'x' }): Promise<PaymentRequired> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', connection: 'close' },
    body: JSON.stringify(body),
  })
  return JSON.parse(Buffer.from(response.headers.get('payment-required') ?? '', 'base64').toString('utf8'))
}

/** A PAYMENT-SIGNATURE header signed by the official v2 client for the challenge of `url`. */
export async function signPaymentHeader(
  setup: LocalPaymentSetup,
  url: string,
  key: Hex,
  body?: unknown,
): Promise<string> {
  const payload = await officialV2Client(setup, key).createPaymentPayload(await fetchChallenge(url, body))
  return encodePaymentSignatureHeader(payload)
}
