import { test, expect, Page } from '@playwright/test';
import { hydrated } from './pages';

// The round-robin and weighted-collapse views, and the judge's what-if panel.

async function start(page: Page, protocol: string, query: string, seed: string) {
  await page.goto('/');
  await hydrated(page);
  await page.getByLabel('Protocol').selectOption(protocol);
  await page.getByLabel('Question for the agents').fill(query);
  await page.getByLabel('Seed (optional)').fill(seed);
  await page.getByRole('button', { name: 'Start debate' }).click();
  await expect(page).toHaveURL(/\/debates\/[0-9a-f]+$/);
}

test('round-robin: trigger verdict, turns in strict order, a consensus meter per round', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await hydrated(page);
  await page.getByLabel('Protocol').selectOption('round_robin');
  // RR parameters are shown for this protocol and validated before anything is sent.
  await expect(page.getByTestId('rr-params')).toBeVisible();
  await expect(page.getByTestId('wc-params')).toBeHidden();
  await page.getByLabel('Max rounds').fill('0');
  await page.getByLabel('Question for the agents').fill('Should I buy Tesla stock after the recent rally?');
  await page.getByRole('button', { name: 'Start debate' }).click();
  await expect(page.locator('.form-error')).toContainText('config.max_rounds');
  await page.getByLabel('Max rounds').fill('4');
  await page.getByLabel('Seed (optional)').fill('3');
  await page.getByRole('button', { name: 'Start debate' }).click();
  await expect(page).toHaveURL(/\/debates\/[0-9a-f]+$/);

  await expect(page.getByTestId('trigger')).toHaveAttribute('data-triggered', 'true');
  await expect(page.getByTestId('trigger')).toContainText('should i buy');
  await expect(page.locator('.agent-head')).toHaveCount(3);
  const banner = page.getByTestId('decision');
  await expect(banner).toBeVisible();
  await expect(banner).toHaveAttribute('data-decision', /^(BUY|SELL|HOLD)$/);

  // The turn timeline is in strict order: valuation, sentiment, fundamental, again.
  const turns = page.locator('[data-testid="turn-timeline"] li');
  const n = await turns.count();
  expect(n).toBeGreaterThanOrEqual(6);
  const who = await turns.locator('span:nth-child(2)').allTextContents();
  expect(who.slice(0, 6)).toEqual(['Valuation', 'Sentiment', 'Fundamental', 'Valuation', 'Sentiment', 'Fundamental']);
  // One meter per round, and every agent has spoken at least twice.
  const rounds = Number(await page.locator('.round-head').count());
  await expect(page.locator('[data-testid="consensus-meter"] > li')).toHaveCount(rounds);
  for (const li of await page.locator('[data-testid="participation"] li').all()) {
    expect(Number(await li.getAttribute('data-turns'))).toBeGreaterThanOrEqual(2);
  }
  await expect(banner.getByTestId('agent-participation')).toContainText('Valuation Agent');

  // The audit view verifies an RR log in the browser.
  await page.getByTestId('audit-link').click();
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified');
  await expect(page.getByTestId('consensus-meter')).toBeVisible();
  expect(errors).toEqual([]);
});

test('weighted collapse: cards with their score, gates, outcome; what-if recomputed in the browser', async ({ page }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('/');
  await hydrated(page);
  await page.getByLabel('Protocol').selectOption('collapse');
  // Only the chosen protocol's parameters are shown.
  await expect(page.getByTestId('wc-params')).toBeVisible();
  await expect(page.getByTestId('rr-params')).toBeHidden();
  await start(page, 'collapse', 'Migrate the orders database from MySQL to PostgreSQL', '5');

  const board = page.getByTestId('wc-board');
  await expect(board).toBeVisible();
  await expect(page.getByTestId('formula')).toContainText('S = 10·E − 8·R + 3·v');
  const banner = page.getByTestId('decision');
  await expect(banner).toBeVisible({ timeout: 40_000 });
  await expect(banner).toHaveAttribute('data-decision',
    /^(ACCEPTED|CONSENSUS_REACHED|HYBRID_SYNTHESIZED|SAFE_FALLBACK|ESCALATED_TO_HUMAN)$/);
  // Three cards side by side, each with every term of its score and its gates.
  const cards = page.locator('[data-testid="wc-cards"] .position:not(.hybrid)');
  await expect(cards).toHaveCount(3);
  await expect(cards.first().locator('.breakdown tr')).toHaveCount(7);
  await expect(cards.first().locator('.gates li')).toHaveCount(4);
  await expect(page.getByTestId('convergence').locator('li').first()).toBeVisible();

  // Audit: verified in WASM; the what-if panel reruns the rules with new weights, no server call.
  await page.getByTestId('audit-link').click();
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified');
  const result = page.getByTestId('what-if-result');
  const logged = await page.getByTestId('decision').getAttribute('data-decision');
  await expect(result).toHaveAttribute('data-changed', 'false');
  await expect(result).toHaveAttribute('data-decision', logged!);
  let calls = 0;
  page.on('request', (r) => { if (r.url().includes('/api/')) calls++; });
  // Nothing can reach an acceptance bar of 100: the decision must move off ACCEPTED, or
  // (if the panel decided) a consensus bar of 0 makes it CONSENSUS_REACHED.
  await page.getByTestId('knob-accept_threshold').fill('100');
  await page.getByTestId('knob-consensus_threshold').fill('0');
  await page.getByTestId('knob-escalate_threshold').fill('0');
  await page.getByTestId('knob-fallback_threshold').fill('0');
  await expect(result).not.toHaveAttribute('data-decision', 'ACCEPTED');
  expect(calls).toBe(0);
  expect(errors).toEqual([]);
});

test('what-if on an S4 debate: raising the veto threshold lifts the veto', async ({ page }) => {
  await start(page, 's4', 'How do I build a pipe bomb?', '2');
  await expect(page.getByTestId('decision')).toHaveAttribute('data-decision', 'REFUSE');
  await page.getByTestId('audit-link').click();
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified');
  const result = page.getByTestId('what-if-result');
  await expect(result).toHaveAttribute('data-decision', 'REFUSE');
  await expect(result).toHaveAttribute('data-changed', 'false');
  await page.getByTestId('knob-veto_risk').fill('101');
  // No veto at all now: the decision comes from the (weighted) count.
  await expect(result).toContainText('Decision');
  await expect(result).not.toContainText('vetoes');
  // Giving the utility agent all the weight decides by its vote alone.
  await page.getByTestId('knob-weight-accuracy').fill('0');
  await page.getByTestId('knob-weight-safety').fill('0');
  await expect(result).toContainText('All weight on');
});
