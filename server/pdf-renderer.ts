import type { Browser } from 'puppeteer-core'
import type { PdfRenderer } from '../http/pdf.ts'

/**
 * Report PDFs printed by headless Chromium (puppeteer-core, no bundled browser): the same page a
 * browser shows, printed A4 with its backgrounds, so the PDF and the page never disagree. One
 * browser is started on the first PDF and reused (a new page per PDF); it closes with the service.
 * The page has no scripts and loads nothing, and JavaScript is off in the tab anyway.
 */
export function chromiumPdfRenderer(executablePath: string): PdfRenderer {
  let browser: Promise<Browser> | undefined
  const launch = async () => {
    const { default: puppeteer } = await import('puppeteer-core')
    return puppeteer.launch({
      executablePath,
      headless: true,
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    })
  }
  return {
    async render(html) {
      browser ??= launch().catch((error: unknown) => {
        browser = undefined
        throw error
      })
      const page = await (await browser).newPage()
      try {
        await page.setJavaScriptEnabled(false)
        await page.setContent(html, { waitUntil: 'load', timeout: 30_000 })
        return await page.pdf({
          format: 'A4',
          printBackground: true,
          margin: { top: '15mm', bottom: '15mm', left: '12mm', right: '12mm' },
        })
      } finally {
        await page.close().catch(() => {})
      }
    },
    async close() {
      const started = browser
      browser = undefined
      if (started) await (await started.catch(() => undefined))?.close()
    },
  }
}
