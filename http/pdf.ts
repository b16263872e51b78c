/**
 * Turns a printable HTML page into a PDF (report downloads). The HTTP adapter only asks for one;
 * the composition root decides the engine (headless Chromium at CHROMIUM_PATH) or gives none,
 * and then `?format=pdf` is a 503 that charges nothing.
 */
export interface PdfRenderer {
  render(html: string): Promise<Uint8Array>
  close(): Promise<void>
}
