// The case list shows each case's outcome in the latest run, filters the failed ones, and the
// run form can run only those.
const { test, expect } = require('@playwright/test');
const { open, failOnConsoleErrors, openRunSettings } = require('../support');

failOnConsoleErrors(test);

const turn = (city) => ({
  invocation_id: 'i1',
  user_content: { role: 'user', parts: [{ text: "What's the weather in Paris?" }] },
  intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city } }] },
});

test('statuses and metric chips appear as a run goes; failed cases filter and re-run alone', async ({ page, request }) => {
  const set = {
    eval_set_id: 'status_e2e',
    eval_cases: [
      { eval_id: 'paris', conversation: [turn('Paris')] },
      { eval_id: 'lyon_wrong', conversation: [turn('Lyon')] },
    ],
  };
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  await open(page, '/evalsets/demo/status_e2e');
  const rows = page.locator('.case-table tbody tr');
  await expect(rows.first().locator('.status-cell')).toContainText('not run');

  await openRunSettings(page);
  await page.getByRole('checkbox', { name: 'response_match_score' }).uncheck();
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  const paris = page.getByRole('row', { name: /Select paris/ });
  const lyon = page.getByRole('row', { name: /Select lyon_wrong/ });
  await expect(paris.locator('.status-cell')).toContainText('✓ PASSED');
  await expect(lyon.locator('.status-cell')).toContainText('✗ FAILED');
  await expect(lyon.locator('.chip.failed')).toContainText('tool_trajectory 0.000');
  await expect(lyon.locator('.chip.failed')).toHaveAttribute('title', /against a threshold of 1/);
  await expect(page.locator('.last-run')).toContainText('1 passed, 1 failed');

  // The failed filter keeps only the failing case, and survives in the URL.
  await page.getByRole('checkbox', { name: 'Failed in the latest run' }).check();
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/failed=1/);
  // Once hydrated, the filter navigates in the page: what was set in the run form stays.
  await expect(rows).toHaveCount(1);
  await expect(page.getByRole('checkbox', { name: 'response_match_score' })).not.toBeChecked();
  await expect(rows.first()).toContainText('lyon_wrong');

  // Run only the failed cases; the choice is remembered for this evalset.
  await page.getByRole('combobox', { name: 'Cases', exact: true }).selectOption('failed');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.runs-table tbody tr')).toHaveCount(2);
  await expect(page.locator('.last-run')).toContainText('0 passed, 1 failed of 1');
  await page.reload();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.getByRole('combobox', { name: 'Cases', exact: true })).toHaveValue('failed');
});
