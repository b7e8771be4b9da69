// The case page's actions: duplicate, delete and undo, and the history with restore.
const { test, expect } = require('@playwright/test');
const { open, failOnConsoleErrors } = require('../support');

failOnConsoleErrors(test);

const evalset = (id) => ({
  eval_set_id: id,
  eval_cases: [{
    eval_id: 'paris',
    conversation: [{
      invocation_id: 'i1',
      user_content: { role: 'user', parts: [{ text: 'Weather in Paris?' }] },
      final_response: { role: 'model', parts: [{ text: 'Sunny.' }] },
      intermediate_data: { tool_uses: [{ name: 'get_weather', args: { city: 'Paris' } }] },
    }],
  }],
});

async function importSet(request, id) {
  const response = await request.post(`/apps/demo/import`, { data: JSON.stringify(evalset(id)) });
  expect(response.status()).toBe(201);
}

test('duplicate a case, delete the copy and undo the delete', async ({ page, request }) => {
  await importSet(request, 'case_actions');
  await open(page, '/evalsets/demo/case_actions/case?eval_id=paris');
  await page.getByRole('button', { name: 'Duplicate' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('paris_copy');
  await expect(page).toHaveURL(/eval_id=paris_copy/);

  await page.getByRole('button', { name: 'Delete', exact: true }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('Delete this case?');
  await dialog.getByRole('button', { name: 'Delete case' }).click();
  await expect(page).toHaveURL(/\/evalsets\/demo\/case_actions\?deleted=paris_copy/);
  const rows = page.locator('.data-table tbody tr');
  await expect(rows).toHaveCount(1);
  await expect(page.getByRole('status')).toContainText('Deleted paris_copy');

  await page.getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByRole('status')).toContainText('Brought back paris_copy');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(1)).toContainText('paris_copy');
});

test('the history says what each save changed and restores a version', async ({ page, request }) => {
  await importSet(request, 'case_history');
  const path = '/apps/demo/eval_sets/case_history/evals/paris';
  const v1 = await (await request.get(path)).json();
  const edited = JSON.parse(JSON.stringify(v1));
  edited.conversation[0].intermediate_data.tool_uses[0].args.city = 'Lyon';
  expect((await request.put(path, { data: edited })).status()).toBe(200);

  await open(page, '/evalsets/demo/case_history/case?eval_id=paris');
  const history = page.locator('.history');
  await expect(history.locator('tbody tr')).toHaveCount(2);
  await expect(history.locator('tbody tr').first()).toContainText('turn 1: args of get_weather changed');
  await expect(page.locator('.tool-call .json').first()).toContainText('"city": "Lyon"');

  await history.locator('tbody tr').nth(1).getByRole('button', { name: 'Restore' }).click();
  await expect(history.locator('tbody tr')).toHaveCount(3);
  await expect(page.locator('.page-header')).toContainText('version 3');
  await expect(page.locator('.tool-call .json').first()).toContainText('"city": "Paris"');
});

test('the case list deletes one case or a selection, asked first, and undoes it', async ({ page, request }) => {
  const set = evalset('case_list_delete');
  const copy = (id, text) => ({
    ...set.eval_cases[0],
    eval_id: id,
    conversation: [{ ...set.eval_cases[0].conversation[0], user_content: { role: 'user', parts: [{ text }] } }],
  });
  set.eval_cases.push(copy('lyon', 'Weather in Lyon?'), copy('nice', 'Weather in Nice?'));
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  await open(page, '/evalsets/demo/case_list_delete');
  const rows = page.locator('.data-table tbody tr');
  await expect(rows).toHaveCount(3);

  // One row's Delete asks first; Cancel keeps the case.
  await rows.nth(2).getByRole('button', { name: 'Delete' }).click();
  const dialog = page.getByRole('alertdialog');
  await expect(dialog).toContainText('Delete nice?');
  await dialog.getByRole('button', { name: 'Cancel' }).click();
  await expect(rows).toHaveCount(3);

  // Two selected, deleted together, then brought back.
  await page.getByLabel('Select paris').check();
  await page.getByLabel('Select lyon').check();
  await expect(page.locator('.selection-bar')).toContainText('2 cases selected');
  await page.getByRole('button', { name: 'Delete selected' }).click();
  await expect(dialog).toContainText('Delete 2 cases?');
  await dialog.getByRole('button', { name: 'Delete', exact: true }).click();
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText('nice');
  const notice = page.getByRole('status').filter({ hasText: 'Deleted' });
  await expect(notice).toContainText('Deleted lyon, paris');
  await notice.getByRole('button', { name: 'Undo' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Brought back' })).toContainText('lyon, paris');
  await expect(rows).toHaveCount(3);
  // The undo offer leaves the address: a reload offers it no more.
  await expect(page).not.toHaveURL(/deleted=/);
  await page.reload();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(rows).toHaveCount(3);
  await expect(page.getByRole('button', { name: 'Undo' })).toHaveCount(0);

  // Duplicate from the list.
  await rows.nth(0).getByRole('button', { name: 'Duplicate' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Duplicated as' })).toContainText('paris_copy');
  await expect(rows).toHaveCount(4);
});

test('the history shows an older version against the current one', async ({ page, request }) => {
  await importSet(request, 'case_diff');
  const path = '/apps/demo/eval_sets/case_diff/evals/paris';
  const v1 = await (await request.get(path)).json();
  v1.conversation[0].final_response.parts[0].text = 'Rainy.';
  expect((await request.put(path, { data: v1 })).status()).toBe(200);
  await open(page, '/evalsets/demo/case_diff/case?eval_id=paris');
  const history = page.locator('.history');
  await history.locator('tbody tr').nth(1).getByRole('button', { name: 'Diff' }).click();
  await expect(history.locator('.diff-line.diff-removed')).toHaveText(/Sunny\./);
  await expect(history.locator('.diff-line.diff-added')).toHaveText(/Rainy\./);
});
