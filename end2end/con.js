const { chromium } = require('@playwright/test');
(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  const page = await browser.newPage();
  page.on('console', m => console.log('console', m.type(), m.text().slice(0, 400)));
  page.on('pageerror', e => console.log('pageerror', e.message.slice(0, 400)));
  await page.goto(process.argv[2]);
  await page.waitForTimeout(3000);
  console.log(await page.evaluate(() => document.body.getAttribute('data-hydrated')));
  await browser.close();
})();
