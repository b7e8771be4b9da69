// The Traces page: a session ADK's exporter sent (tests/fixtures/otlp, ADK 2.13's own spans of
// the weather agent's turn, posted here as OTLP/JSON) is listed, opens as a transcript, and
// "Add to evalset" saves it as a case the editor opens.
const { test, expect } = require('@playwright/test');
const fs = require('fs');
const path = require('path');
const { open, failOnConsoleErrors } = require('../support');

failOnConsoleErrors(test);

const kinds = ['unspecified', 'internal', 'server', 'client', 'producer', 'consumer'];

function anyValue(value) {
  if (typeof value === 'string') return { stringValue: value };
  if (typeof value === 'boolean') return { boolValue: value };
  if (typeof value === 'number') return Number.isInteger(value) ? { intValue: String(value) } : { doubleValue: value };
  if (Array.isArray(value)) return { arrayValue: { values: value.map(anyValue) } };
  if (value && typeof value === 'object') return { kvlistValue: { values: keyValues(value) } };
  return {};
}

function keyValues(object) {
  return Object.entries(object).map(([key, value]) => ({ key, value: anyValue(value) }));
}

/// The fixture's spans as an OTLP/JSON request, their session renamed `session`.
function otlpRequest(session) {
  const file = path.resolve(__dirname, '../../tests/fixtures/otlp/adk_schema2.spans.json');
  const spans = JSON.parse(fs.readFileSync(file, 'utf8'));
  const suffix = session.slice(-8).padStart(8, '0').replace(/[^0-9a-f]/g, 'a');
  return {
    resourceSpans: [{
      resource: { attributes: keyValues({ 'service.name': 'weather-prod' }) },
      scopeSpans: [{
        scope: { name: 'gcp.vertex.agent' },
        spans: spans.map((span) => {
          const attributes = { ...span.attributes };
          if (attributes['gen_ai.conversation.id']) attributes['gen_ai.conversation.id'] = session;
          return {
            traceId: span.trace_id.slice(0, 24) + suffix,
            spanId: span.span_id,
            parentSpanId: span.parent_span_id || '',
            name: span.name,
            kind: kinds.indexOf(span.kind),
            startTimeUnixNano: String(span.start_unix_nano),
            endTimeUnixNano: String(span.end_unix_nano),
            attributes: keyValues(attributes),
          };
        }),
      }],
    }],
  };
}

test('a recorded session is listed, opens as a transcript and is added to an evalset', async ({ page, request }) => {
  const session = `prod-${Date.now().toString(16)}`;
  const sent = await request.post('/v1/traces', { data: otlpRequest(session) });
  expect(sent.status()).toBe(200);

  await open(page, '/traces');
  const row = page.getByRole('row').filter({ hasText: session });
  await expect(row).toContainText('weather_agent');
  // The filters live in the URL: the session had no error, so "with errors only" hides it.
  await page.getByLabel('With errors only').check();
  await expect(page).toHaveURL(/errors=1/);
  await expect(row).toHaveCount(0);
  await page.getByLabel('With errors only').uncheck();
  await page.getByLabel('App').selectOption('weather_agent');
  await expect(page).toHaveURL(/app=weather_agent/);
  await expect(page).not.toHaveURL(/errors=1/);
  // A tool it did not call hides it; one it did, and a word it said, keep it.
  await page.getByLabel('Tool').fill('get_time');
  await page.getByLabel('Tool').press('Enter');
  await expect(page).toHaveURL(/tool=get_time/);
  await expect(row).toHaveCount(0);
  await page.getByLabel('Tool').fill('get_weather');
  await page.getByLabel('Tool').press('Enter');
  await expect(row).toContainText('weather_agent');
  await page.getByLabel('Text').fill('paris');
  await page.getByLabel('Text').press('Enter');
  await expect(page).toHaveURL(/text=paris/);
  await expect(row).toContainText('weather_agent');
  const today = new Date().toISOString().slice(0, 10);
  await page.getByLabel('To', { exact: true }).fill('2020-01-01');
  await expect(page).toHaveURL(/to=2020-01-01/);
  await expect(row).toHaveCount(0);
  await page.getByLabel('To', { exact: true }).fill(today);
  await expect(row).toContainText('weather_agent');
  await row.getByRole('link', { name: session }).click();

  const recorded = page.getByRole('region', { name: 'Recorded session' });
  await expect(recorded).toContainText("What's the weather in Paris?");
  await expect(recorded).toContainText('get_weather');
  await expect(recorded).toContainText('It is sunny and 21 °C in Paris.');
  await page.screenshot({ path: 'test-results/traces-1400.png', fullPage: true });
  await page.setViewportSize({ width: 800, height: 900 });
  await page.screenshot({ path: 'test-results/traces-800.png', fullPage: true });
  await page.setViewportSize({ width: 1400, height: 900 });

  await page.getByLabel('Evalset').fill('from_prod');
  await page.getByLabel('Eval id').fill(`paris_${session}`);
  await page.getByRole('button', { name: 'Add to evalset' }).click();
  await expect(page.getByRole('status')).toContainText('Saved as');

  const stored = await (await request.get(`/apps/weather_agent/eval_sets/from_prod/evals/paris_${session}`)).json();
  expect(stored.conversation[0].intermediate_data.tool_uses[0].name).toBe('get_weather');
  await page.getByRole('status').getByRole('link').click();
  await expect(page).toHaveURL(/\/evalsets\/weather_agent\/from_prod\/edit\?eval_id=paris_/);
});

test('sessions ticked in an app\'s list are added as cases and scored without running the agent', async ({ page, request }) => {
  const stamp = Date.now().toString(16);
  // Their last 8 characters tell their traces apart (see otlpRequest).
  const sessions = [`bulk-${stamp}-a`, `bulk-${stamp}-b`];
  for (const session of sessions) {
    expect((await request.post('/v1/traces', { data: otlpRequest(session) })).status()).toBe(200);
  }
  const set = `bulk_${stamp}`;

  await open(page, '/traces?app=weather_agent');
  for (const session of sessions) await page.getByLabel(`Select session ${session}`).check();
  await expect(page.getByText('2 selected')).toBeVisible();
  // Opening one to read it keeps the ticks.
  await page.getByRole('link', { name: sessions[1] }).click();
  await expect(page.getByRole('region', { name: 'Recorded session' })).toContainText('get_weather');
  await expect(page).toHaveURL(/app=weather_agent.*&session=/);
  await expect(page.getByText('2 selected')).toBeVisible();

  await page.getByRole('button', { name: 'Add selected…' }).click();
  await page.getByLabel('Selected sessions to evalset').fill(set);
  await page.getByRole('button', { name: 'Add 2 as cases' }).click();
  await expect(page.getByRole('status')).toContainText('Saved 2 cases');
  const cases = await (await request.get(`/apps/weather_agent/eval_sets/${set}/evals`)).json();
  expect(cases.map((c) => c.eval_id ?? c).sort()).toEqual(sessions.map((s) => `session_${s.replace(/-/g, '_')}`).sort());

  await page.getByRole('button', { name: 'Score…' }).click();
  await page.getByLabel('Against evalset').selectOption(set);
  await page.getByLabel('Label').fill('from production');
  await page.screenshot({ path: 'test-results/traces-score-1400.png', fullPage: true });
  await page.getByRole('button', { name: 'Score 2 sessions' }).click();

  await expect(page).toHaveURL(/\/runs\/weather_agent\//);
  await expect(page.getByText('2 recorded sessions').first()).toBeVisible();
  await expect(page.getByText('2 of 2 passed').first()).toBeVisible();
  await page.screenshot({ path: 'test-results/traces-run-1400.png', fullPage: true });
  await page.setViewportSize({ width: 800, height: 900 });
  await page.screenshot({ path: 'test-results/traces-run-800.png', fullPage: true });
  await page.setViewportSize({ width: 1400, height: 900 });

  // A session's result offers no accept or re-run (there is no case to re-run), only the session.
  await page.getByRole('link', { name: sessions[0] }).click();
  await expect(page.getByText('scored without running the agent')).toBeVisible();
  await expect(page.getByRole('button', { name: 'Re-run this case' })).toHaveCount(0);
  await page.getByRole('link', { name: 'Open the session' }).click();
  await expect(page.getByRole('region', { name: 'Recorded session' })).toContainText("What's the weather in Paris?");
});
