#!/usr/bin/env node
// MCP over stdio: `validation-mcp` (npm bin). The key travels in SVC_API_KEY.
import { register } from 'tsx/esm/api'

register()
await import('../mcp-stdio.ts')
