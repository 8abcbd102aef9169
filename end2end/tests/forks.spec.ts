import { test, expect } from '@playwright/test';
import { finishedDebate } from './exports';
import { hydrated } from './pages';

// FK-1/FK-3: from the audit page of a decided debate, a visitor who may start debates forks it
// from an event of its timeline with another seed; the fork runs live, its audit page names its
// parent, and the parent's audit page lists it with how many forks reached its decision.

test('fork from the audit page: the fork runs, names its parent, and is listed', async ({ page, request }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const { id, log } = await finishedDebate(request, 'Should we open a second office in Porto?', 4);
  const round2 = log.events.find((e: any) => e.type === 'round_started' && e.round === 2).seq;

  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('forks-summary')).toContainText('No forks yet');
  // The form offers the last event before the decision; a fork from the decision is refused.
  await expect(page.getByTestId('fork-after')).toHaveValue(String(log.events.length - 1));
  await page.getByTestId('fork-after').fill(String(log.events.length));
  await page.getByTestId('fork-submit').click();
  await expect(page.getByTestId('fork-error')).toContainText('ends the debate');

  await page.getByTestId('fork-after').fill(String(round2));
  await page.getByTestId('fork-seed').fill('11');
  await page.getByTestId('fork-submit').click();
  await expect(page).toHaveURL(/\/debates\/[0-9a-f]{16}$/);
  const child = page.url().split('/').pop()!;
  expect(child).not.toBe(id);
  // The fork's own live page, following it to its decision.
  await expect(page.locator('h1.debate-query')).toHaveText('Should we open a second office in Porto?');
  await expect
    .poll(async () => (await (await request.get(`/api/debates/${child}`)).json()).status, { timeout: 30_000 })
    .toBe('finished');
  await expect(page.getByTestId('decision')).toBeVisible();

  await page.goto(`/debates/${child}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified');
  await expect(page.getByTestId('lineage')).toContainText(`fork of ${id} after its event ${round2}`);
  await expect(page.getByTestId('lineage')).toContainText('seed 11');
  const timeline = page.locator('[data-testid="timeline"] tbody tr');
  await expect(timeline.first()).toContainText('forked from');

  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.locator('[data-testid="forks-table"] tbody tr')).toHaveCount(1);
  await expect(page.locator(`[data-fork="${child}"]`)).toContainText(String(round2));
  await expect(page.getByTestId('forks-summary')).toContainText(/^[01] of 1 forks reached the same decision/);
  expect(errors).toEqual([]);
});
