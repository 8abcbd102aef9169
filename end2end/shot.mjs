import { chromium } from '@playwright/test';
const [,, url, out] = process.argv;
const b = await chromium.launch({ executablePath: '/usr/bin/chromium' });
const p = await b.newPage({ viewport: { width: 1280, height: 800 } });
p.on('pageerror', e => console.log('pageerror:', e.message));
await p.goto(url);
await p.waitForTimeout(1500);
await p.screenshot({ path: out });
await b.close();
