// Folder mode (`evalstudio web AGENTS_DIR`): chat with the folder's ADK agent through ADK's own
// api_server, Add current session, and find the case in the evalset file on disk; a change made
// to the file on disk shows in the open page.
const { test, expect } = require('@playwright/test');
const fs = require('fs');
const path = require('path');

const { open, failOnConsoleErrors } = require('../support');

failOnConsoleErrors(test);

const folderUrl = process.env.E2E_FOLDER_URL;
const smokeFile = path.join(process.env.E2E_AGENTS_DIR, 'weather', 'smoke.evalset.json');

test('the header names the folder, and Add current session writes the evalset file', async ({ page }) => {
  await open(page, `${folderUrl}/chat?app=weather`);
  await expect(page.locator('.folder-badge')).toContainText('evalstudio-e2e-agents');
  const input = page.getByLabel('Message');
  await input.fill('What is the weather in Rome?');
  await input.press('Enter');
  await expect(page.locator('.tool-card .tool-name')).toHaveText('get_weather');
  await expect(page.locator('.bubble-agent').last()).toContainText('21 °C in Rome');

  await page.getByLabel('Evalset', { exact: true }).selectOption('smoke');
  await page.getByLabel('Eval id', { exact: true }).fill('rome');
  await page.getByRole('button', { name: 'Add current session' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved as' })).toContainText('rome');

  // The new case comes last (ADK's UI may have added one before, in its own test).
  const file = JSON.parse(fs.readFileSync(smokeFile, 'utf8'));
  const rome = file.eval_cases[file.eval_cases.length - 1];
  expect(file.eval_cases[0].eval_id).toBe('paris');
  expect(rome.eval_id).toBe('rome');
  expect(rome.conversation[0].intermediate_data.tool_uses[0].args).toEqual({ city: 'Rome' });
});

test('a change to the file on disk shows in the open evalset page', async ({ page }) => {
  await open(page, `${folderUrl}/evalsets/weather/smoke`);
  await expect(page.locator('.file-line')).toContainText('weather/smoke.evalset.json');
  const row = page.getByRole('row', { name: /Select paris/ });
  await expect(row).toContainText('What is the weather in Paris?');

  const text = fs.readFileSync(smokeFile, 'utf8');
  fs.writeFileSync(smokeFile, text.replace('What is the weather in Paris?', 'Paris, weather please?'));
  await expect(row).toContainText('Paris, weather please?');

  fs.writeFileSync(smokeFile, text.replace('"eval_cases": [', '"eval_cases": [[['));
  await expect(page.getByRole('alert')).toContainText('weather/smoke.evalset.json:');
  await expect(page.getByRole('alert')).toContainText('does not parse');
  fs.writeFileSync(smokeFile, text);
  await expect(page.getByRole('alert')).toHaveCount(0);
  await expect(row).toContainText('What is the weather in Paris?');
});
