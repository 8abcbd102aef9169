const { chromium } = require('@playwright/test');
(async () => {
  const b = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
  const ctx = await b.newContext();
  const page = await ctx.newPage();
  page.on('console', m => console.log('console', m.type(), m.text().slice(0, 300)));
  page.on('pageerror', e => console.log('pageerror', e.message.slice(0, 500)));
  await page.goto('http://127.0.0.1:3998/judge/sign-in');
  await page.fill('[data-testid=judge-token]', process.env.TOKEN);
  await page.click('[data-testid=sign-in]');
  await page.waitForTimeout(500);
  await page.goto('http://127.0.0.1:3998/debates/' + process.env.ID);
  await page.waitForSelector('.app[data-hydrated="true"]');
  await page.waitForTimeout(2500);
  console.log('forms', await page.locator('[data-testid=rule-form]').count());
  await page.screenshot({ path: '/tmp/gate.png', fullPage: true });
  await b.close();
})();
