import { test, expect, Page } from '@playwright/test';
import { hydrated } from './pages';

test('RC: a new user reconciles seed 003\'s observations from the form, watches topics and beliefs arrive, asks why, and audits', async ({ page, request }) => {
  await page.goto('/');
  await hydrated(page);
  await page.getByLabel('Protocol').selectOption('reconcile');
  await expect(page.getByTestId('rc-params')).toBeVisible();
  await expect(page.getByTestId('wc-params')).toBeHidden();
  // The example set is there to edit: the user adds a fifth topic of their own.
  const box = page.getByTestId('observations');
  await expect(box).toHaveValue(/The team meeting is at 3pm in Room A/);
  const edited = JSON.parse(await box.inputValue());
  edited.push({ id: 'o9', agent: 'agent_d', content: 'The office closes for the holidays on December 24', timestamp: '2026-01-08T09:00:00Z' });
  await box.fill(JSON.stringify(edited, null, 2));
  await page.getByRole('button', { name: 'Which of these conflicting reports should we believe?' }).click();
  await page.getByRole('button', { name: 'Start debate' }).click();
  await expect(page).toHaveURL(/\/debates\/[0-9a-f]+$/);
  await hydrated(page);

  // Topics form, and each gets its belief.
  const panel = page.getByTestId('rc-panel');
  await expect(panel.getByTestId('rc-grouping')).toContainText('builtin:all-MiniLM-L6-v2');
  const topics = panel.getByTestId('rc-topic');
  await expect(topics).toHaveCount(5, { timeout: 30_000 });
  await expect(panel.getByTestId('rc-belief')).toHaveCount(5, { timeout: 30_000 });
  await expect(topics.nth(0)).toHaveAttribute('data-conflict', 'true');
  await expect(topics.nth(4)).toHaveAttribute('data-conflict', 'false');
  const decision = page.getByTestId('decision');
  await expect(decision).toHaveAttribute('data-decision', 'NEEDS_CLARIFICATION', { timeout: 30_000 });

  // "Why do we believe this?" opens the observations considered, their weights and the reasoning.
  const revenue = page.locator('[data-testid=rc-topic][data-topic=t3]');
  await expect(revenue.getByTestId('rc-belief')).toContainText("Acme's quarterly revenue is up 10%");
  await revenue.getByText('Why do we believe this?').click();
  const why = revenue.getByTestId('rc-why');
  await expect(why).toContainText('authority outranks credibility');
  await expect(why).toContainText('CEO earnings call');
  await expect(why).toContainText('Reddit rumor');
  await expect(why).toContainText('Observations considered: o5, o6');
  await expect(page.locator('[data-testid=rc-topic][data-topic=t1] [data-testid=rc-belief]')).toHaveAttribute('data-needs-clarification', 'true');

  // The page shows what the log says, and the audit recomputes it in the browser.
  const id = page.url().split('/').pop();
  const detail = await (await request.get(`/api/debates/${id}`)).json();
  const beliefs = detail.events.filter((e: any) => e.type === 'belief');
  expect(beliefs).toHaveLength(5);
  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified', { timeout: 30_000 });
  await expect(page.getByTestId('verification')).toContainText('every belief');
  await expect(page.getByTestId('rc-topic')).toHaveCount(5);
});
