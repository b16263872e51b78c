export { type CompiledContract, compileTestUsdc } from './compile-test-usdc.ts'
export {
  type LocalAccount,
  type LocalChain,
  type LocalChainOptions,
  startLocalChain,
  type TestUsdc,
} from './local-chain.ts'
export { type LocalPaymentSetup, startLocalPaymentSetup } from './payment-fixtures.ts'
