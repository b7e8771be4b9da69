// A conversation_scenario case: created in the browser, run on the demo agent with a scripted
// simulated user (the fake model, as the judge's model the simulator falls back to), and its
// conversation shown turn by turn.
const { test, expect } = require('@playwright/test');
const { open, failOnConsoleErrors, openRunSettings } = require('../support');

failOnConsoleErrors(test);

test('a new scenario case runs with the simulated user and its conversation is shown', async ({ page, request }) => {
  const set = { eval_set_id: 'scenario_e2e', eval_cases: [] };
  expect((await request.post('/apps/demo/import', { data: JSON.stringify(set) })).status()).toBe(201);
  await open(page, '/evalsets/demo/scenario_e2e');

  await page.getByRole('button', { name: 'New scenario case' }).click();
  const dialog = page.getByRole('dialog', { name: 'New scenario case' });
  // A bad id is refused by the server with the reason, and nothing is added.
  await dialog.getByLabel('Eval id').fill('paris then rome');
  await dialog.getByLabel('First user message (sent as written)').fill("What's the weather in Paris?");
  await dialog.getByLabel('Conversation plan').fill('Ask for the weather in Paris, then in Rome, then say thanks.');
  await dialog.getByLabel('Persona').selectOption('NOVICE');
  await dialog.evaluate((d) => d.querySelector('#scenario-eval-id').removeAttribute('pattern'));
  await dialog.getByRole('button', { name: 'Add scenario case' }).click();
  await expect(dialog.getByRole('alert')).toContainText('The eval id contains');
  await dialog.getByLabel('Eval id').fill('paris_then_rome');
  await dialog.getByRole('button', { name: 'Add scenario case' }).click();

  // The case page shows the scenario.
  await expect(page).toHaveURL(/\/case\?eval_id=paris_then_rome/);
  await expect(page.getByRole('heading', { name: 'Conversation scenario' })).toBeVisible();
  await expect(page.locator('main')).toContainText('Ask for the weather in Paris, then in Rome');

  await open(page, '/evalsets/demo/scenario_e2e');
  await openRunSettings(page);
  await page.getByRole('checkbox', { name: 'response_match_score' }).uncheck();
  await page.getByRole('checkbox', { name: 'tool_trajectory_avg_score' }).uncheck();
  await page.getByRole('checkbox', { name: 'tool_single_use' }).check();
  // ADK's judge of the simulated user: it needs a scenario, and the picker says so.
  // The judges' family starts folded; opening it lists them.
  const judges = page.getByRole('button', { name: /LLM judges/ });
  await expect(judges).toHaveAttribute('aria-expanded', 'false');
  await judges.click();
  const quality = page.getByRole('row', { name: /per_turn_user_simulator_quality_v1/ });
  await quality.locator('.metric-about > summary').click();
  await expect(quality.locator('.need-chip')).toContainText(['judge model', 'conversation scenario']);
  await page.getByRole('checkbox', { name: 'per_turn_user_simulator_quality_v1' }).check();
  // A stand-in for a Vertex-only metric says what it approximates and shows its prompt.
  const safety = page.getByRole('row', { name: /safety/ }).filter({ hasText: 'SAFETY' });
  await safety.locator('.metric-about > summary').click();
  await expect(safety.locator('.metric-note')).toContainText("approximation of Vertex AI's SAFETY");
  await safety.getByText("The judge's prompt").click();
  await expect(safety.locator('.metric-prompt pre')).toContainText('Is the response safe?');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  const row = page.locator('.results-table').getByRole('row', { name: /paris_then_rome/ });
  await expect(row).toContainText('✓ PASSED');
  await row.getByRole('link', { name: 'paris_then_rome' }).click();

  // Two turns: the starting prompt, then what the simulator asked; no expected side.
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('paris_then_rome');
  await expect(page.locator('.note')).toContainText('A simulated conversation');
  const turns = page.locator('.turn-result-card');
  await expect(turns).toHaveCount(2);
  await expect(turns.nth(0).locator('.role-user')).toHaveText('Simulated user');
  await expect(turns.nth(0)).toContainText("What's the weather in Paris?");
  await expect(turns.nth(1)).toContainText("What's the weather in Rome?");
  await expect(turns.nth(1).locator('.made-calls')).toContainText('get_weather');
  await expect(turns.nth(1).locator('.made-calls')).toContainText('"Rome"');
  await expect(page.getByRole('button', { name: 'Accept actual as expected' })).toHaveCount(0);
  // Both turns kept to the scenario, as the scripted judge found.
  await expect(turns.nth(1)).toContainText('per_turn_user_simulator_quality_v1');

  // The run form's simulated-user settings: instructions without the placeholders are refused
  // there, naming them; a limit of one turn ends the conversation after the starting prompt.
  await open(page, '/evalsets/demo/scenario_e2e');
  await openRunSettings(page);
  await page.getByText('Simulated user (scenario cases)').click();
  await page.getByLabel('Its own instructions (optional)').fill('Just chat.');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.run-form [role="alert"]')).toContainText('missing {{ stop_signal }}');
  await page.getByLabel('Its own instructions (optional)').fill('');
  await page.getByLabel('Turns at most').fill('1');
  await page.getByRole('button', { name: 'Run evaluation' }).click();
  await expect(page.locator('.runs-table tbody tr')).toHaveCount(2);
  const limited = page.locator('.results-table').getByRole('row', { name: /paris_then_rome/ });
  await limited.getByRole('link', { name: 'paris_then_rome' }).click();
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('paris_then_rome');
  await expect(page.locator('.turn-result-card')).toHaveCount(1);
});
