const { chromium } = require('@playwright/test');
(async () => {
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  for (const [w, name] of [[1400, 'wide'], [800, 'narrow']]) {
    const page = await browser.newPage({ viewport: { width: w, height: 900 } });
    await page.goto(process.argv[2]);
    await page.waitForSelector('body[data-hydrated="true"]');
    await page.waitForTimeout(500);
    await page.screenshot({ path: `/tmp/shot-${process.argv[3]}-${name}.png` });
    await page.close();
  }
  await browser.close();
})();
