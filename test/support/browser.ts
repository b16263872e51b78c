import { existsSync } from 'node:fs'
import puppeteer, { type Browser, type Page } from 'puppeteer-core'

/** Where the Debian chromium package (installed by .ci/ensure-chromium.sh) or CHROMIUM_PATH puts it. */
export function chromiumPath(): string {
  const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser']
  const found = candidates.find((candidate): candidate is string => !!candidate && existsSync(candidate))
  if (!found) throw new Error('Chromium not found: run .ci/ensure-chromium.sh or set CHROMIUM_PATH')
  return found
}

/** What a page did while it loaded: console errors and failed requests, for "no errors" assertions. */
export interface PageErrors {
  console: string[]
  requests: string[]
  page: string[]
}

/**
 * Opens `url` in headless Chromium, waits until the network is idle, hands the page to `use`, and
 * always closes the browser. Console errors, uncaught page errors and failed requests are collected
 * into `errors` so a test can assert a page loaded cleanly.
 */
export async function withBrowserPage<T>(
  url: string,
  use: (page: Page, errors: PageErrors) => Promise<T>,
): Promise<T> {
  const browser: Browser = await puppeteer.launch({
    executablePath: chromiumPath(),
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
  })
  try {
    const page = await browser.newPage()
    const errors: PageErrors = { console: [], requests: [], page: [] }
    page.on('console', (message) => {
      if (message.type() === 'error') errors.console.push(message.text())
    })
    page.on('pageerror', (error) => errors.page.push(String(error)))
    page.on('requestfailed', (request) =>
      errors.requests.push(`${request.url()}: ${request.failure()?.errorText}`),
    )
    await page.goto(url, { waitUntil: 'networkidle0', timeout: 30_000 })
    return await use(page, errors)
  } finally {
    await browser.close()
  }
}
