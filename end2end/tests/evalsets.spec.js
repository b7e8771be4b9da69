// Import an ADK fixture through the UI, browse to a case and its tool calls, export the file.
const { test, expect } = require('@playwright/test');
const fs = require('fs');
const path = require('path');
const { open, failOnConsoleErrors } = require('../support');

const fixtures = path.resolve(__dirname, '../../tests/fixtures/adk');
const fixture = (name) => path.join(fixtures, name);

failOnConsoleErrors(test);

test('import a fixture, open a case, see its tool calls, export it', async ({ page }) => {
  await open(page, '/');
  await page.getByTestId('import-file').setInputFiles(fixture('simple_multi_turn_conversation.test.json'));
  await expect(page.getByRole('status')).toContainText('Imported 1 case into');

  const setId = '4412cca6-dfcd-43ab-bbc5-9155380c7137';
  await page.getByRole('link', { name: setId }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(setId);
  const row = page.getByRole('row', { name: /simple_multi_turn_conversation/ });
  await expect(row).toContainText('Turn off device_2 in the Bedroom.');
  // Cells: selection, eval id, turns, ...
  await expect(row.getByRole('cell').nth(2)).toHaveText('2');

  await row.getByRole('link', { name: /simple_multi_turn_conversation/ }).click();
  await expect(page.getByRole('heading', { name: 'Turn 1' })).toBeVisible();
  const firstCall = page.locator('.turn').first().locator('.tool-call').first();
  await expect(firstCall.locator('.tool-name')).toHaveText('set_device_info');
  await expect(firstCall.locator('.json')).toContainText('"device_id": "device_2"');
  await expect(firstCall.locator('.json')).toContainText('"status": "OFF"');
  await expect(page.locator('.turn').nth(1)).toContainText('I have set the device 2 status to on.');

  await page.getByRole('link', { name: setId }).click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export' }).click(),
  ]);
  expect(download.suggestedFilename()).toBe(`${setId}.evalset.json`);
  const exported = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  const original = JSON.parse(fs.readFileSync(fixture('simple_multi_turn_conversation.test.json'), 'utf8'));
  expect(exported.eval_set_id).toBe(original.eval_set_id);
  const call = exported.eval_cases[0].conversation[1].intermediate_data.tool_uses[0];
  expect(call).toEqual({ args: { location: 'Bedroom', status: 'ON', device_id: 'device_2' }, name: 'set_device_info' });
});

test('a bad file shows where it is wrong and changes nothing', async ({ page }) => {
  await open(page, '/');
  const before = await page.locator('tbody tr').count();
  await page.getByTestId('import-file').setInputFiles({
    name: 'broken.evalset.json',
    mimeType: 'application/json',
    buffer: Buffer.from('{\n  "eval_set_id": "broken",\n  "eval_cases": [\n    {"conversation": []}\n  ]\n}'),
  });
  const alert = page.getByRole('alert');
  await expect(alert).toContainText('broken.evalset.json was not imported');
  await expect(alert).toContainText('eval_cases[0]: missing field `eval_id` (line 4');
  await expect(page.locator('tbody tr')).toHaveCount(before);
});

test('importing an existing id asks before replacing', async ({ page }) => {
  await open(page, '/');
  await page.getByTestId('import-file').setInputFiles(fixture('trip_inquiry.test.json'));
  await expect(page.getByRole('status')).toContainText('Imported');
  await page.getByTestId('import-file').setInputFiles(fixture('trip_inquiry.test.json'));
  await expect(page.getByRole('alert')).toContainText('already exists');
  await page.getByRole('button', { name: 'Replace it' }).click();
  await expect(page.getByRole('status')).toContainText('replaced the old one');
});

test('create an evalset, then delete it after confirming', async ({ page }) => {
  await open(page, '/');
  await page.getByLabel('New evalset').fill('e2e_created');
  await page.getByRole('button', { name: 'Create' }).click();
  const row = page.getByRole('row', { name: /e2e_created/ });
  await expect(row).toBeVisible();
  await expect(row.getByRole('cell').nth(2)).toHaveText('0');

  await row.getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('Delete e2e_created?');
  await page.keyboard.press('Escape');
  await expect(dialog).toHaveCount(0);
  await expect(row).toBeVisible();

  await row.getByRole('button', { name: 'Delete' }).click();
  await page.getByRole('button', { name: 'Delete evalset' }).click();
  await expect(page.getByRole('row', { name: /e2e_created/ })).toHaveCount(0);
});

test('a running run is followed through its progress stream, without polling, and an opened row stays open', async ({ page }) => {
  // Two cases for the fake model: `quick` is answered at once, `slow` streams for a minute, so
  // the run stays in progress with `quick`'s row on screen.
  const setId = 'poll_e2e';
  const turn = (id, text, answer) => ({
    invocation_id: id,
    user_content: { role: 'user', parts: [{ text }] },
    final_response: { role: 'model', parts: [{ text: answer }] },
  });
  const evalset = {
    eval_set_id: setId,
    eval_cases: [
      { eval_id: 'quick', conversation: [turn('q1', 'hello', 'You said: hello')] },
      { eval_id: 'slow', conversation: [turn('s1', 'tell me something slow', 'word0')] },
    ],
  };
  await open(page, '/');
  await page.getByTestId('import-file').setInputFiles({
    name: `${setId}.evalset.json`,
    mimeType: 'application/json',
    buffer: Buffer.from(JSON.stringify(evalset)),
  });
  await expect(page.getByRole('status')).toContainText('Imported 2 cases into');

  await open(page, `/evalsets/demo/${setId}`);
  await page.getByLabel('Agent').selectOption('fake');
  await page.getByRole('button', { name: 'Run evaluation' }).click();

  const header = page.locator('.run-header');
  const results = page.locator('.results-table');
  const row = results.getByRole('row', { name: /quick/ });
  await expect(row).toBeVisible();
  await expect(header).toContainText('● running');
  await row.getByRole('button', { name: 'Show' }).click();
  const hide = row.getByRole('button', { name: 'Hide' });
  const detail = results.locator('.detail-row').first();
  await expect(hide).toHaveAttribute('aria-expanded', 'true');
  await expect(detail).toContainText('You said: hello');

  // The progress stream reports the counts; while nothing new is stored, the results are not
  // read again (no polling), and the open row stays open.
  await expect(page.locator('.live-progress')).toContainText('1 of 2 case runs · 1 passed');
  let reads = 0;
  page.on('request', (request) => {
    if (request.url().includes('get_eval_run')) reads += 1;
  });
  await page.waitForTimeout(2000);
  expect(reads).toBe(0);
  await expect(hide).toHaveAttribute('aria-expanded', 'true');
  await expect(detail).toBeVisible();
  await expect(header).toContainText('● running');

  // Closing still works, and the slow case is not left streaming.
  await hide.click();
  await expect(row.getByRole('button', { name: 'Show' })).toHaveAttribute('aria-expanded', 'false');
  await expect(detail).toBeHidden();
  await header.getByRole('button', { name: 'Cancel run' }).click();
  await expect(header).toContainText('■ cancelled');
});

test('the case list filters and sorts, and keeps both in the URL', async ({ page }) => {
  await open(page, '/');
  await page.getByTestId('import-file').setInputFiles(fixture('live_non_blocking_tool_agent.evalset.json'));
  await expect(page.getByRole('status')).toContainText('Imported 2 cases into');
  await page.getByRole('link', { name: 'live_non_blocking_tool_agent' }).click();
  const rows = page.locator('.data-table tbody tr');
  await expect(rows).toHaveCount(2);
  await expect(rows.first()).toContainText('background_task_scenario');

  await page.getByLabel('Sort').selectOption('eval_id');
  await page.getByLabel('Descending').check();
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page).toHaveURL(/sort=eval_id/);
  await expect(rows.first()).toContainText('background_task_scripted');

  await page.getByRole('searchbox', { name: 'Filter' }).fill('SCENARIO');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('background_task_scenario');

  await page.getByRole('searchbox', { name: 'Filter' }).fill('no such case');
  await page.getByRole('button', { name: 'Apply' }).click();
  await expect(page.getByRole('heading', { name: 'No case matches' })).toBeVisible();
  await page.reload();
  await expect(page.getByRole('searchbox', { name: 'Filter' })).toHaveValue('no such case');
});
