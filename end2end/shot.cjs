const { chromium } = require('@playwright/test');
(async () => {
  const b = await chromium.launch({ executablePath: '/usr/bin/chromium' });
  const p = await b.newPage({ viewport: { width: 1280, height: 1500 } });
  const base = process.argv[2];
  for (const [path, file] of JSON.parse(process.argv[3])) {
    await p.goto(base + path);
    await p.waitForSelector('.app[data-hydrated="true"]');
    await p.waitForTimeout(800);
    await p.screenshot({ path: file, fullPage: false });
  }
  await b.close();
})();
