import { expect, Page, APIRequestContext } from '@playwright/test';
import { execFileSync } from 'child_process';

/** `consilium judge add NAME` on the test server's database: the token it prints once. */
export function addJudge(name: string, role = 'judge'): string {
  const out = execFileSync(process.env.CONSILIUM_BIN!, ['judge', 'add', name, '--role', role], {
    env: { ...process.env, DATABASE_URL: `sqlite:${process.env.E2E_DB}` },
  }).toString();
  const token = out.split('\n').find((l) => l.startsWith('cj_'));
  expect(token, out).toBeTruthy();
  return token!.trim();
}

/** A new judge `name`, signed in on `page` through the sign-in form. */
export async function signInAsJudge(page: Page, name: string) {
  const token = addJudge(name);
  await page.goto('/judge/sign-in');
  await page.getByTestId('judge-token').fill(token);
  await page.getByTestId('sign-in').click();
  await expect(page.getByTestId('signed-in-as')).toContainText(name);
}

/** Seed 000's pipeline at a day per second: every timer runs out, the margin dispute falls back
 * to the cautious 25 % and the pipeline decides with it provisional. Its id, once finished. */
export async function provisionalPipeline(request: APIRequestContext): Promise<string> {
  const r = await request.post('/api/debates', {
    data: { query: 'Should we buy Acme at $80 after its cost programme lifts margins?', protocol: 'escalation', time_scale: 86400, seed: 5 },
  });
  expect(r.status(), await r.text()).toBe(201);
  const { id } = await r.json();
  await expect
    .poll(async () => (await (await request.get(`/api/debates/${id}`)).json()).status, { timeout: 60_000 })
    .toBe('finished');
  return id;
}
