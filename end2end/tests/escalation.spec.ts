import { test, expect, Page } from '@playwright/test';
import { provisionalPipeline, signInAsJudge } from './judges';
import { hydrated } from './pages';

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
  // It climbs: agents → facilitator → judge → provisional fallback (level 4) → and, once the
  // pipeline decides, the gate (level 5), where judges review it.
  await expect(challenge).toHaveAttribute('data-level', '5', { timeout: 60_000 });
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
  await expect(page.getByTestId('ladder').getByTestId('challenge')).toHaveAttribute('data-level', '5');
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified', { timeout: 30_000 });
});

test('ES-7: a signed-in judge rules on the challenge it holds, and the live page follows', async ({ page, request }) => {
  await signInAsJudge(page, 'es-judge');

  // A minute a second: a judge holds the challenge for six minutes unless they rule.
  const r = await request.post('/api/debates', {
    data: { query: 'Should we buy Acme at $80 after its cost programme lifts margins?', protocol: 'escalation', time_scale: 60, seed: 5 },
  });
  expect(r.status(), await r.text()).toBe(201);
  const { id } = await r.json();
  await page.goto(`/debates/${id}`);
  await hydrated(page);
  const challenge = page.getByTestId('challenge');
  await expect(challenge).toHaveAttribute('data-level', '3', { timeout: 30_000 });
  await expect(challenge.getByTestId('stage')).toContainText('held by judge');
  // The judge's six hours count down on the page (a minute per wall second).
  await expect(challenge.getByTestId('timer')).toContainText(/[56] h( \d+ min)? left/);

  const form = challenge.getByTestId('rule-form');
  await form.getByTestId('rule-value').fill('26.5');
  await form.getByTestId('rule-override').click();
  await expect(form.getByRole('alert')).toContainText('rationale');
  await form.getByTestId('rule-text').fill('Q3 guidance: 26-27 %');
  await form.getByTestId('rule-override').click();

  await expect(challenge).toHaveAttribute('data-status', 'resolved', { timeout: 30_000 });
  await expect(challenge.getByTestId('resolution')).toContainText('26.5 %');
  await expect(challenge.getByTestId('resolution')).toContainText('ruled by judge es-judge');
  const decision = page.getByTestId('decision');
  await expect(decision).toBeVisible({ timeout: 30_000 });
  await expect(decision).toHaveAttribute('data-provisional', '0');
  await expect(page.getByTestId('assumptions')).toContainText('26.5 %');

  const detail = await (await request.get(`/api/debates/${id}`)).json();
  const ruling = detail.events.find((e: any) => e.type === 'judge_ruling');
  expect(ruling).toMatchObject({ judge: 'es-judge', level: 3, action: 'override', value: 0.265 });
});

test('ES-7/ES-8: at the gate a judge sees an override\'s impact before confirming it, and the analyses re-run live', async ({ page, request }) => {
  await signInAsJudge(page, 'gate-judge');

  // A day per second: a judge's six hours pass in a quarter second, so the margin dispute
  // falls back to the cautious 25 % and the pipeline decides with it provisional.
  const id = await provisionalPipeline(request);
  await page.goto(`/debates/${id}`);
  await hydrated(page);
  await expect(page.getByTestId('decision').getByTestId('provisional-count')).toHaveText('1 provisional decision requires review at the gate.');
  const challenge = page.getByTestId('challenge');
  await expect(challenge).toHaveAttribute('data-status', 'provisional');

  // L5: confirm, override, or send it back to the agents.
  const form = challenge.getByTestId('rule-form');
  await expect(form.getByTestId('rule-confirm')).toBeVisible();
  await expect(form.getByTestId('rule-redebate')).toBeVisible();
  await form.getByTestId('rule-value').fill('28');
  // ES-8 before confirming: seed 000's example, 25 % → 28 % moves the DCF target over 10 %.
  const preview = form.getByTestId('impact-preview');
  await expect(preview).toContainText('If operating margin becomes 28.0 %:');
  await expect(preview).toContainText(/dcf: \$[\d.]+ → \$[\d.]+ \(moves \d+\.\d %\) — re-run/);
  await expect(preview.getByTestId('rerun-plan')).toContainText('Re-run plan');
  await form.getByTestId('rule-text').fill('The cost programme is contracted');
  await form.getByTestId('rule-override').click();

  // The page follows the log past its first decision: the review, the re-runs, the new decision.
  await expect(challenge).toHaveAttribute('data-status', 'resolved', { timeout: 30_000 });
  await expect(challenge.getByTestId('resolution')).toContainText('28.0 %');
  await expect(challenge.getByTestId('resolution')).toContainText('overridden by judge gate-judge');
  await expect(page.getByTestId('gate-review')).toContainText('Judge gate-judge overrode CH-001 (operating margin): 25.0 % → 28.0 %');
  await expect(page.getByTestId('reran')).toContainText('dcf');
  await expect(page.getByTestId('decision')).toHaveAttribute('data-provisional', '0');
  await expect(page.getByTestId('assumptions')).toContainText('28.0 %');
  await expect(page.getByTestId('assumptions')).not.toContainText('provisional');

  const detail = await (await request.get(`/api/debates/${id}`)).json();
  const types = detail.events.map((e: any) => e.type);
  expect(types.filter((t: string) => t === 'decision')).toHaveLength(2);
  expect(types).toContain('impact');
  expect(types[types.length - 1]).toBe('decision');
  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified', { timeout: 30_000 });
});

test('ES-7: at the gate a judge sends the decided pipeline back to its agents with added context, and the page follows it to a new decision', async ({ page, request }) => {
  await signInAsJudge(page, 'redebate-judge');

  const id = await provisionalPipeline(request);
  await page.goto(`/debates/${id}`);
  await hydrated(page);
  const challenge = page.getByTestId('challenge');
  await expect(challenge).toHaveAttribute('data-status', 'provisional');
  const form = challenge.getByTestId('rule-form');
  await form.getByTestId('rule-text').fill('The supply contract fixes the margin at 26 %');
  await form.getByTestId('rule-redebate').click();

  // The agents are asked again: the owner takes the contract's figure, the reviewer accepts it,
  // and a new decision ends the log with nothing provisional.
  await expect(challenge).toHaveAttribute('data-status', 'resolved', { timeout: 30_000 });
  await expect(challenge.getByTestId('resolution')).toContainText('26.0 %');
  await expect(challenge.getByTestId('resolution')).toContainText('accepted by the challenger');
  await expect(page.getByTestId('decision')).toHaveAttribute('data-provisional', '0');
  await expect(page.getByTestId('assumptions')).toContainText('26.0 %');

  const detail = await (await request.get(`/api/debates/${id}`)).json();
  expect(detail.status).toBe('finished');
  const ruling = detail.events.find((e: any) => e.type === 'judge_ruling');
  expect(ruling).toMatchObject({ judge: 'redebate-judge', level: 5, action: 'redebate', context: 'The supply contract fixes the margin at 26 %' });
  expect(detail.events.filter((e: any) => e.type === 'decision')).toHaveLength(2);
  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified', { timeout: 30_000 });
});
