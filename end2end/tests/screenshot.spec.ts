import { test, expect } from '@playwright/test';
import * as path from 'path';
import { hydrated } from './pages';

// The README's picture of a live debate (docs/screenshot-live.png), taken from the real UI on
// every run so that it always shows what the product looks like now.
test('the README screenshot: an S4 debate watched live, mid-debate', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 1180 });
  await page.goto('/');
  await hydrated(page);
  await page.getByLabel('Question for the agents').fill('Should I put all my savings into bitcoin?');
  await page.getByLabel('Seed (optional)').fill('7');
  await page.getByRole('button', { name: 'Start debate' }).click();
  await expect(page).toHaveURL(/\/debates\/[0-9a-f]+$/);
  await expect(page.locator('[data-testid="connection"]')).toHaveText('live');
  // Mid-debate: the challenges are arriving and an agent is thinking.
  await expect(page.locator('.card.challenge').nth(1)).toBeVisible();
  await page.screenshot({ path: path.resolve(__dirname, '../../docs/screenshot-live.png') });
  // Then to its end, so the picture was of a debate that decides.
  await expect(page.locator('[data-testid="decision"]')).toBeVisible();
});
