import { test, expect } from '@playwright/test';
import { mkdirSync, writeFileSync } from 'fs';
import { join } from 'path';

const sample = (answer: string, correct: boolean) => ({ answer, correct, tokens: 40 });

test('QL-2: /eval shows a saved run as a table and a bar chart with intervals', async ({ page, request }) => {
  // A run as `consilium eval` saves it: 2 items, 3 agents × 2 rounds, 2 samples.
  const right = () => sample('4', true);
  const wrong = () => sample('5', false);
  const run = {
    config: {
      task_set: 'arithmetic', seed: 2026, items: 2, agents: 3, rounds: 2, samples: 2,
      model: 'playwright-model', endpoint: 'http://127.0.0.1:1', temperature: 0.7, max_tokens: 100,
    },
    started_at: '2026-11-23T10:00:00.000Z',
    updated_at: '2026-11-23T10:01:00.000Z',
    wall_ms: 60000,
    items: [
      { id: '1', question: 'q1', answer: '4', single: right(), samples: [right(), wrong()],
        debate: [[right(), right(), wrong()], [wrong(), wrong(), right()]] },
      { id: '2', question: 'q2', answer: '4', single: wrong(), samples: [wrong(), wrong()],
        debate: [[wrong(), right(), wrong()], [right(), right(), right()]] },
    ],
  };
  const dir = process.env.E2E_EVAL_DIR!;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'arithmetic-e2e.json'), JSON.stringify(run));

  const api = await (await request.get('/api/eval')).json();
  const saved = api.find((r: any) => r.file === 'arithmetic-e2e.json');
  expect(saved.report.cells.map((c: any) => c.correct)).toEqual([1, 1, 1]);

  await page.goto('/eval');
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  const panel = page.locator('[data-testid="eval-run"][data-file="arithmetic-e2e.json"]');
  await expect(panel).toContainText('playwright-model');
  const rows = panel.getByTestId('eval-table').locator('tbody tr');
  await expect(rows).toHaveCount(3);
  await expect(rows.nth(0)).toContainText('one agent');
  await expect(rows.nth(0)).toContainText('50.0 %');
  await expect(rows.nth(2)).toContainText('debate (3 agents × 2 rounds)');
  await expect(panel.getByTestId('eval-chart').locator('rect')).toHaveCount(3);
  await expect(panel.getByTestId('eval-rounds').locator('tbody tr')).toHaveCount(2);
  await expect(panel.getByTestId('talked-out')).toContainText('1 item; talked into one: 1');
});
