// A server with sign-in: log in, edit a case, see your name in its history, log out.
const { test, expect } = require('@playwright/test');
const { open, failOnConsoleErrors } = require('../support');

failOnConsoleErrors(test);

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

test('log in, edit a case, see your name in its history, log out', async ({ page }) => {
  // Signed out, a page sends the browser to log in, and back after.
  await page.goto(`${base}/settings`);
  await expect(page).toHaveURL(`${base}/login?next=/settings`);
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await page.getByLabel('User name').fill('edna');
  await page.getByLabel('Password').fill('not it');
  await page.getByRole('button', { name: 'Sign in' }).click();
  await expect(page.getByRole('alert')).toContainText('wrong user name or password');
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
