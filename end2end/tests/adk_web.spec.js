// ADK's own web UI (adk-web, from the google-adk install beside `adk`) served at /dev-ui/ over
// Evalstudio's data, by `evalstudio serve --adk-web-ui` on the demo agent and by `evalstudio web`
// on an agents folder: it lists the app, chats, draws the agent's graph, adds the session to an
// evalset (which Evalstudio's own pages then show), and runs an eval whose result and session it
// shows; no request it makes fails. Its icons come from a font CDN, unreachable here.
const { test, expect } = require('@playwright/test');
const fs = require('fs');
const path = require('path');

const folderUrl = process.env.E2E_FOLDER_URL;
const smokeFile = path.join(process.env.E2E_AGENTS_DIR, 'weather', 'smoke.evalset.json');

/** Fails the test on any 4xx or 5xx answer adk-web gets, and on anything the server's
 * Content-Security-Policy for /dev-ui/ blocks (but the font CDN, which is allowed and
 * unreachable here). */
function watchFailures(page) {
  const failed = [];
  page.on('response', (response) => {
    if (response.status() >= 400) failed.push(`${response.status()} ${response.url()}`);
  });
  page.on('console', (msg) => {
    if (msg.text().includes('Content Security Policy')) failed.push(msg.text());
  });
  return failed;
}

test("ADK's web UI runs on the demo agent: chat, graph, Add current session, a run and its session", async ({ page }) => {
  const failed = watchFailures(page);
  const created = await page.request.post('/dev/apps/demo/eval-sets', {
    // As adk-web sends it when asked for a set whose tools replay.
    data: { eval_set: { eval_set_id: 'from_adk_web', eval_cases: [], tool_execution_mode: 'replay' } },
  });
  expect(created.status()).toBe(200);
  await page.goto('/dev-ui/');
  await page.getByRole('button', { name: 'Select an app' }).click();
  // Every profile is an app there.
  for (const app of ['fake', 'mcp']) await expect(page.getByRole('button', { name: app, exact: true })).toBeVisible();
  await page.getByRole('button', { name: 'demo', exact: true }).click();
  const input = page.getByPlaceholder('Type a message...');
  await input.fill("What's the weather in Paris?");
  await input.press('Enter');
  await expect(page.getByText('get_weather("Paris")')).toBeVisible();
  await expect(page.getByText('It is 18 °C and cloudy in Paris.')).toBeVisible();
  // The graph is drawn from the demo profile: the agent and its tools.
  await expect(page.locator('svg').filter({ hasText: 'get_weather' }).first()).toBeAttached();

  await page.getByText('Evals', { exact: true }).click();
  await page.getByText('from_adk_web', { exact: true }).click();
  await page.getByText('From Current Session').click();
  await page.getByRole('button', { name: 'Create' }).click();
  await expect(page.getByText('Whats_the_weather_in_Paris')).toBeVisible();

  const evalstudio = await page.context().newPage();
  await evalstudio.goto('/evalsets/demo/from_adk_web');
  await expect(evalstudio.getByRole('row', { name: /Whats_the_weather_in_Paris/ })).toBeVisible();
  // The set's tool mode is what Evalstudio's run form starts from.
  await expect(evalstudio.getByLabel('Tools')).toHaveValue('replay');
  // Closed, so ADK's page is the front tab again (a background tab's dialog may never settle).
  await evalstudio.close();

  await page.getByText('Run All').click();
  // The Run dialog's own button: a button of the page behind its backdrop matches too.
  await page.getByRole('dialog').getByRole('button', { name: /Start|Run/ }).last().click();
  await expect(page.getByText('1 PASS')).toBeVisible();
  // The run's result view reads the session the eval ran in.
  await expect(page.getByText('PASS', { exact: true }).first()).toBeVisible();
  await expect(page.getByText('It is 18 °C and cloudy in Paris.')).toBeVisible();

  // The same run in Evalstudio's runs list.
  const runs = await page.context().newPage();
  await runs.goto('/runs');
  await expect(runs.getByRole('link', { name: /from_adk_web/ }).first()).toBeVisible();
  await runs.close();
  expect(failed).toEqual([]);
});

test("ADK's web UI chats, adds the session to an evalset and runs it, on Evalstudio", async ({ page }) => {
  const failed = watchFailures(page);
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
  // The Run dialog's own button: a button of the page behind its backdrop matches too.
  await page.getByRole('dialog').getByRole('button', { name: /Start|Run/ }).last().click();
  await expect(page.getByText(/\d+ PASS/)).toBeVisible();
  expect(failed).toEqual([]);
});
