import { test, expect, Page } from '@playwright/test';
import { provisionalPipeline, signInAsJudge } from './judges';
import { hydrated } from './pages';

test('UI-4: the judges\' desk lists what waits at the gate with both positions, the impact and precedents; a judge confirms from it', async ({ page, request }) => {
  // Not a judge: the desk says so and points to the sign-in.
  await page.goto('/judge');
  await hydrated(page);
  await expect(page.getByTestId('desk-refused')).toContainText('judge');

  await signInAsJudge(page, 'desk-judge');

  const first = await provisionalPipeline(request);
  const second = await provisionalPipeline(request);
  await page.getByTestId('desk-link').click();
  await expect(page).toHaveURL(/\/judge$/);
  await hydrated(page);
  await expect(page.getByTestId('desk-loads')).toContainText('desk-judge 0 / 3');

  const kase = (id: string) => page.locator(`[data-testid="desk-case"][data-debate="${id}"]`);
  const a = kase(first);
  await expect(a).toHaveAttribute('data-kind', 'gate');
  await expect(a).toHaveAttribute('data-challenge', 'CH-001');
  await expect(a.getByTestId('desk-kind')).toContainText('Awaiting review at the gate');
  // Both positions side by side, the applied (cautious) one marked, with the agents' record.
  const challenger = a.locator('[data-testid="desk-side"][data-role="challenger"]');
  const challenged = a.locator('[data-testid="desk-side"][data-role="challenged"]');
  await expect(challenger).toContainText('Valuation Agent');
  await expect(challenger).toContainText('25.0 % (applied)');
  await expect(challenged).toContainText('Financial Agent');
  await expect(challenged).toContainText('28.0 %');
  await expect(challenged).toContainText('credibility');
  // ES-8: what taking the other position would change, before anyone acts.
  await expect(a.getByTestId('desk-impact')).toContainText('Taking the other position (28.0 %):');
  await expect(a.getByTestId('desk-impact')).toContainText(/dcf: .* — re-run/);

  // The judge confirms the first from the desk; it leaves the desk and becomes a precedent
  // for the second.
  await a.getByTestId('rule-confirm').click();
  await expect(a).toHaveCount(0, { timeout: 30_000 });
  const b = kase(second);
  await expect(b.getByTestId('precedents')).toContainText(`CH-001 in ${first}: 25.0 % — confirmed by judge desk-judge`);

  // The first pipeline's log has the review, and its live page shows it resolved.
  const detail = await (await request.get(`/api/debates/${first}`)).json();
  const ruling = detail.events.find((e: any) => e.type === 'judge_ruling');
  expect(ruling).toMatchObject({ judge: 'desk-judge', action: 'confirm', level: 5 });
  await page.goto(`/debates/${first}`);
  await hydrated(page);
  await expect(page.getByTestId('challenge')).toHaveAttribute('data-status', 'resolved');
  await expect(page.getByTestId('decision')).toHaveAttribute('data-provisional', '0');
});

test('ES-12: a collapse debate escalated to a human waits on the desk, and a judge decides it on its page', async ({ page, request }) => {
  await signInAsJudge(page, 'wc-judge');

  const r = await request.post('/api/debates', {
    data: { query: 'Disable authentication on the internal admin API to speed up debugging', protocol: 'collapse', seed: 4 },
  });
  expect(r.status(), await r.text()).toBe(201);
  const { id } = await r.json();
  await expect
    .poll(async () => (await (await request.get(`/api/debates/${id}`)).json()).decision, { timeout: 60_000 })
    .toBe('ESCALATED_TO_HUMAN');

  await page.goto('/judge');
  await hydrated(page);
  const waiting = page.locator(`[data-testid="desk-escalated"][data-debate="${id}"]`);
  await expect(waiting).toContainText('Escalated to a human');
  await waiting.getByRole('link', { name: 'Choose a position on its page →' }).click();
  await expect(page).toHaveURL(new RegExp(`/debates/${id}$`));
  await hydrated(page);

  const form = page.getByTestId('human-decision');
  await expect(form).toContainText('Waiting for a judge');
  await form.getByTestId('decide').click();
  await expect(form.getByRole('alert')).toContainText('rationale');
  await form.getByTestId('decide-position').selectOption({ index: 1 });
  const chosen = await form.getByTestId('decide-position').inputValue();
  await form.getByTestId('decide-text').fill('Keep authentication; debug with a scoped token');
  await form.getByTestId('decide').click();

  // The page follows the log past the escalation: the judge's decision replaces it.
  const decision = page.getByTestId('decision');
  await expect(decision).toHaveAttribute('data-decision', 'DECIDED_BY_JUDGE', { timeout: 30_000 });
  await expect(decision.getByTestId('chosen')).toHaveText(chosen);
  await expect(decision).toContainText('Decided by judge wc-judge: Keep authentication; debug with a scoped token');
  await expect(form).toHaveCount(0);
  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified', { timeout: 30_000 });
});
