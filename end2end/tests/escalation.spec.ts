import { test, expect, Page } from '@playwright/test';

async function hydrated(page: Page) {
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
}

test('ES: a new user starts a pipeline with a time scale and watches a challenge climb to a provisional decision', async ({ page, request }) => {
  await page.goto('/');
  await hydrated(page);
  await page.getByLabel('Protocol').selectOption('escalation');
  await expect(page.getByTestId('es-params')).toBeVisible();
  await expect(page.getByTestId('rr-params')).toBeHidden();
  // A day per second: a judge's six hours (if a judge is configured) pass in a quarter second.
  await page.getByTestId('time-scale').selectOption('86400');
  await page.getByRole('button', { name: 'Should we buy Acme at $80 after its cost programme lifts margins?' }).click();
  await page.getByLabel('Seed (optional)').fill('5');
  await page.getByRole('button', { name: 'Start debate' }).click();
  await expect(page).toHaveURL(/\/debates\/[0-9a-f]+$/);
  await hydrated(page);

  const ladder = page.getByTestId('ladder');
  await expect(ladder).toContainText('Escalation ladder');
  const challenge = ladder.getByTestId('challenge');
  await expect(challenge).toHaveCount(1, { timeout: 30_000 });
  await expect(challenge).toHaveAttribute('data-challenge', 'CH-001');
  await expect(challenge).toContainText('Valuation Agent challenges Financial Agent: 25.0 % against 28.0 %');
  // It climbs: agents → facilitator → judge → provisional fallback (level 4).
  await expect(challenge).toHaveAttribute('data-level', '4', { timeout: 60_000 });
  await expect(challenge).toHaveAttribute('data-status', 'provisional');
  await expect(challenge.getByTestId('resolution')).toContainText('25.0 %');
  await expect(challenge.getByTestId('stage')).toContainText('provisional');

  const decision = page.getByTestId('decision');
  await expect(decision).toBeVisible({ timeout: 60_000 });
  await expect(decision.getByTestId('provisional-count')).toHaveText('1 provisional decision requires review at the gate.');
  await expect(page.getByTestId('assumptions')).toContainText('25.0 % (provisional)');
  await expect(page.getByTestId('pipeline-clock')).toContainText('time scale 86400×');

  // What the page shows is what the log says; the audit page shows the same ladder.
  const id = page.url().split('/').pop();
  const detail = await (await request.get(`/api/debates/${id}`)).json();
  const types = detail.events.map((e: any) => e.type);
  expect(types).toContain('challenge_raised');
  expect(types).toContain('provisional_decision');
  const logged = detail.events.find((e: any) => e.type === 'decision');
  await expect(decision).toHaveAttribute('data-decision', logged.results.rating);
  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('ladder').getByTestId('challenge')).toHaveAttribute('data-level', '4');
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified', { timeout: 30_000 });
});
