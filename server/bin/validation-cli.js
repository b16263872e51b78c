#!/usr/bin/env node
// The customer's command line: `validation-cli <group> <command> …` (npm bin). See client/cli.ts.
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../../client/cli.ts')
process.exitCode = await main(process.argv.slice(2))
