// An MCP server's tools: listed on the Settings page once connected, and called in a chat turn
// whose model (fake-model.js) asks for the reference server's get-sum.
const { test, expect } = require('@playwright/test');

const { open, failOnConsoleErrors } = require('../support');

failOnConsoleErrors(test);

test('the Settings page connects an MCP server and lists its tools', async ({ page }) => {
  await open(page, '/settings');
  const card = page.locator('.mcp-server', { hasText: 'everything' });
  await expect(card).toContainText('stdio:');
  await expect(card.locator('.badge')).toHaveText(/not started|running/);
  await card.getByRole('button', { name: /Connect|Reconnect/ }).click();
  await expect(card.locator('.badge')).toHaveText('running');
  await expect(card.getByRole('button', { name: 'Reconnect' })).toBeEnabled();
  const sum = card.locator('.mcp-tools li', { hasText: 'get-sum' });
  await expect(sum.locator('code')).toHaveText('get-sum');
  await expect(sum.locator('.tool-description')).not.toBeEmpty();
  const mcpProfile = page.locator('.profile', { hasText: 'MCP servers' });
  await expect(mcpProfile).toContainText('everything');
  await expect(mcpProfile.locator('dd', { hasText: 'streamed' })).toBeVisible();
});

test('a chat turn calls an MCP tool and shows its result card', async ({ page }) => {
  await open(page, '/chat?app=mcp');
  const input = page.getByLabel('Message');
  await input.fill('Please sum 2 and 3');
  await input.press('Enter');
  const card = page.locator('.tool-card');
  await expect(card).toHaveCount(1);
  await expect(card.locator('.tool-name')).toHaveText('get-sum');
  await card.locator('summary').click();
  await expect(card).toContainText('"a": 2');
  await expect(card).toContainText('The sum of 2 and 3 is 5.');
  await expect(page.locator('.bubble-agent').last()).toContainText('The tool said: The sum of 2 and 3 is 5.');
});

test('a captured MCP case runs with its tools replayed, and the result says which calls were', async ({ page }) => {
  await open(page, '/chat?app=mcp');
  const input = page.getByLabel('Message');
  await input.fill('Please sum 4 and 5');
  await input.press('Enter');
  await expect(page.locator('.bubble-agent').last()).toContainText('The tool said: The sum of 4 and 5 is 9.');
  await page.getByLabel('Evalset', { exact: true }).selectOption({ label: '+ New evalset…' });
  await page.getByLabel('New evalset id').fill('mcp_replay');
  await page.getByLabel('Eval id', { exact: true }).fill('sum_four_five');
  await page.getByRole('button', { name: 'Add current session' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved as' })).toContainText('sum_four_five');

  await open(page, '/evalsets/mcp/mcp_replay');
  await page.getByLabel('Tools').selectOption({ label: 'Replay; unrecorded calls get an error' });
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  const row = page.locator('.results-table').getByRole('row', { name: /^sum_four_five/ });
  await expect(row).toContainText('✓ PASSED');
  await row.getByRole('button', { name: 'Show' }).click();
  const note = page.locator('.results-table .detail-row .replay-note');
  await expect(note).toContainText('get-sum');
  await expect(note.locator('.badge')).toHaveText('replayed');
});
