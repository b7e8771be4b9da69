// The case editor: a captured case edited field by field, saved, exported and restored; a
// concurrent edit is caught; unsaved changes are not left behind silently.
const { test, expect } = require('@playwright/test');
const { open, failOnConsoleErrors } = require('../support');

failOnConsoleErrors(test);

/** Chats with the demo agent and adds the session to `evalset` as `evalId`. */
async function captureCase(page, evalset, evalId) {
  await open(page, '/chat');
  const input = page.getByLabel('Message');
  await input.fill("What's the weather in Paris, and 20 EUR in USD?");
  await input.press('Enter');
  await expect(page).toHaveURL(/\/chat\?app=demo&session=/);
  await expect(page.locator('.tool-card')).toHaveCount(2);
  await expect(page.locator('.bubble-agent').last()).toContainText('Paris');
  await page.getByLabel('Evalset', { exact: true }).selectOption({ label: '+ New evalset…' });
  await page.getByLabel('New evalset id').fill(evalset);
  await page.getByLabel('Eval id', { exact: true }).fill(evalId);
  await page.getByRole('button', { name: 'Add current session' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved as' })).toContainText(evalId);
}

const callNames = (page) => page.locator('.call-list .call-row .row-title .mono');

test('edit a captured case: invalid args, a new call, keyboard reorder, save, export, restore', async ({ page, request }) => {
  await captureCase(page, 'editor_e2e', 'paris_trip');
  await page.getByRole('link', { name: 'Open in editor' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Edit paris_trip');
  await expect(callNames(page)).toHaveText(['get_weather', 'convert_currency']);
  const save = page.getByRole('button', { name: 'Save' });
  await expect(save).toBeDisabled();

  // Invalid JSON: the error names its line, and nothing can be saved.
  const firstCall = page.locator('.call-row').first();
  const args = firstCall.getByLabel('Args (JSON object)');
  await args.fill('{\n  "city": Lyon\n}');
  await expect(firstCall.locator('.field-error')).toContainText('line 2, column');
  await expect(page.locator('.problems')).toContainText('turn 1, call 1 (get_weather): args');
  await expect(save).toBeDisabled();
  await args.fill('{\n  "city": "Lyon"\n}');
  await expect(firstCall.locator('.field-error')).toHaveCount(0);
  await expect(save).toBeEnabled();

  // A new call, moved up one place with Alt+↑.
  await page.getByRole('button', { name: 'Add tool call' }).click();
  const added = page.locator('.call-row').nth(2);
  await added.getByLabel('Tool name').fill('get_time');
  await added.getByLabel('Args (JSON object)').fill('{"tz": "CET"}');
  await added.getByLabel('Tool name').press('Alt+ArrowUp');
  await expect(callNames(page)).toHaveText(['get_weather', 'get_time', 'convert_currency']);
  await expect(page.locator('.call-row').nth(1).getByLabel('Tool name')).toBeFocused();

  await page.getByLabel('Expected final response').fill('Lyon is sunny; 20 EUR is about 21.6 USD.');
  await expect(page.locator('.save-state')).toHaveText(/Unsaved changes/);

  // Leaving asks first; staying keeps the edits.
  page.once('dialog', (dialog) => dialog.dismiss());
  await page.getByRole('link', { name: 'Close' }).click();
  await expect(page).toHaveURL(/\/edit\?eval_id=paris_trip/);

  await page.keyboard.press('Control+s');
  await expect(page.locator('.save-state')).toHaveText('Saved · version 2');

  await page.reload();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(callNames(page)).toHaveText(['get_weather', 'get_time', 'convert_currency']);
  await expect(page.locator('.call-row').first().getByLabel('Args (JSON object)')).toHaveValue(/"city": "Lyon"/);
  await expect(page.getByLabel('Expected final response')).toHaveValue('Lyon is sunny; 20 EUR is about 21.6 USD.');

  const exported = await (await request.get('/apps/demo/eval_sets/editor_e2e/export')).text();
  expect(exported).toContain('"city": "Lyon"');
  expect(exported).toContain('"name": "get_time"');
  expect(exported).toContain('Lyon is sunny; 20 EUR is about 21.6 USD.');

  // The case page's history: what the save changed, and a restore of the captured version.
  await page.getByRole('link', { name: 'Close' }).click();
  await expect(page).toHaveURL(/\/case\?eval_id=paris_trip/);
  const history = page.locator('.history');
  await expect(history.locator('tbody tr')).toHaveCount(2);
  await expect(history.locator('tbody tr').first()).toContainText(
    'turn 1: tool calls changed from [get_weather, convert_currency] to [get_weather, get_time, convert_currency]',
  );
  await history.locator('tbody tr').nth(1).getByRole('button', { name: 'Restore' }).click();
  await expect(page.locator('.page-header')).toContainText('version 3');
  await expect(page.locator('.tool-call .json').first()).toContainText('"city": "Paris"');
});

test('a second editor saving the same case gets the conflict, with the diff', async ({ browser, page }) => {
  await captureCase(page, 'editor_conflict', 'shared');
  const editor = '/evalsets/demo/editor_conflict/edit?eval_id=shared';
  const other = await (await browser.newContext()).newPage();
  await open(page, editor);
  await open(other, editor);

  await other.getByLabel('Expected final response').fill('Theirs.');
  await other.getByRole('button', { name: 'Save' }).click();
  await expect(other.locator('.save-state')).toHaveText('Saved · version 2');

  await page.getByLabel('Expected final response').fill('Mine.');
  await page.getByRole('button', { name: 'Save' }).click();
  const conflict = page.locator('.conflict');
  await expect(conflict).toContainText('This case changed since you opened it');
  await expect(conflict.locator('.diff-removed.diff-line')).toContainText('Theirs.');
  await expect(conflict.locator('.diff-added.diff-line')).toContainText('Mine.');
  await expect(page.locator('.save-state')).toHaveText(/changed since you opened it/);

  await conflict.getByRole('button', { name: 'Overwrite it with mine' }).click();
  await expect(page.locator('.save-state')).toHaveText('Saved · version 3');
  await expect(conflict).toHaveCount(0);

  // The other editor is now behind: it reloads the stored case instead.
  await other.getByLabel('Expected final response').fill('Theirs again.');
  await other.getByRole('button', { name: 'Save' }).click();
  await other.locator('.conflict').getByRole('button', { name: /Reload the stored case/ }).click();
  await expect(other.getByLabel('Expected final response')).toHaveValue('Mine.');
  await expect(other.locator('.save-state')).toHaveText('No changes');
  await other.context().close();
});

test('calls reorder by drag and drop too', async ({ page, request }) => {
  const set = {
    eval_set_id: 'editor_drag',
    eval_cases: [{
      eval_id: 'two_calls',
      conversation: [{
        invocation_id: 'i1',
        user_content: { role: 'user', parts: [{ text: 'Weather and time in Paris?' }] },
        intermediate_data: { tool_uses: [
          { id: 'c1', name: 'get_weather', args: { city: 'Paris' } },
          { id: 'c2', name: 'get_time', args: { tz: 'CET' } },
        ] },
      }],
    }],
  };
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  await open(page, '/evalsets/demo/editor_drag/edit?eval_id=two_calls');
  await expect(callNames(page)).toHaveText(['get_weather', 'get_time']);
  await page.locator('.call-row').nth(1).locator('.drag-handle').dragTo(page.locator('.call-row').nth(0));
  await expect(callNames(page)).toHaveText(['get_time', 'get_weather']);
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('.save-state')).toHaveText('Saved · version 2');
  const saved = await (await request.get('/apps/demo/eval_sets/editor_drag/evals/two_calls')).json();
  // The calls keep their ids through the move.
  expect(saved.conversation[0].intermediate_data.tool_uses.map((c) => c.id)).toEqual(['c2', 'c1']);
});

test('a new eval_id renames the case on save and later saves follow it', async ({ page, request }) => {
  const set = {
    eval_set_id: 'editor_rename',
    eval_cases: [{
      eval_id: 'old_name',
      conversation: [{
        invocation_id: 'i1',
        user_content: { role: 'user', parts: [{ text: 'Hello' }] },
        final_response: { role: 'model', parts: [{ text: 'Hi.' }] },
      }],
    }],
  };
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  await open(page, '/evalsets/demo/editor_rename/edit?eval_id=old_name');
  const evalId = page.getByLabel('eval_id (letters, digits, _ - .)');
  await evalId.fill('new name');
  await expect(page.locator('.problems')).toContainText('The eval id contains ` `');
  await evalId.fill('new_name');
  await page.keyboard.press('Control+s');
  await expect(page.locator('.save-state')).toHaveText('Saved · version 2');
  await expect(page).toHaveURL(/\/edit\?eval_id=new_name/);
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Edit new_name');

  await page.getByLabel('Expected final response').fill('Hello there.');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('.save-state')).toHaveText('Saved · version 3');
  const stored = await (await request.get('/apps/demo/eval_sets/editor_rename/evals/new_name')).json();
  expect(stored.conversation[0].final_response.parts[0].text).toBe('Hello there.');
  expect((await request.get('/apps/demo/eval_sets/editor_rename/evals/old_name')).status()).toBe(404);
});

test('a turn in the invocation_events form is edited in that form', async ({ page, request }) => {
  const event = (author, role, part) => ({ author, content: { role, parts: [part] } });
  const set = {
    eval_set_id: 'editor_events',
    eval_cases: [{
      eval_id: 'lights',
      conversation: [{
        invocation_id: 'i1',
        user_content: { role: 'user', parts: [{ text: 'Lights on, then the fan' }] },
        intermediate_data: { invocation_events: [
          event('home', 'model', { function_call: { id: 'c1', name: 'set_light', args: { on: true } } }),
          event('home', 'model', { function_call: { id: 'c2', name: 'set_fan', args: { speed: 2 } } }),
        ] },
      }],
    }],
  };
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  // Tall enough that both events are in view: a drag that has to scroll is not what this tests.
  await page.setViewportSize({ width: 1280, height: 1600 });
  await open(page, '/evalsets/demo/editor_events/edit?eval_id=lights');
  await expect(page.getByRole('heading', { name: 'Expected events' })).toBeVisible();
  const rows = page.locator('.call-row');
  await rows.nth(1).getByLabel('Args (JSON object)').fill('{"speed": 3}');
  await rows.nth(1).locator('.drag-handle').dragTo(rows.nth(0));
  await expect(rows.nth(0).getByLabel('Tool call: name')).toHaveValue('set_fan');
  await rows.nth(0).getByLabel('Author').press('Alt+ArrowDown');
  await expect(rows.nth(1).getByLabel('Tool call: name')).toHaveValue('set_fan');
  await rows.nth(1).getByLabel('Author').press('Alt+ArrowUp');
  await page.getByRole('button', { name: 'Save' }).click();
  await expect(page.locator('.save-state')).toHaveText('Saved · version 2');

  const saved = await (await request.get('/apps/demo/eval_sets/editor_events/evals/lights')).json();
  const data = saved.conversation[0].intermediate_data;
  expect(data.tool_uses ?? []).toEqual([]);
  expect(data.invocation_events.map((e) => e.content.parts[0].function_call.name)).toEqual(['set_fan', 'set_light']);
  expect(data.invocation_events[0].content.parts[0].function_call).toEqual({ id: 'c2', name: 'set_fan', args: { speed: 3 } });
});
