// Everyday use: the chat follows its newest message, the Eval panel offers the evalset last
// used, the metric picker searches and refuses a threshold the metric cannot score, the run
// page's histogram colours a perfect score as passing, and a missing thing is a 404 page.
const { test, expect } = require('@playwright/test');
const { open, openRunSettings } = require('../support');

/** The page's console errors, except the 404 a test asks for on purpose. */
function consoleErrors(page) {
  const errors = [];
  page.on('console', (msg) => {
    if (msg.type() === 'error' && !msg.text().includes('404 (Not Found)')) errors.push(msg.text());
  });
  page.on('pageerror', (err) => errors.push(String(err)));
  return errors;
}

const weather = (id, city) => ({
  eval_id: id,
  conversation: [
    {
      invocation_id: 'i1',
      user_content: { role: 'user', parts: [{ text: "What's the weather in Paris?" }] },
      intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city } }] },
    },
  ],
});

test('the chat follows new replies while at the end, and offers a jump back once scrolled up', async ({ page }) => {
  const errors = consoleErrors(page);
  await page.setViewportSize({ width: 1400, height: 700 });
  await open(page, '/chat');
  // Nothing typed yet: no complaint about the eval id.
  await expect(page.locator('.eval-panel .field-error')).toHaveCount(0);
  const input = page.getByLabel('Message');
  for (let i = 1; i <= 5; i += 1) {
    await input.fill(`What's the weather in Paris? (${i})`);
    await input.press('Enter');
    await expect(page.locator('.turn-block:not(.live)')).toHaveCount(i);
  }
  await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(0);
  await expect(page.locator('.turn-block').last()).toBeInViewport();
  await expect(page.getByLabel('Message')).toBeInViewport();

  await page.evaluate(() => window.scrollTo(0, 0));
  const jump = page.getByRole('button', { name: '↓ Jump to latest' });
  await expect(jump).toBeVisible();
  await jump.click();
  await expect(page.locator('.turn-block').last()).toBeInViewport();
  await expect(jump).toBeHidden();
  expect(errors).toEqual([]);
});

test('the Eval panel offers the evalset this browser last saved into', async ({ page }) => {
  const errors = consoleErrors(page);
  await open(page, '/chat');
  const select = page.getByLabel('Evalset', { exact: true });
  await expect(select).toHaveValue('__new__');
  await page.getByLabel('Message').fill('Where is my order A1003?');
  await page.getByLabel('Message').press('Enter');
  await expect(page.locator('.turn-block:not(.live)')).toHaveCount(1);
  await page.getByLabel('New evalset id').fill('remembered_set');
  await page.getByRole('button', { name: 'Add current session' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved as' })).toContainText('remembered_set');

  await open(page, '/chat');
  await expect(page.getByLabel('Evalset', { exact: true })).toHaveValue('remembered_set');
  // An empty eval id is said only once the user tries.
  await page.getByLabel('Eval id').fill('a');
  await page.getByLabel('Eval id').fill('');
  await expect(page.locator('.eval-panel .field-error')).toContainText('eval');
  expect(errors).toEqual([]);
});

test('metrics are searched, and a threshold the metric cannot score is refused before and on the server', async ({ page, request }) => {
  const errors = consoleErrors(page);
  const set = { eval_set_id: 'picker_e2e', eval_cases: [weather('paris', 'Paris')] };
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  await open(page, '/evalsets/demo/picker_e2e');

  // The metrics are folded under one line that names the picked ones; Run evaluation comes first.
  await expect(page.locator('.run-settings > summary')).toContainText('tool_trajectory_avg_score ≥ 1, response_match_score ≥ 0.8');
  await expect(page.getByRole('checkbox', { name: 'tool_trajectory_avg_score' })).toBeHidden();
  await openRunSettings(page);
  // Run evaluation comes before the metrics.
  const run = page.getByRole('button', { name: 'Run evaluation' });
  const firstMetric = page.getByRole('checkbox', { name: 'tool_trajectory_avg_score' });
  expect((await run.boundingBox()).y).toBeLessThan((await firstMetric.boundingBox()).y);

  const search = page.getByRole('searchbox', { name: 'Search metrics' });
  // A search finds metrics in folded families too.
  await search.fill('hallucinations');
  await expect(page.getByRole('checkbox', { name: 'hallucinations_v1' })).toBeVisible();
  await search.fill('f1');
  await expect(page.getByRole('checkbox', { name: 'tool_trajectory_f1' })).toBeVisible();
  await expect(firstMetric).toBeHidden();
  await search.fill('');
  await expect(firstMetric).toBeVisible();

  const threshold = page.getByLabel('tool_trajectory_avg_score threshold');
  await threshold.fill('5');
  await expect(page.locator('.metric-table .field-error')).toContainText('Scores run from 0 to 1');
  await run.click();
  await expect(page.getByRole('alert')).toContainText('tool_trajectory_avg_score threshold: 5 is outside');
  await expect(page.locator('.runs-table')).toHaveCount(0);

  // The server refuses it as well, with a 400 naming the metric.
  const refused = await request.post('/apps/demo/eval_sets/picker_e2e/run_eval', {
    data: { evalMetrics: [{ metricName: 'response_match_score', threshold: 5 }] },
  });
  expect(refused.status()).toBe(400);
  expect((await refused.json()).error).toContain('response_match_score threshold: 5');
  expect(errors).toEqual([]);
});

test('a perfect score against a threshold of 1 is drawn as passing', async ({ page, request }) => {
  const errors = consoleErrors(page);
  const set = { eval_set_id: 'histogram_e2e', eval_cases: [weather('paris', 'Paris'), weather('lyon', 'Lyon')] };
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  await open(page, '/evalsets/demo/histogram_e2e');
  await openRunSettings(page);
  await page.getByRole('checkbox', { name: 'response_match_score' }).uncheck();
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.run-header')).toContainText('finished');
  await page.getByRole('link', { name: 'Run page' }).click();
  const chart = page.locator('svg.histogram').first();
  await expect(chart).toHaveAttribute('aria-label', /tool_trajectory_avg_score: 2 cases scored.*1 passed, 1 failed/);
  const perfect = chart.locator('rect.bar-pass', { has: page.locator('title', { hasText: 'exactly 1' }) });
  await expect(perfect.locator('title')).toHaveText('1 case scored exactly 1 (passing)');
  await expect(chart.locator('rect.bar-fail').first().locator('title')).toHaveText('1 case scored 0.00 to under 0.10 (failing)');
  expect(errors).toEqual([]);
});

test('a missing evalset, case or run is a 404 page with nothing to run', async ({ page }) => {
  for (const path of ['/evalsets/demo/no_such_set', '/evalsets/demo/no_such_set/case?eval_id=x', '/runs/demo/no_such_run']) {
    const response = await page.goto(path);
    expect(response.status(), path).toBe(404);
    await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible();
    await expect(page.getByRole('button', { name: 'Run evaluation' })).toHaveCount(0);
  }
});

test('runs read by name: a label given at start, renamed later, and a re-run of some cases marked', async ({ page, request }) => {
  const errors = consoleErrors(page);
  const set = { eval_set_id: 'names_e2e', eval_cases: [weather('paris', 'Paris'), weather('lyon', 'Lyon')] };
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  await open(page, '/evalsets/demo/names_e2e');
  await openRunSettings(page);
  await page.getByRole('checkbox', { name: 'response_match_score' }).uncheck();
  await page.getByLabel('Label').fill('baseline');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.runs-table')).toContainText('baseline');
  await expect(page.locator('.run-header')).toContainText('finished');

  // Re-run only the failed case: listed as a re-run of 1 case.
  await page.getByLabel('Label').fill('');
  await page.getByRole('combobox', { name: 'Cases', exact: true }).selectOption('failed');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.runs-table tbody tr')).toHaveCount(2);
  await expect(page.locator('.runs-table')).toContainText('re-run of 1 case');
  // The two whole runs' trend needs two whole runs; a re-run is left out of it.
  await expect(page.locator('.trend')).toHaveCount(0);

  // The run page shows the label, renames the run, and draws the cases by metric.
  await page.locator('.runs-table').getByRole('button', { name: 'baseline' }).click();
  await page.getByRole('link', { name: 'Run page' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('baseline');
  await page.getByLabel('Label').fill('first try');
  await page.getByRole('button', { name: 'Save label' }).click();
  await expect(page.getByRole('button', { name: 'Save label' })).toBeDisabled();
  await page.reload();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('first try');
  const heat = page.locator('svg.heat-map');
  await expect(heat).toHaveAttribute('aria-label', /2 cases by 1 metrics: 1 scores below their threshold/);
  await heat.locator('a', { has: page.locator('title', { hasText: 'lyon · tool_trajectory_avg_score' }) }).click();
  await expect(page).toHaveURL(/\/results\/.*eval_id=lyon/);
  expect(errors).toEqual([]);
});

test('the evalset shows its trend over whole runs, a point per run linking to it', async ({ page, request }) => {
  const errors = consoleErrors(page);
  const set = { eval_set_id: 'trend_e2e', eval_cases: [weather('paris', 'Paris'), weather('lyon', 'Lyon')] };
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  for (let i = 0; i < 2; i += 1) {
    const response = await request.post('/apps/demo/eval_sets/trend_e2e/run_eval', {
      data: { evalMetrics: [{ metricName: 'tool_trajectory_avg_score', threshold: 1 }] },
    });
    expect(response.ok()).toBeTruthy();
  }
  await open(page, '/evalsets/demo/trend_e2e');
  const trend = page.locator('.trend');
  await expect(trend).toContainText('Over the last 2 runs');
  const passRate = trend.locator('figure', { hasText: 'pass rate' }).locator('svg');
  await expect(passRate).toHaveAttribute('aria-label', 'pass rate over 2 runs, oldest first: 0.50, 0.50');
  const metric = trend.locator('figure', { hasText: 'tool_trajectory_avg_score' });
  await expect(metric.locator('line.threshold')).toHaveCount(1);
  await metric.locator('a').first().click();
  await expect(page).toHaveURL(/\/runs\/demo\/demo_trend_e2e_/);
  expect(errors).toEqual([]);
});

test('Show opens expected against actual inline, and an import can take another id', async ({ page, request }) => {
  const errors = consoleErrors(page);
  const set = { eval_set_id: 'inline_e2e', eval_cases: [weather('lyon', 'Lyon')] };
  await open(page, '/');
  await page.getByLabel('Import as').fill('inline_e2e');
  await page.getByTestId('import-file').setInputFiles({
    name: 'someone-elses-id.evalset.json',
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify({ ...set, eval_set_id: '0b7f6c8e-1d1e-4c3a-9d7e-2f1a3b4c5d6e' })),
  });
  await expect(page.getByRole('status')).toContainText('Imported 1 case into inline_e2e');

  await open(page, '/evalsets/demo/inline_e2e');
  await openRunSettings(page);
  await page.getByRole('checkbox', { name: 'response_match_score' }).uncheck();
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  const row = page.locator('.results-table').getByRole('row', { name: /lyon/ });
  await expect(row).toContainText('✗ FAILED');
  await row.getByRole('button', { name: 'Show' }).click();
  const detail = page.locator('.results-table .detail-row').first();
  await expect(detail.locator('.trajectory')).toBeVisible();
  await expect(detail).toContainText('Expected');
  await expect(detail).toContainText('city: "Lyon" (differs)');
  expect(errors).toEqual([]);
});
