#!/usr/bin/env node
// The customer's command line: `validation-cli <group> <command> …` (npm bin). See client/cli.ts.
// tsx, not Node's own type stripping: Node strips no types in files under node_modules, where an
// installed copy of this package lives.
import { register } from 'tsx/esm/api'

register()
const { main } = await import('../../client/cli.ts')
process.exitCode = await main(process.argv.slice(2))
