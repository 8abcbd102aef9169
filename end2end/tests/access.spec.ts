import { test, expect, Page } from '@playwright/test';
import { execFileSync } from 'child_process';
import { hydrated } from './pages';

/** `consilium judge add NAME` on the test server's database: the token it prints once. */
function addJudge(name: string, role = 'judge'): string {
  const out = execFileSync(process.env.CONSILIUM_BIN!, ['judge', 'add', name, '--role', role], {
    env: { ...process.env, DATABASE_URL: `sqlite:${process.env.E2E_DB}` },
  }).toString();
  const token = out.split('\n').find((l) => l.startsWith('cj_'));
  expect(token, out).toBeTruthy();
  return token!.trim();
}

test('pages hydrate under the Content-Security-Policy, and an injected inline script is blocked', async ({ page }) => {
  const violations: string[] = [];
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) violations.push(m.text());
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const resp = await page.goto('/');
  const csp = resp!.headers()['content-security-policy'];
  expect(csp).toMatch(/script-src 'self' 'nonce-[A-Za-z0-9_-]+' 'wasm-unsafe-eval'/);
  expect(csp).toContain("frame-ancestors 'none'");
  expect(resp!.headers()['x-content-type-options']).toBe('nosniff');
  await hydrated(page);
  expect(violations, 'the page itself needs nothing the policy forbids').toEqual([]);

  // What an attacker's markup would try: an inline script without the nonce never runs.
  await page.evaluate(() => {
    const s = document.createElement('script');
    s.textContent = 'window.__pwned = true;';
    document.body.appendChild(s);
  });
  expect(await page.evaluate(() => (window as any).__pwned)).toBeUndefined();
  await expect.poll(() => violations.length).toBeGreaterThan(0);
  expect(errors).toEqual([]);
});

test('a judge signs in, stops a running debate, and signs out; a viewer sees no judge control', async ({ page, request }) => {
  const token = addJudge('pw-judge');
  const viewerToken = addJudge('pw-viewer', 'viewer');
  const started = await request.post('/api/debates', {
    data: { query: 'Should the team adopt a four-day week next quarter?' },
  });
  expect(started.status()).toBe(201);
  const { id } = await started.json();

  // Anonymous: the debate streams, with no stop button anywhere.
  await page.goto(`/debates/${id}`);
  await hydrated(page);
  await expect(page.locator('[data-testid="connection"]')).toHaveText('live');
  await expect(page.getByTestId('stop-debate')).toHaveCount(0);

  // A wrong token is explained; the right one signs in.
  await page.goto('/judge/sign-in');
  await page.getByTestId('judge-token').fill('cj_not-a-token');
  await page.getByTestId('sign-in').click();
  await expect(page.getByRole('alert')).toContainText('not valid');
  // A viewer account signs in but gets no judge controls.
  await page.getByTestId('judge-token').fill(viewerToken);
  await page.getByTestId('sign-in').click();
  await expect(page.getByTestId('signed-in-as')).toHaveText('You are signed in as pw-viewer (viewer).');
  await page.goto(`/debates/${id}`);
  await hydrated(page);
  await expect(page.getByTestId('judge-corner')).toHaveText('pw-viewer · viewer');
  await expect(page.getByTestId('stop-debate')).toHaveCount(0);
  await page.goto('/judge/sign-in');
  await page.getByTestId('sign-out').click();

  await page.getByTestId('judge-token').fill(token);
  await page.getByTestId('sign-in').click();
  await expect(page.getByTestId('signed-in-as')).toHaveText('You are signed in as pw-judge (judge).');
  const cookies = await page.context().cookies();
  const session = cookies.find((c) => c.name === 'consilium_session');
  expect(session?.httpOnly).toBe(true);
  expect(session?.sameSite).toBe('Strict');

  // The judge stops a debate that has just started, from its live page; the log names the judge.
  const running = await request.post('/api/debates', {
    data: { query: 'Should we rewrite the billing service in a new language this year?' },
  });
  expect(running.status()).toBe(201);
  const id2 = (await running.json()).id;
  await page.goto(`/debates/${id2}`);
  await hydrated(page);
  await expect(page.getByTestId('judge-corner')).toHaveText('pw-judge · judge');
  await page.getByTestId('stop-debate').click();
  await expect(page.locator('.panel.interrupted')).toHaveText('This debate was interrupted: stopped by judge pw-judge');
  await expect(page.getByTestId('stop-debate')).toBeHidden();
  const log = await (await request.get(`/api/debates/${id2}`)).json();
  const last = log.events[log.events.length - 1];
  expect([last.type, last.by]).toEqual(['interrupted', 'pw-judge']);

  await page.goto('/judge/sign-in');
  await page.getByTestId('sign-out').click();
  await expect(page.getByTestId('sign-in')).toBeVisible();
  expect((await page.context().cookies()).find((c) => c.name === 'consilium_session')).toBeUndefined();
});

test('the home page searches past debates and loads more, a page at a time', async ({ page, request }) => {
  const marker = `zebra-${Date.now()}`;
  for (let i = 0; i < 35; i++) {
    const r = await request.post('/api/debates', { data: { query: `Paging ${marker} question ${i}?` } });
    expect(r.status(), await r.text()).toBe(201);
  }
  await page.goto('/');
  await hydrated(page);
  await page.getByTestId('debate-search').fill(marker);
  await page.getByRole('button', { name: 'Search' }).click();
  const rows = page.locator('[data-testid="debate-list"] tbody tr');
  await expect(rows).toHaveCount(30);
  await expect(rows.first()).toContainText(`${marker} question 34?`);
  await page.getByTestId('load-more').click();
  await expect(rows).toHaveCount(35);
  await expect(rows.last()).toContainText(`${marker} question 0?`);
  await expect(page.getByTestId('load-more')).toHaveCount(0);

  await page.getByTestId('debate-search').fill('no-such-question-anywhere');
  await page.getByRole('button', { name: 'Search' }).click();
  await expect(page.getByTestId('debate-list-empty')).toContainText('no-such-question-anywhere');
});
