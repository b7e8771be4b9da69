// A case's result: a broken expectation shows as an aligned diff with the differing argument
// marked; accepting the actual and re-running makes it pass.
const { test, expect } = require('@playwright/test');
const { open, failOnConsoleErrors } = require('../support');

failOnConsoleErrors(test);

test('a failing case shows the differing arg; accept the actual, re-run, and it passes', async ({ page, request }) => {
  await open(page, '/chat');
  await page.getByLabel('Message').fill("What's the weather in Paris?");
  await page.getByLabel('Message').press('Enter');
  await expect(page).toHaveURL(/\/chat\?app=demo&session=/);
  await expect(page.locator('.tool-card')).toHaveCount(1);
  await expect(page.locator('.bubble-agent').last()).toContainText('Paris');
  await page.getByLabel('Evalset', { exact: true }).selectOption({ label: '+ New evalset…' });
  await page.getByLabel('New evalset id').fill('result_e2e');
  await page.getByLabel('Eval id', { exact: true }).fill('paris');
  await page.getByRole('button', { name: 'Add current session' }).click();
  await page.getByRole('link', { name: 'Open in editor' }).click();

  // Break the expectation in the editor: the agent will still ask for Paris.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Edit paris');
  await page.locator('.call-row').first().getByLabel('Args (JSON object)').fill('{"city": "Lyon"}');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('.save-state')).toHaveText('Saved · version 2');

  await open(page, '/evalsets/demo/result_e2e');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  const row = page.locator('.results-table').getByRole('row', { name: /paris/ });
  await expect(row).toContainText('✗ FAILED');
  await row.getByRole('link', { name: 'paris' }).click();

  await expect(page.getByRole('heading', { level: 1 })).toHaveText('paris');
  // The turn's latency and the tokens the demo agent reported.
  await expect(page.locator('.turn-result-card .row-head')).toContainText(/\d s.* · \d+ tokens \(\d+ in, \d+ out\)/);
  const trajectory = page.locator('.trajectory');
  await expect(trajectory.locator('tr.call-differs')).toHaveCount(1);
  const changed = trajectory.locator('.arg-changed[data-path="city"]');
  await expect(changed).toHaveCount(2);
  await expect(changed.first()).toContainText('"Lyon"');
  await expect(changed.last()).toContainText('"Paris"');

  await page.getByRole('button', { name: 'Accept actual as expected' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Accepted' })).toBeVisible();
  const stored = await (await request.get('/apps/demo/eval_sets/result_e2e/evals/paris')).json();
  expect(stored.version).toBe(3);
  expect(stored.conversation[0].intermediate_data.tool_uses[0].args.city).toBe('Paris');

  const before = page.url();
  await page.getByRole('button', { name: 'Re-run this case' }).click();
  await expect(page).not.toHaveURL(before);
  await expect(page.locator('.page-header')).toContainText('✓ PASSED');
  await expect(page.locator('.trajectory tr.call-same')).toHaveCount(1);

  // The Runs page lists both runs; the newest has a score distribution (one bar per tenth) and
  // compares with the first, where the case improved.
  await open(page, '/runs?app=demo&eval_set_id=result_e2e');
  const runs = page.locator('.runs-list tbody tr');
  await expect(runs).toHaveCount(2);
  await runs.first().getByRole('link').first().click();
  await expect(page.locator('.run-pass-rate')).toHaveText('1 of 1 passed (100%)');
  const histogram = page.locator('.metrics-stats svg.histogram').first();
  // Ten tenths, and a bar of its own for a perfect score against a threshold of 1.
  await expect(histogram.locator('rect')).toHaveCount(11);
  await page.locator('.compare-links a').first().click();
  const compared = page.locator('.compare-cases tbody tr');
  await expect(compared).toHaveCount(1);
  await expect(compared.first()).toContainText('improved');
  await expect(page.locator('.change-filters')).toContainText('improved (1)');
  await expect(page.locator('.metric-deltas')).toContainText('+1.000');

  // The case page draws the case across its runs: failed, then passed.
  await open(page, '/evalsets/demo/result_e2e/case?eval_id=paris');
  const across = page.locator('.across-runs');
  await expect(across.locator('.run-history li')).toHaveCount(2);
  const spark = across.locator('tr', { hasText: 'tool_trajectory_avg_score' }).locator('svg.sparkline');
  await expect(spark.locator('circle.dot-fail')).toHaveCount(1);
  await expect(spark.locator('circle.dot-pass')).toHaveCount(1);
});
