// A server with sign-in: log in, edit a case, see your name in its history, log out.
const { test, expect } = require('@playwright/test');
const { open } = require('../support');

// As support's failOnConsoleErrors, but for the one 401 the wrong password is answered with.
let consoleErrors = [];
test.beforeEach(async ({ page }) => {
  consoleErrors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error') consoleErrors.push(msg.text());
  });
  page.on('pageerror', (err) => consoleErrors.push(String(err)));
});
const wrongPassword = 'Failed to load resource: the server responded with a status of 401 (Unauthorized)';
test.afterEach(async () => {
  expect(consoleErrors.filter((e) => e !== wrongPassword), 'no other console errors').toEqual([]);
});

const base = process.env.E2E_AUTH_URL;
const evalset = {
  eval_set_id: 'team',
  eval_cases: [{
    eval_id: 'paris',
    conversation: [{
      invocation_id: 'i1',
      user_content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      final_response: { role: 'model', parts: [{ text: 'Sunny.' }] },
    }],
  }],
};

/** Signs in on the login page (the browser is sent there from `path`). */
async function logIn(page, name, path) {
  await page.goto(`${base}${path}`);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await page.getByLabel('User name').fill(name);
  await page.getByLabel('Password').fill('e2e password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${base}${path}`);
}

test('log in, edit a case, see your name in its history, log out', async ({ page }) => {
  // Signed out, a page sends the browser to log in, and back after.
  await page.goto(`${base}/settings`);
  await expect(page).toHaveURL(`${base}/login?next=/settings`);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await page.getByLabel('User name').fill('edna');
  await page.getByLabel('Password').fill('not it');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('wrong user name or password');
  expect(consoleErrors).toEqual([wrongPassword]);
  await page.getByLabel('Password').fill('e2e password');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page).toHaveURL(`${base}/settings`);
  const account = page.locator('.account');
  await expect(account).toContainText('edna');
  await expect(account).toContainText('editor');
  await expect(page.getByText('An admin manages users and API tokens; your role is editor.')).toBeVisible();

  // The browser's session does what an editor may: import (its own page's Origin), then edit.
  const imported = await page.request.post(`${base}/apps/demo/import`, {
    data: JSON.stringify(evalset),
    headers: { Origin: base },
  });
  expect(imported.status()).toBe(201);
  await open(page, `${base}/evalsets/demo/team/edit?eval_id=paris`);
  await page.getByLabel('Expected final response').fill('Rainy.');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('.save-state')).toHaveText('Saved · version 2');

  await open(page, `${base}/evalsets/demo/team/case?eval_id=paris`);
  const rows = page.locator('.history tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.first().locator('.saved-by')).toHaveText('edna');

  await page.getByRole('button', { name: 'Log out' }).click();
  await expect(page).toHaveURL(`${base}/login`);
  await page.goto(`${base}/`);
  await expect(page).toHaveURL(`${base}/login?next=/`);
});

test('an admin makes a token in Settings, shown once, and revokes it', async ({ page, playwright }) => {
  await logIn(page, 'ada', '/settings');
  await page.getByLabel('Name', { exact: true }).fill('e2e-script');
  await page.getByLabel('For user').selectOption('edna');
  await page.getByRole('button', { name: 'Create token' }).click();
  const secret = await page.locator('.token-secret').textContent();
  expect(secret).toMatch(/^est_[0-9a-f]{64}$/);
  const row = page.locator('.tokens tbody tr', { hasText: 'e2e-script' });
  await expect(row).toContainText('edna');

  const script = await playwright.request.newContext({ extraHTTPHeaders: { Authorization: `Bearer ${secret}` } });
  expect((await script.get(`${base}/apps/demo/eval_sets`)).status()).toBe(200);
  await row.getByRole('button', { name: 'Revoke' }).click();
  await expect(row).toHaveCount(0);
  expect((await script.get(`${base}/apps/demo/eval_sets`)).status()).toBe(401);
  await script.dispose();
});
