import { test, expect } from '@playwright/test';
import { execFileSync } from 'child_process';

/** Runs one SQL statement on the test server's SQLite file (Python's sqlite3, WAL-safe). */
function sql(statement: string) {
  execFileSync('python3', [
    '-c',
    'import sqlite3, sys; c = sqlite3.connect(sys.argv[1], timeout=10); c.execute(sys.argv[2]); c.commit()',
    process.env.E2E_DB!,
    statement,
  ]);
}

test('a full disk mid-debate shows the viewer why the debate stopped, not an endless reconnect', async ({ page, request }) => {
  const started = await request.post('/api/debates', {
    data: { query: 'Should we move the nightly backups to a new storage provider?' },
  });
  expect(started.status()).toBe(201);
  const { id } = await started.json();
  await page.goto(`/debates/${id}`);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  await expect(page.getByTestId('connection')).toHaveText('live');
  // Every further write to the log fails, as on a full disk.
  sql("CREATE TRIGGER e2e_full BEFORE INSERT ON events BEGIN SELECT RAISE(FAIL, 'database or disk is full'); END");
  try {
    await expect(page.getByTestId('stream-failed')).toContainText('could not store');
    await expect(page.getByTestId('stream-failed')).toContainText('disk is full');
    await expect(page.getByTestId('connection')).toHaveText('stream unavailable');
    await expect(page.getByTestId('reconnecting')).toHaveCount(0);
    // The page no longer claims the debate runs, nor that an agent is thinking.
    await expect(page.locator('.debate-meta .pill')).toHaveText('stopped');
    await expect(page.getByTestId('stage')).toContainText('Stopped');
    await expect(page.locator('.thinking-indicator', { hasText: 'thinking' })).toHaveCount(0);
  } finally {
    sql('DROP TRIGGER e2e_full');
  }
});
