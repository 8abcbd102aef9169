import { expect, Page } from '@playwright/test';

/** Waits until the page is hydrated and interactive (`data-hydrated`, set only by a browser-side effect). */
export async function hydrated(page: Page) {
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
}

/** Starts an S4 debate from the home page's form and waits for its live page. */
export async function startFromHome(page: Page, query: string, seed: string) {
  await page.goto('/');
  await hydrated(page);
  await page.getByLabel('Question for the agents').fill(query);
  await page.getByLabel('Seed (optional)').fill(seed);
  await page.getByRole('button', { name: 'Start debate' }).click();
  // Client-side navigation to the live page (only works when hydrated).
  await expect(page).toHaveURL(/\/debates\/[0-9a-f]+$/);
}
