// ADK's own web UI (adk-web, from the google-adk install beside `adk`) served by `evalstudio web`
// at /dev-ui/ over Evalstudio's data: it lists the folder's app, chats through ADK's api_server,
// adds the session to an evalset (which lands in the evalset file and in Evalstudio's own pages),
// and runs an eval whose result it shows; no request it makes fails. Its icons come from a font
// CDN, unreachable here.
const { test, expect } = require('@playwright/test');
const fs = require('fs');
const path = require('path');

const folderUrl = process.env.E2E_FOLDER_URL;
const smokeFile = path.join(process.env.E2E_AGENTS_DIR, 'weather', 'smoke.evalset.json');

test("ADK's web UI chats, adds the session to an evalset and runs it, on Evalstudio", async ({ page }) => {
  const failed = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  await page.goto(`${folderUrl}/dev-ui/?app=weather`);
  const input = page.getByPlaceholder('Type a message...');
  await input.fill('What is the weather in Oslo?');
  await input.press('Enter');
  await expect(page.getByText('get_weather("Oslo")')).toBeVisible();
  // The agent graph panel reads ADK's own server through Evalstudio.
  await expect(page.locator('svg').filter({ hasText: 'weather_agent' }).first()).toBeAttached();
  await expect(page.getByText('It is sunny and 21 °C in Oslo.')).toBeVisible();

  await page.getByText('Evals', { exact: true }).click();
  await page.getByText('smoke', { exact: true }).click();
  await page.getByText('From Current Session').click();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('What_is_the_weather_in_Oslo')).toBeVisible();
  const file = JSON.parse(fs.readFileSync(smokeFile, 'utf8'));
  expect(file.eval_cases.map((c) => c.eval_id)).toContain('What_is_the_weather_in_Oslo');

  // Evalstudio's own page shows the case ADK's UI added.
  const evalstudio = await page.context().newPage();
  await evalstudio.goto(`${folderUrl}/evalsets/weather/smoke`);
  await expect(evalstudio.getByRole('row', { name: /What_is_the_weather_in_Oslo/ })).toBeVisible();
  await evalstudio.close();

  await page.getByText('Run All').click();
  await page.getByRole('button', { name: /Start|Run/ }).last().click();
  await expect(page.getByText(/\d+ PASS/)).toBeVisible();
  expect(failed).toEqual([]);
});
