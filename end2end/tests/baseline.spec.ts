import { test, expect, Page } from '@playwright/test';
import { hydrated } from './pages';

test('QL-1: the decision shows what a plain vote of the first positions would have decided', async ({ page, request }) => {
  const r = await request.post('/api/debates', {
    data: { query: 'Should we roll the new pricing out to every customer this week?', protocol: 's4', seed: 11 },
  });
  expect(r.status(), await r.text()).toBe(201);
  const { id } = await r.json();
  await page.goto(`/debates/${id}`);
  await hydrated(page);
  await expect(page.getByTestId('decision')).toBeVisible({ timeout: 60_000 });
  const note = page.getByTestId('vote-baseline');
  await expect(note).toContainText('A plain vote of the 3 first positions would have decided');

  // The note says what the log says.
  const detail = await (await request.get(`/api/debates/${id}`)).json();
  const decision = detail.events.find((e: any) => e.type === 'decision');
  const baseline = decision.vote_baseline;
  await expect(note).toContainText(baseline.decision);
  await expect(note).toHaveAttribute('data-changed', String(baseline.changed_outcome));
  await expect(note).toContainText(baseline.changed_outcome ? 'the debate changed the outcome' : 'the debate kept it');

  // The audit view shows it too, and the home page counts it.
  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('vote-baseline')).toContainText(baseline.decision);
  await page.goto('/');
  await hydrated(page);
  await expect(page.getByTestId('debate-delta-count')).toContainText(/The debate changed the outcome in \d+ of \d+ decided debates?/);
});
