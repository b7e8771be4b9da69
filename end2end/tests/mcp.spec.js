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
  await expect(page.locator('.profile', { hasText: 'MCP servers' })).toContainText('everything');
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
