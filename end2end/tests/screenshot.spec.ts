import { test, expect } from '@playwright/test';
import * as path from 'path';
import { startFromHome } from './pages';

// The README's picture of a live debate (docs/screenshot-live.png), taken from the real UI on
// every run so that it always shows what the product looks like now.
test('the README screenshot: an S4 debate watched live, mid-debate', async ({ page }) => {
  await page.setViewportSize({ width: 1280, height: 1180 });
  await startFromHome(page, 'Should I put all my savings into bitcoin?', '7');
  await expect(page.locator('[data-testid="connection"]')).toHaveText('live');
  // Mid-debate: the challenges are arriving and an agent is thinking.
  await expect(page.locator('.card.challenge').nth(1)).toBeVisible();
  await page.screenshot({ path: path.resolve(__dirname, '../../docs/screenshot-live.png') });
  // Then to its end, so the picture was of a debate that decides.
  await expect(page.locator('[data-testid="decision"]')).toBeVisible();
});
