import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { Hono } from 'hono'
import type { AppEnv } from '../env.ts'
import { problemResponse } from '../problem.ts'

/** The swagger-ui-dist files /docs serves, from node_modules (no CDN), with their content types. */
const ASSETS: Readonly<Record<string, string>> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
  'favicon-16x16.png': 'image/png',
}

/** Starts Swagger UI on /openapi.json (a file of its own, so a strict CSP without inline scripts works). */
const INITIALIZER = `window.addEventListener('load', function () {
  window.ui = SwaggerUIBundle({
    url: '../openapi.json',
    dom_id: '#swagger-ui',
    deepLinking: true,
    docExpansion: 'list',
    defaultModelsExpandDepth: 0,
    displayOperationId: true,
    tryItOutEnabled: false,
    presets: [SwaggerUIBundle.presets.apis],
    layout: 'BaseLayout',
  })
})
`

const PAGE = `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>API reference: Entity, Lead and Wallet Validation Service</title>
    <link rel="stylesheet" type="text/css" href="docs/swagger-ui.css">
    <link rel="icon" type="image/png" href="docs/favicon-32x32.png" sizes="32x32">
    <link rel="icon" type="image/png" href="docs/favicon-16x16.png" sizes="16x16">
  </head>
  <body>
    <div id="swagger-ui"></div>
    <script src="docs/swagger-ui-bundle.js" charset="UTF-8"></script>
    <script src="docs/docs-init.js" charset="UTF-8"></script>
  </body>
</html>
`

/** The folder of the installed swagger-ui-dist package. */
function swaggerUiDirectory(): string {
  const require = createRequire(import.meta.url)
  return path.dirname(require.resolve('swagger-ui-dist/package.json'))
}

/**
 * `/docs`: the interactive API reference, Swagger UI (swagger-ui-dist, served from node_modules)
 * rendering `/openapi.json`. Public. Relative asset URLs keep it working behind a path prefix.
 */
export function docsRoutes() {
  const directory = swaggerUiDirectory()
  const cache = new Map<string, Buffer>()
  const read = (name: string) => {
    let content = cache.get(name)
    if (!content) {
      content = readFileSync(path.join(directory, name))
      cache.set(name, content)
    }
    return content
  }
  return new Hono<AppEnv>()
    .get('/docs', (c) => c.html(PAGE))
    .get('/docs/:asset', (c) => {
      const asset = c.req.param('asset')
      if (asset === 'docs-init.js') {
        return c.body(INITIALIZER, 200, { 'Content-Type': 'text/javascript; charset=utf-8' })
      }
      const type = ASSETS[asset]
      if (!type) return problemResponse(c, 404, `no documentation asset ${asset}`)
      return c.body(new Uint8Array(read(asset)), 200, {
        'Content-Type': type,
        'Cache-Control': 'public, max-age=86400',
      })
    })
}
