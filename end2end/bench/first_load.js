// First load of an evalset page as a user far away sees it: Chromium with CDP's "Fast 4G"
// network (1,012,500 B/s down, 165 ms latency) and 4x CPU slowdown, an empty cache. Prints the
// bytes moved over the wire and the time until the page is hydrated (its first click works).
//
// Usage: node bench/first_load.js BASE_URL PATH   (the server must be running)
const { chromium } = require('@playwright/test');

const FAST_4G = { offline: false, latency: 165, downloadThroughput: 1012500, uploadThroughput: 168750 };

async function firstLoad(browser, url) {
  const context = await browser.newContext();
  const page = await context.newPage();
  const cdp = await context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: true });
  await cdp.send('Network.emulateNetworkConditions', FAST_4G);
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 });
  const bytes = new Map();
  cdp.on('Network.loadingFinished', (e) => bytes.set(e.requestId, e.encodedDataLength));
  const started = Date.now();
  await page.goto(url);
  await page.waitForSelector('body[data-hydrated="true"]', { state: 'attached', timeout: 120000 });
  const hydrated = Date.now() - started;
  // The first click after hydration: the Select-all checkbox answers it.
  const select = page.locator('thead input[type="checkbox"]');
  if (await select.count()) {
    await select.click();
    await page.waitForFunction(() => document.querySelector('thead input[type="checkbox"]').checked);
  }
  const interactive = Date.now() - started;
  const total = [...bytes.values()].reduce((a, b) => a + b, 0);
  await context.close();
  return { total, hydrated, interactive };
}

(async () => {
  const [base, path] = process.argv.slice(2);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const runs = [];
  for (let i = 0; i < 3; i += 1) runs.push(await firstLoad(browser, base + path));
  await browser.close();
  const median = (key) => runs.map((r) => r[key]).sort((a, b) => a - b)[1];
  console.log(`first load of ${path} on Fast 4G with 4x CPU slowdown (median of 3, empty cache):`);
  console.log(`  over the wire: ${(median('total') / 1024).toFixed(0)} KiB`);
  console.log(`  hydrated after: ${(median('hydrated') / 1000).toFixed(2)} s`);
  console.log(`  first click answered after: ${(median('interactive') / 1000).toFixed(2)} s`);
})();
