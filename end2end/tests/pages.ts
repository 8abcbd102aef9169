import { expect, Page } from '@playwright/test';

/** Waits until the page is hydrated and interactive (`data-hydrated`, set only by a browser-side effect). */
export async function hydrated(page: Page) {
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
}
