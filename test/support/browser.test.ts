import { expect, it } from 'vitest'
import { withBrowserPage } from './browser.ts'

it('opens a page in headless Chromium and reports its console errors', async () => {
  const title = await withBrowserPage('data:text/html,<title>hi</title><p>x</p>', async (page, errors) => {
    expect(errors.console).toEqual([])
    return page.title()
  })
  expect(title).toBe('hi')
})
