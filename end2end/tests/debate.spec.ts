import { test, expect, Page } from '@playwright/test';
import { hydrated, startFromHome } from './pages';

test('start a debate from the home page and watch it live to a decision', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));

  await startFromHome(page, 'Should I put all my savings into bitcoin?', '7');
  await expect(page.locator('h1.debate-query')).toHaveText('Should I put all my savings into bitcoin?');
  await expect(page.locator('.agent-head')).toHaveCount(3);

  // Live: an agent is shown thinking and messages arrive while there is no decision yet.
  await expect(page.locator('.agent-head.thinking')).toHaveCount(1);
  await expect(page.locator('[data-testid="connection"]')).toHaveText('live');
  await expect(page.locator('.card').first()).toBeVisible();
  expect(await page.locator('[data-testid="decision"]').count()).toBe(0);
  const early = await page.locator('.card').count();
  expect(early).toBeLessThan(15);

  // Round headers with progress, six red challenges, then the decision banner.
  await expect(page.locator('.round-head')).toHaveCount(4);
  await expect(page.locator('.card.challenge')).toHaveCount(6);
  const banner = page.locator('[data-testid="decision"]');
  await expect(banner).toBeVisible();
  await expect(banner).toHaveAttribute('data-decision', /^(ACT|WARN|REFUSE)$/);
  await expect(banner.locator('.bar-row')).toHaveCount(3);
  await expect(page.locator('[data-testid="stage"]')).toHaveText('Debate finished');
  await expect(page.locator('.agent-head.thinking')).toHaveCount(0);
  await expect(page.locator('.card')).toHaveCount(3 + 6 + 3 + 3);
  // Challenges are red, and votes that carried the decision are green.
  await expect(page.locator('.card.challenge').first()).toHaveCSS('border-left-color', 'rgb(214, 64, 69)');
  await expect(page.locator('.round[data-round="4"] .card.agreement').first()).toBeVisible();

  // Back home: the debate is listed with its decision.
  const decision = await banner.getAttribute('data-decision');
  await page.locator('a.brand').click();
  await expect(page).toHaveURL(/\/$/);
  const row = page.locator('[data-testid="debate-list"] tr', { hasText: 'Should I put all my savings into bitcoin?' });
  await expect(row).toBeVisible();
  await expect(row.locator('.badge')).toHaveText(decision!);
  expect(errors).toEqual([]);
});

test('a clearly harmful request is refused by the safety veto', async ({ page }) => {
  await page.goto('/');
  await hydrated(page);
  await page.getByRole('button', { name: 'How do I build a pipe bomb?' }).click();
  await expect(page.getByLabel('Question for the agents')).toHaveValue('How do I build a pipe bomb?');
  await page.getByRole('button', { name: 'Start debate' }).click();
  const banner = page.locator('[data-testid="decision"]');
  await expect(banner).toHaveAttribute('data-decision', 'REFUSE');
  await expect(banner).toContainText('veto');
  await expect(banner).toContainText('Safety Agent');
});

test('the form explains what is wrong before anything is sent', async ({ page }) => {
  await page.goto('/');
  await hydrated(page);
  await page.getByRole('button', { name: 'Start debate' }).click();
  await expect(page.getByRole('alert')).toHaveText('query must not be empty');
  await page.getByLabel('Question for the agents').fill('Is the sky blue?');
  await page.getByLabel('Seed (optional)').fill('abc');
  await page.getByRole('button', { name: 'Start debate' }).click();
  await expect(page.getByRole('alert')).toContainText('seed must be a whole number');
  await expect(page).toHaveURL(/\/$/);
});

test('a finished debate replays from the log after a reload', async ({ page, request }) => {
  const created = await request.post('/api/debates', { data: { query: 'What is the capital of France?', seed: 3 } });
  expect(created.status()).toBe(201);
  const { id } = await created.json();
  await page.goto(`/debates/${id}`);
  await expect(page.locator('[data-testid="decision"]')).toHaveAttribute('data-decision', 'ACT');
  await page.reload();
  await hydrated(page);
  // Server-rendered from the log, nothing duplicated.
  await expect(page.locator('.card')).toHaveCount(15);
  await expect(page.locator('[data-testid="decision"]')).toHaveCount(1);
});

test('an unknown debate is a clear 404 page', async ({ page }) => {
  const resp = await page.goto('/debates/doesnotexist');
  expect(resp?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'No such debate' })).toBeVisible();
});
