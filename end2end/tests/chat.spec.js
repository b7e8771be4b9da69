// Chat with the demo agent, see its tool calls, save the session as an eval case, find it in the export.
const { test, expect } = require('@playwright/test');
const fs = require('fs');

const { open, openRunSettings } = require('../support');

test('chat, add the session to a new evalset, open the case and export it', async ({ page }) => {
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  await open(page, '/chat');
  const input = page.getByLabel('Message');
  await input.fill("What's the weather in Paris, and 20 EUR in USD?");
  await input.press('Enter');

  await expect(page).toHaveURL(/\/chat\?app=demo&session=/);
  const cards = page.locator('.tool-card');
  await expect(cards).toHaveCount(2);
  await expect(cards.nth(0).locator('.tool-name')).toHaveText('get_weather');
  await expect(cards.nth(1).locator('.tool-name')).toHaveText('convert_currency');
  await cards.nth(0).locator('summary').click();
  await expect(cards.nth(0)).toContainText('"city": "Paris"');
  await expect(page.locator('.bubble-agent').last()).toContainText('Paris');

  // Shift+Enter makes a new line; Enter sends the follow-up, which uses the earlier turn.
  await input.fill('and in London?');
  await input.press('Enter');
  await expect(cards).toHaveCount(3);
  await expect(cards.nth(2).locator('.tool-name')).toHaveText('get_weather');

  // Rename the session in place; the sidebar follows.
  await page.getByRole('button', { name: 'Rename' }).click();
  await page.getByLabel('Session title').fill('Paris trip');
  await page.getByLabel('Session title').press('Enter');
  await expect(page.locator('.session-name')).toHaveText('Paris trip');
  await expect(page.getByRole('complementary', { name: 'Sessions' })).toContainText('Paris trip');

  await expect(page.getByLabel('Eval id', { exact: true })).toHaveValue('what_s_the_weather_in_paris_and_20_eur_in_usd');
  await page.getByLabel('Evalset', { exact: true }).selectOption({ label: '+ New evalset…' });
  await page.getByLabel('New evalset id').fill('chat_e2e');
  await page.getByLabel('Eval id', { exact: true }).fill('paris_then_london');
  await page.getByRole('button', { name: 'Add current session' }).click();
  const saved = page.getByRole('status').filter({ hasText: 'Saved as' });
  await expect(saved).toContainText('paris_then_london');

  // Saving again under the same id asks before overwriting.
  await page.getByRole('button', { name: 'Add current session' }).click();
  await expect(page.getByRole('alert')).toContainText('already exists');
  await page.getByRole('button', { name: 'Overwrite it' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved as' })).toBeVisible();

  await page.getByRole('link', { name: 'paris_then_london' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('paris_then_london');
  const firstTurn = page.locator('.turn').first();
  await expect(firstTurn.locator('.tool-calls .tool-name')).toHaveText(['get_weather', 'convert_currency']);
  await expect(firstTurn.locator('.tool-calls .tool-call').nth(1)).toContainText('"from": "EUR"');

  await page.getByRole('link', { name: 'chat_e2e' }).click();
  const [download] = await Promise.all([
    page.waitForEvent('download'),
    page.getByRole('link', { name: 'Export' }).click(),
  ]);
  const exported = JSON.parse(fs.readFileSync(await download.path(), 'utf8'));
  const turns = exported.eval_cases[0].conversation;
  expect(exported.eval_cases[0].eval_id).toBe('paris_then_london');
  expect(turns.map((t) => t.intermediate_data.tool_uses.map((c) => c.name))).toEqual([
    ['get_weather', 'convert_currency'],
    ['get_weather'],
  ]);
  expect(turns[1].intermediate_data.tool_uses[0].args).toEqual({ city: 'London' });
  expect(errors).toEqual([]);
});

test('user text is shown as text, never as markup', async ({ page }) => {
  await open(page, '/chat');
  await page.getByLabel('Message').fill('<img src=x onerror="window.__pwned=1"> <script>window.__pwned=2</script>');
  await page.getByLabel('Message').press('Enter');
  await expect(page.locator('.bubble-user').first()).toContainText('<img src=x');
  await expect(page.locator('.bubble-agent').first()).toBeVisible();
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
  await expect(page.locator('.transcript img')).toHaveCount(0);
});

test('a model answer streams in as markdown, with its HTML inert', async ({ page }) => {
  await open(page, '/chat?app=fake');
  await page.getByLabel('Message').fill('Answer in markdown please');
  await page.getByLabel('Message').press('Enter');
  const answer = page.locator('.transcript .bubble-agent').first();
  // The first words are on screen while the rest is still coming.
  await expect(answer.locator('strong')).toHaveText('Paris');
  await expect(page.getByRole('button', { name: 'Stop' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();

  const final = page.locator('.transcript .bubble-agent').first();
  await expect(final.locator('li')).toHaveText(['Temperature: 18 °C', 'Wind: 3 km/h']);
  await expect(final).toContainText('<img src=x onerror=');
  await expect(final).toContainText('<script>');
  await expect(page.locator('.transcript img, .transcript script')).toHaveCount(0);
  const link = final.getByRole('link', { name: 'click me' });
  await expect(link).toHaveAttribute('href', '#');
  await link.click();
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();

  // After a reload the same answer comes from the store, rendered the same way.
  await page.reload();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.locator('.transcript .bubble-agent strong')).toHaveText('Paris');
  await expect(page.locator('.transcript img, .transcript script')).toHaveCount(0);
  expect(await page.evaluate(() => window.__pwned)).toBeUndefined();
});

test('Stop ends a running turn and keeps what was said', async ({ page }) => {
  await open(page, '/chat?app=fake');
  await page.getByLabel('Message').fill('tell me something slow');
  await page.getByLabel('Message').press('Enter');
  const answer = page.locator('.transcript .bubble-agent').first();
  await expect(answer).toContainText('word2');
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Stopped' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await expect(answer).not.toContainText('word40');

  // The stopped turn was recorded, and the session takes a new message at once.
  await page.reload();
  await expect(page.locator('body[data-hydrated="true"]')).toBeAttached();
  await expect(page.getByRole('status').filter({ hasText: 'Stopped' })).toBeVisible();
  await page.getByLabel('Message').fill('hello again');
  await page.getByLabel('Message').press('Enter');
  await expect(page.locator('.transcript .bubble-agent').last()).toContainText('You said: hello again');
});

test('a turn under way is followed in a second tab, which can stop it', async ({ page, context }) => {
  await open(page, '/chat?app=fake');
  await page.getByLabel('Message').fill('tell me something slow');
  await page.getByLabel('Message').press('Enter');
  await expect(page).toHaveURL(/\/chat\?app=fake&session=/);
  await expect(page.locator('.transcript .bubble-agent').first()).toContainText('word2');

  // Opened elsewhere (another tab here; another server behind a load balancer alike), the
  // session shows the turn going on, read from the database.
  const second = await context.newPage();
  await open(second, page.url());
  await expect(second.locator('.transcript .bubble-user').last()).toContainText('tell me something slow');
  const followed = second.locator('.transcript .bubble-agent').last();
  await expect(followed).toContainText('word4');
  await expect(second.getByRole('button', { name: 'Send' })).toHaveCount(0);
  await second.getByRole('button', { name: 'Stop' }).click();
  await expect(second.getByRole('status').filter({ hasText: 'Stopped' })).toBeVisible();
  await expect(page.getByRole('status').filter({ hasText: 'Stopped' })).toBeVisible();
  await expect(second.getByRole('button', { name: 'Send' })).toBeVisible();
  await expect(page.getByRole('button', { name: 'Send' })).toBeVisible();
  await second.close();
});

test('what is typed in the Eval panel during a new session\'s first answer stays', async ({ page }) => {
  await open(page, '/chat?app=fake');
  await page.getByLabel('Message').fill('tell me something slow');
  await page.getByLabel('Message').press('Enter');
  await expect(page).toHaveURL(/\/chat\?app=fake&session=/);
  await expect(page.locator('.transcript .bubble-agent').first()).toContainText('word2');
  await page.getByLabel('Evalset', { exact: true }).selectOption({ label: '+ New evalset…' });
  await page.getByLabel('New evalset id').fill('typed_meanwhile');
  await page.getByLabel('Eval id', { exact: true }).fill('kept_id');
  // The turn's end loads the new session from the store, which draws the panel again.
  await page.getByRole('button', { name: 'Stop' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Stopped' })).toBeVisible();
  await expect(page.getByLabel('New evalset id')).toHaveValue('typed_meanwhile');
  await expect(page.getByLabel('Eval id', { exact: true })).toHaveValue('kept_id');
  await page.getByRole('button', { name: 'Add current session' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved as' })).toContainText('kept_id');
  await expect(page.getByRole('status').filter({ hasText: 'Saved as' })).toContainText('typed_meanwhile');

  // Opening another session from a blank one gives that session's own case id and no outcome.
  await open(page, '/chat?app=fake');
  await page.getByLabel('Eval id', { exact: true }).fill('typed_in_blank');
  await page.locator('.session-list a').first().click();
  await expect(page).toHaveURL(/\/chat\?app=fake&session=/);
  await expect(page.locator('.transcript .bubble-agent').first()).toBeVisible();
  await expect(page.getByLabel('Eval id', { exact: true })).not.toHaveValue('typed_in_blank');
  await expect(page.getByLabel('Eval id', { exact: true })).not.toHaveValue('');
  await expect(page.getByRole('status').filter({ hasText: 'Saved as' })).toHaveCount(0);
});

test('settings lists the agent profiles and links to a chat with each', async ({ page }) => {
  await open(page, '/settings');
  const demo = page.locator('.profile').filter({ hasText: 'demo' });
  await expect(demo).toContainText('calculate, convert_currency, get_order_status, get_weather, search_knowledge_base');
  await demo.getByRole('link', { name: 'Chat with demo' }).click();
  await expect(page).toHaveURL(/\/chat\?app=demo/);
  await expect(page.getByLabel('Agent')).toHaveValue('demo');
});

test('run an evaluation of a saved session and read its scores inline', async ({ page }) => {
  const errors = [];
  page.on('pageerror', (err) => errors.push(String(err)));
  page.on('console', (msg) => msg.type() === 'error' && errors.push(msg.text()));
  await open(page, '/chat');
  const input = page.getByLabel('Message');
  await input.fill('Where is my order A1003?');
  await input.press('Enter');
  await expect(page).toHaveURL(/\/chat\?app=demo&session=/);
  await expect(page.locator('.tool-card')).toHaveCount(1);
  await page.getByLabel('Evalset', { exact: true }).selectOption({ label: '+ New evalset…' });
  await page.getByLabel('New evalset id').fill('run_e2e');
  await page.getByLabel('Eval id', { exact: true }).fill('order_status');
  await page.getByRole('button', { name: 'Add current session' }).click();
  await expect(page.getByRole('status').filter({ hasText: 'Saved as' })).toContainText('order_status');

  await open(page, '/evalsets/demo/run_e2e');
  await expect(page.getByRole('heading', { name: 'Evaluate' })).toBeVisible();
  await expect(page.getByText('No runs yet')).toBeVisible();
  await page.getByRole('button', { name: 'Run evaluation' }).click();

  const results = page.locator('.results-table');
  const row = results.getByRole('row', { name: /^order_status/ });
  await expect(row).toContainText('✓ PASSED');
  await expect(row).toContainText('1.000');
  // ADK's informational metrics: the demo agent made one tool call and one model call, with its
  // tokens, in a timed turn.
  await expect(row).toContainText(/1\.0 tool calls · 1\.0 model calls · \d+ tokens · \d+\.\d\d s/);
  await expect(page.locator('.runs-table')).toContainText('✓ finished');
  await row.getByRole('button', { name: 'Show' }).click();
  const detail = results.locator('.detail-row').first();
  await expect(detail).toContainText('Turn 1');
  await expect(detail).toContainText('A1003');
  // The two chosen metrics, then the four informational ones.
  await expect(detail.locator('.metric-results li')).toHaveCount(6);
  await expect(detail.locator('.metric-results li').filter({ hasText: 'tool_call_count_v1' })).toContainText('i INFO');

  // A threshold no score can reach is refused, naming the metric, and nothing runs.
  await openRunSettings(page);
  await page.getByLabel('response_match_score threshold').fill('1.5');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.run-form [role=alert]')).toContainText('response_match_score threshold: 1.5 is outside');
  await expect(page.locator('.runs-table tbody tr')).toHaveCount(1);
  await page.getByLabel('response_match_score threshold').fill('0.8');
  // A tool the agent did not call fails the case in a second run, which is shown at once.
  await page.getByRole('checkbox', { name: 'tool_single_use', exact: true }).check();
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(results.getByRole('row', { name: /^order_status/ })).toContainText('✗ FAILED');
  await expect(page.locator('.runs-table tbody tr')).toHaveCount(2);
  await page.getByRole('checkbox', { name: 'tool_single_use', exact: true }).uncheck();
  // Picking the first run shows its results again.
  await page.locator('.runs-table tbody tr').nth(1).getByRole('button').click();
  await expect(results.getByRole('row', { name: /^order_status/ })).toContainText('✓ PASSED');

  // A metric that takes more than a threshold shows its criterion options once picked; bad
  // options are refused with the metric named, and good ones are scored.
  const options = page.getByLabel('tool_single_use options');
  await expect(options).toBeHidden();
  await page.getByRole('checkbox', { name: 'tool_single_use', exact: true }).check();
  await expect(options).toHaveValue('{"tool_name": "get_weather"}');
  await options.fill('{"tool_name": }');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.run-form')).toContainText('tool_single_use options: not valid JSON');
  await expect(page.locator('.runs-table tbody tr')).toHaveCount(2);
  await options.fill('{"tool_name": "get_order_status"}');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.runs-table tbody tr')).toHaveCount(3);
  const third = results.getByRole('row', { name: /^order_status/ });
  await expect(third).toContainText('✓ PASSED');
  await third.getByRole('button', { name: 'Show' }).click();
  const singleUse = results.locator('.detail-row .metric-results li').filter({ hasText: 'tool_single_use' });
  await expect(singleUse).toContainText('1.000');

  // A custom judge metric written in the browser: named, prompted, and judged by the model.
  await page.getByRole('checkbox', { name: 'tool_single_use', exact: true }).uncheck();
  await page.getByRole('button', { name: '+ Custom judge metric' }).click();
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.run-form')).toContainText('Custom metric 1: give it a name.');
  await page.getByLabel('Custom metric 1 name').fill('polite');
  await expect(page.getByLabel('Custom metric 1 options')).toHaveValue(/"judge_prompt": "Is this reply to \{query\} polite/);
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.runs-table tbody tr')).toHaveCount(4);
  await expect(results.getByRole('columnheader', { name: 'polite' })).toBeVisible();
  const fourth = results.getByRole('row', { name: /^order_status/ });
  await expect(fourth).toContainText('✓ PASSED');
  await fourth.getByRole('button', { name: 'Show' }).click();
  const polite = results.locator('.detail-row .metric-results li').filter({ hasText: 'polite' });
  await expect(polite).toContainText('1.000');
  await polite.getByText('Evidence').click();
  await expect(polite).toContainText('YES');
  expect(errors).toEqual([]);
});
