// What the browser tests share: opening a page once it has hydrated, and failing a test whose
// page logged an error.
const { expect } = require('@playwright/test');

/** Opens a page and waits until the wasm has hydrated it (clicks before that do nothing). */
async function open(page, url) {
  await page.goto(url);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
}

/** Makes every test of the file fail when its page logs an error or throws. */
function failOnConsoleErrors(test) {
  let consoleErrors = [];
  test.beforeEach(async ({ page }) => {
    consoleErrors = [];
    page.on('console', (msg) => {
      if (msg.type() === 'error') consoleErrors.push(msg.text());
    });
    page.on('pageerror', (err) => consoleErrors.push(String(err)));
  });
  test.afterEach(async () => {
    expect(consoleErrors, 'the browser console has no errors').toEqual([]);
  });
}

/** Unfolds the Evaluate panel's metrics, folded under a line that names the picked ones. */
async function openRunSettings(page) {
  const settings = page.locator('details.run-settings');
  if (!(await settings.evaluate((details) => details.open))) await settings.locator('> summary').click();
  await expect(settings).toHaveAttribute('open', '');
}

module.exports = { open, failOnConsoleErrors, openRunSettings };
