import { mkdir, readFile, rm } from 'node:fs/promises'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { build, type Plugin } from 'esbuild'

const ROOT = fileURLToPath(new URL('../..', import.meta.url))

/**
 * The entry points tests start as child processes (servers to kill, CLIs, stdio MCP). Starting
 * one from its TypeScript sources loads about 1,500 modules (300 of this code base, the rest of
 * viem, zod, drizzle, undici…): about 4 s of CPU before it listens, most of it in Node's module
 * loader. The same code bundled in one file starts in about half that, and the fault suites start
 * such processes dozens of times per run.
 */
export const CHILD_ENTRIES = [
  'server/main.ts',
  'server/cli.ts',
  'server/mcp-stdio.ts',
  'server/lists-import.ts',
  'test/support/paid-server-main.ts',
  'test/support/monitoring/webhook-server-main.ts',
  'examples/webhook-receiver/serve.ts',
] as const

/**
 * A bundle runs from another folder than its sources, so every `import.meta.url` (and CommonJS
 * `__dirname` / `__filename`) is replaced by the value it has in its own source file: files read
 * beside the code (migrations, the methodology, name data, package.json) are found where they are.
 */
const keepFileLocations: Plugin = {
  name: 'keep-file-locations',
  setup(builder) {
    builder.onLoad({ filter: /\.(?:[cm]?js|ts)$/ }, async (args) => {
      const text = await readFile(args.path, 'utf8')
      if (!/import\.meta\.(?:url|dirname|filename)|__dirname|__filename/.test(text)) return undefined
      const file = args.path
      const contents = text
        .replaceAll('import.meta.url', JSON.stringify(pathToFileURL(file).href))
        .replaceAll('import.meta.dirname', JSON.stringify(path.dirname(file)))
        .replaceAll('import.meta.filename', JSON.stringify(file))
        .replace(/\b__dirname\b/g, JSON.stringify(path.dirname(file)))
        .replace(/\b__filename\b/g, JSON.stringify(file))
      return { contents, loader: file.endsWith('.ts') ? 'ts' : 'js' }
    })
  },
}

/**
 * Bundles the child entry points into `outDir` (one `.mjs` per entry, shared code in chunks), once
 * per test run, from the sources as they are. The folder sits under this repository's
 * `node_modules` so the packages left out of the bundle resolve as they would from the sources:
 * PGlite, which loads its WebAssembly and data files from its own package folder, and the browser
 * driver.
 */
export async function buildEntryBundles(outDir: string): Promise<void> {
  await rm(outDir, { recursive: true, force: true })
  await mkdir(outDir, { recursive: true })
  await build({
    absWorkingDir: ROOT,
    entryPoints: CHILD_ENTRIES.map((entry) => ({ in: entry, out: entry.replace(/\.ts$/, '') })),
    outdir: outDir,
    outExtension: { '.js': '.mjs' },
    bundle: true,
    splitting: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    external: ['@electric-sql/pglite', '@electric-sql/pglite/*', 'puppeteer-core'],
    // CommonJS packages inside an ES module bundle still call require() for Node's own modules.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
    plugins: [keepFileLocations],
    logLevel: 'error',
  })
}

/** Where a child entry's bundle is, given the bundle folder of this run. */
export function bundledEntry(outDir: string, entry: string): string | undefined {
  const normalised = path.relative(ROOT, path.resolve(ROOT, entry))
  return (CHILD_ENTRIES as readonly string[]).includes(normalised)
    ? path.join(outDir, `${normalised.replace(/\.ts$/, '')}.mjs`)
    : undefined
}
