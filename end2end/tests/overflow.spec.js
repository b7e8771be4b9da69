// No page is wider than the window at 800 or 1400 px, even with ADK's path-like eval ids.
const { test, expect } = require('@playwright/test');
const fs = require('fs');
const path = require('path');
const { open, failOnConsoleErrors } = require('../support');

failOnConsoleErrors(test);

const fixture = path.resolve(__dirname, '../../tests/fixtures/adk/simple_multi_turn_conversation.test.json');
const setId = '4412cca6-dfcd-43ab-bbc5-9155380c7137';
const evalId = 'tests/integration/fixture/home_automation_agent/test_files/simple_multi_turn_conversation.test.json';

test('every page fits the window at 800 and 1400 px', async ({ page, request }) => {
  await request.post('/apps/demo/import?replace=true', { data: fs.readFileSync(fixture, 'utf8') });
  const run = async () => {
    // Three metrics: their names head three columns of the results tables.
    const evalMetrics = ['tool_trajectory_avg_score', 'response_match_score', 'tool_trajectory_f1'].map((metricName) => ({
      metricName,
      threshold: 0.5,
    }));
    const response = await request.post(`/apps/demo/eval_sets/${setId}/run_eval`, { data: { evalMetrics } });
    expect(response.ok()).toBeTruthy();
  };
  await run();
  await run();
  const results = await (await request.get('/apps/demo/eval_results')).json();
  const [later, earlier] = results.filter((id) => id.includes(setId)).sort().reverse();
  const id = encodeURIComponent(evalId);
  const pages = [
    '/',
    '/chat',
    '/runs',
    '/traces',
    '/settings',
    `/evalsets/demo/${setId}`,
    `/evalsets/demo/${setId}/case?eval_id=${id}`,
    `/evalsets/demo/${setId}/edit?eval_id=${id}`,
    `/evalsets/demo/${setId}/results/${later}?eval_id=${id}`,
    `/runs/demo/${later}`,
    `/runs/demo/${later}/compare/${earlier}`,
  ];
  for (const width of [800, 1400]) {
    await page.setViewportSize({ width, height: 900 });
    for (const url of pages) {
      await open(page, url);
      const [scrollWidth, innerWidth] = await page.evaluate(() => [document.documentElement.scrollWidth, window.innerWidth]);
      expect(scrollWidth, `${url} at ${width} px`).toBeLessThanOrEqual(innerWidth);
    }
  }
});
