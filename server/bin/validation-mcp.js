#!/usr/bin/env node
// MCP over stdio: `validation-mcp` (npm bin). The key travels in SVC_API_KEY.
// tsx, not Node's own type stripping: Node strips no types in files under node_modules, where an
// installed copy of this package lives.
import { register } from 'tsx/esm/api'

register()
await import('../mcp-stdio.ts')
