import { test, expect, Page, APIRequestContext } from '@playwright/test';
import { execFileSync } from 'child_process';
import { writeFileSync, mkdtempSync } from 'fs';
import { tmpdir } from 'os';
import { join } from 'path';
import { hydrated } from './pages';

/** `consilium <args>` on the test server's database. */
function cli(args: string[]): string {
  return execFileSync(process.env.CONSILIUM_BIN!, args, {
    env: { ...process.env, DATABASE_URL: `sqlite:${process.env.E2E_DB}` },
  }).toString();
}

/** Starts a debate and waits for its log to end; returns its id and events. */
async function finished(request: APIRequestContext, data: object): Promise<{ id: string; events: any[] }> {
  const r = await request.post('/api/debates', { data });
  expect(r.status(), await r.text()).toBe(201);
  const { id } = await r.json();
  let detail: any;
  await expect
    .poll(async () => {
      detail = await (await request.get(`/api/debates/${id}`)).json();
      return detail.status;
    }, { timeout: 60_000 })
    .not.toBe('running');
  return { id, events: detail.events };
}

test('the credibility page shows an agent\'s score with its interval, trend and accuracy chart', async ({ page }) => {
  expect(cli(['track-record', 'import', '--sample'])).toContain('labelled as sample data');
  await page.goto('/agents');
  await hydrated(page);
  const row = page.locator('tr[data-identity="builtin:safety"]');
  await expect(row).toBeVisible();
  await expect(row.locator('.badge.sample')).toHaveText('sample data');
  await expect(row.getByTestId('interval')).toBeVisible();
  await row.getByRole('link', { name: 'builtin:safety' }).click();
  await expect(page.getByTestId('agent-identity')).toHaveText('builtin:safety');
  await expect(page.getByTestId('sample-note')).toBeVisible();
  const score = page.locator('.agent-score').getByTestId('credibility');
  await expect(score).toHaveAttribute('data-score', /^0\.\d{3}$/);
  await expect(score.getByTestId('interval')).toBeVisible();
  await expect(score).toContainText(/\(0\.\d\d–[01]\.\d\d, n = \d+\)/);
  await expect(page.getByTestId('trend')).toContainText('Trend:');
  const chart = page.getByTestId('accuracy-chart');
  await expect(chart).toBeVisible();
  expect(await chart.locator('circle').count()).toBeGreaterThanOrEqual(3);
  await expect(page.getByTestId('predictions').locator('tbody tr').first()).toBeVisible();
});

test('weighting votes by credibility changes a decision that a constructed record makes change', async ({ page, request }) => {
  test.setTimeout(240_000);
  // Find a debate decided 2 to 1 (no veto, no split): the builtin agents are deterministic per
  // (query, seed), so the same request later gets the same votes.
  const candidates = [
    'Should we launch the redesigned onboarding flow to all users next week?',
    'Should our team move the weekly planning meeting to Monday mornings?',
    'Should we replace our CI provider with a self-hosted runner fleet?',
    'Is it a good idea to offer customers an annual plan with a 20% discount?',
  ];
  let chosen: { query: string; decision: string; majority: string[]; minority: string[] } | undefined;
  for (const query of candidates) {
    const { events } = await finished(request, { query, seed: 5 });
    const votes = events.filter((e) => e.type === 'vote');
    const decision = events.find((e) => e.type === 'decision');
    if (!decision || decision.consensus !== 'strong_majority' || votes.length !== 3) continue;
    const minority = votes.filter((v) => v.decision !== decision.decision).map((v) => v.agent);
    if (minority.length === 0) continue;
    const majority = votes.filter((v) => v.decision === decision.decision).map((v) => v.agent);
    chosen = { query, decision: decision.decision, majority, minority };
    break;
  }
  expect(chosen, 'one of the candidate questions splits the vote').toBeTruthy();

  // The record: the agents that carried the decision were always wrong, the others always right.
  const lines: string[] = [];
  const now = Date.now();
  for (const [agents, correct] of [[chosen!.majority, false], [chosen!.minority, true]] as const) {
    for (const agent of agents) {
      for (let i = 0; i < 300; i++) {
        lines.push(JSON.stringify({
          identity: `builtin:${agent}`, held: 'ACT', confidence: 0.7,
          made_at: new Date(now - (i + 1) * 3_600_000).toISOString().replace(/\.\d+Z$/, 'Z'),
          debate: `pw-constructed-${i}`, outcome: { correct },
        }));
      }
    }
  }
  const file = join(mkdtempSync(join(tmpdir(), 'consilium-')), 'record.jsonl');
  writeFileSync(file, lines.join('\n'));
  expect(cli(['track-record', 'import', file])).toContain(`${lines.length} predictions`);

  const { id } = await finished(request, { query: chosen!.query, seed: 5 });
  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('credibility-snapshot')).toBeVisible();
  const result = page.getByTestId('what-if-result');
  await expect(result).toHaveAttribute('data-changed', 'false');
  await expect(result).toHaveAttribute('data-decision', chosen!.decision);
  await page.getByTestId('weight-by-credibility').check();
  await expect(result).toHaveAttribute('data-changed', 'true');
  await expect(result).not.toHaveAttribute('data-decision', chosen!.decision);
  await page.getByTestId('weight-by-credibility').uncheck();
  await expect(result).toHaveAttribute('data-changed', 'false');
});
