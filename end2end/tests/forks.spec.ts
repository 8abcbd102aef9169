import { test, expect } from '@playwright/test';
import { finishedDebate } from './exports';
import { hydrated } from './pages';

// FK-1/FK-3: from the audit page of a decided debate, a visitor who may start debates forks it
// from an event of its timeline ("fork from here") with another seed; the fork runs live, its
// audit page shows its lineage, and the parent's audit page lists it with how many forks reached
// its decision, and compares parent and forks side by side with the first difference marked. A
// range of seeds in the form runs a batch (FK-4) and says how often the decision held.

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

  // "fork from here" on the timeline's row of round 2's start fills in the event.
  await page.locator(`tr[data-seq="${round2}"] [data-testid="fork-here"]`).click();
  await expect(page.getByTestId('fork-after')).toHaveValue(String(round2));
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
  const tree = page.getByTestId('lineage-tree');
  await expect(tree.locator('li')).toHaveCount(2);
  await expect(tree.locator('li').first()).toHaveText(id);
  await expect(tree.locator('li').nth(1)).toContainText(`this debate — after event ${round2}, seed 11`);
  // FK-2: the copied events, checked in this browser against the parent's log.
  await expect(page.getByTestId('lineage-check')).toHaveAttribute('data-verdict', 'verified');
  await expect(page.getByTestId('lineage-check')).toContainText(`the ${round2} copied events are the parent's`);
  const timeline = page.locator('[data-testid="timeline"] tbody tr');
  await expect(timeline.first()).toContainText('forked from');

  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.locator('[data-testid="forks-table"] tbody tr')).toHaveCount(1);
  await expect(page.locator(`[data-fork="${child}"]`)).toContainText(String(round2));
  await expect(page.getByTestId('forks-summary')).toContainText(/^[01] of 1 forks reached the same decision/);
  // Side by side: a column for the debate and one for its fork; the copied round holds the
  // parent's positions.
  await expect(page.getByTestId('compare-col')).toHaveCount(2);
  await expect(page.getByTestId('compare-col').nth(1)).toContainText(`after event ${round2} · seed 11`);
  await expect(page.getByTestId('compare-decision')).toHaveCount(2);
  expect(errors).toEqual([]);
});

test('forks side by side: a column each, the first different position marked', async ({ page, request }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const { id, log } = await finishedDebate(request, 'Is it safe to rewire my own electrical panel?', 6);
  const round2 = log.events.find((e: any) => e.type === 'round_started' && e.round === 2).seq;

  // FK-4 from the form: a range of seeds runs one fork each and says how often the decision held.
  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await page.locator(`tr[data-seq="${round2}"] [data-testid="fork-here"]`).click();
  await page.getByTestId('fork-seed').fill('5-1');
  await page.getByTestId('fork-submit').click();
  await expect(page.getByTestId('fork-error')).toContainText('runs backwards');
  await page.getByTestId('fork-seed').fill('1-5');
  await page.getByTestId('fork-submit').click();
  await expect(page.getByTestId('fork-batch')).toContainText(/^[0-5] of 5 forks reached the same decision \([A-Z_]+\); 95 % interval/);
  await expect(page.getByTestId('fork-error')).toHaveCount(0);
  const compared = await (await request.get(`/api/debates/${id}/compare`)).json();
  const marked = compared.columns.filter((c: any) => c.first_row !== undefined).length;
  // The panel loads the forks again: five rows, the debate and its forks side by side.
  await expect(page.locator('[data-testid="forks-table"] tbody tr')).toHaveCount(5);
  await expect(page.getByTestId('compare-col')).toHaveCount(6);
  await expect(page.getByTestId('compare-summary')).toHaveText(compared.summary);
  // Every fork that held another position somewhere has its first one marked, once.
  await expect(page.getByTestId('divergence')).toHaveCount(marked);
  expect(marked).toBeGreaterThan(0);
  await expect(page.getByTestId('divergence').first()).toHaveClass(/differs/);
  await expect(page.getByTestId('divergence').first()).toContainText('first difference');
  // The copied first round is the parent's in every column.
  const firstRow = page.locator('[data-testid="compare"] tbody tr').first();
  await expect(firstRow.locator('td.differs')).toHaveCount(0);
  await expect(page.getByTestId('compare-baseline')).toHaveCount(6);
  expect(errors).toEqual([]);
});
