import { test, expect, request as newRequest } from '@playwright/test';
import { spawn, ChildProcess } from 'child_process';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';

// A long log. A contested round-robin debate of 630 rounds (5,043 events, the
// same debate as the server's unit test `a_contested_debate_runs_to_a_high_round_limit_rr_3`)
// renders its audit view, hydrated and verified by the page's WebAssembly. The time is printed,
// not asserted. It runs on a server of its own with no pacing: at the suite's 200 ms per turn
// the debate alone would take six minutes.
const QUERY = 'Is this bubble stock with popular hype and rising losses a buy?';
const ROUNDS = 630;

let server: ChildProcess | undefined;
let base = '';
// The long debate, once the first test has run it.
let longId = '';

test.beforeAll(async () => {
  const port = Number(process.env.E2E_PORT ?? 3210) + 17;
  const db = path.join(os.tmpdir(), `consilium-e2e-long-${process.pid}.db`);
  for (const f of [db, `${db}-wal`, `${db}-shm`]) fs.rmSync(f, { force: true });
  base = `http://127.0.0.1:${port}`;
  server = spawn(process.env.CONSILIUM_BIN!, ['serve', '--addr', `127.0.0.1:${port}`, '--database-url', `sqlite:${db}`, '--pace-ms', '0'], {
    stdio: ['ignore', 'ignore', 'inherit'],
  });
  const api = await newRequest.newContext({ baseURL: base });
  await expect.poll(async () => (await api.get('/api/debates').catch(() => undefined))?.status(), { timeout: 30_000 }).toBe(200);
  await api.dispose();
});

test.afterAll(() => {
  server?.kill();
});

test('a 5,000-event log renders its audit view and verifies in the browser', async ({ page }) => {
  test.setTimeout(180_000);
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const api = await newRequest.newContext({ baseURL: base });
  const created = await api.post('/api/debates', {
    data: { query: QUERY, protocol: 'round_robin', seed: 7, config: { max_rounds: ROUNDS } },
  });
  expect(created.status(), await created.text()).toBe(201);
  const { id } = await created.json();
  await expect
    .poll(async () => (await (await api.get(`/api/debates/${id}`)).json()).status, { timeout: 120_000 })
    .toBe('finished');
  const log = await (await api.get(`/api/debates/${id}/export.json`)).json();
  // 8 events a round (its start, a thought and a turn per agent, the consensus check), and the
  // debate's own: the unit test counts 5,043 from the machine; the server adds its agent calls.
  const EVENTS = log.events.length;
  expect(EVENTS).toBeGreaterThan(5_000);
  await api.dispose();
  longId = id;

  // Navigation to a verified, hydrated page.
  const started = Date.now();
  await page.goto(`${base}/debates/${id}/audit`);
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified', { timeout: 60_000 });
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  const ms = Date.now() - started;
  const checked = await page.getByTestId('verification').locator('p.muted').textContent();
  console.log(`long log: ${EVENTS} events, audit view verified and hydrated ${ms} ms after navigation (${checked?.match(/in ([\d.]+ ms)/)?.[1]} of it verifying in WASM)`);
  await expect(page.getByTestId('verdict')).toHaveText(`verified: ${EVENTS} events, decision ${log.decision} recomputed`);
  await expect(page.getByTestId('decision')).toHaveAttribute('data-ending', 'round limit');

  // The timeline is paged: 200 rows at a time, every event reachable.
  await expect(page.getByRole('heading', { name: `Timeline · ${EVENTS.toLocaleString('en-US')} events` })).toBeVisible();
  const rows = page.locator('[data-testid="timeline"] tbody tr');
  await expect(rows).toHaveCount(200);
  await expect(rows.first()).toHaveAttribute('data-seq', '1');
  const pager = page.getByTestId('timeline-pager').first();
  await expect(pager.getByTestId('timeline-range')).toHaveText(`Events 1–200 of ${EVENTS.toLocaleString('en-US')}`);
  await pager.getByRole('button', { name: 'Later ›' }).click();
  await expect(rows.first()).toHaveAttribute('data-seq', '201');
  await pager.getByRole('button', { name: 'Last »' }).click();
  await expect(rows).toHaveCount(EVENTS % 200 || 200);
  await expect(rows.last()).toHaveAttribute('data-seq', String(EVENTS));
  await expect(rows.last()).toHaveClass(/k-decision/);
  await expect(pager.getByRole('button', { name: 'Later ›' })).toBeDisabled();

  // The round-robin panel shows the last rounds and turns, and all of them on request.
  const meters = page.locator('[data-testid="consensus-meter"] > li');
  await expect(meters).toHaveCount(20);
  await expect(meters.last()).toHaveAttribute('data-round', String(ROUNDS));
  const note = page.getByTestId('fold-note').first();
  await expect(note).toContainText(`Showing the last 20 of ${ROUNDS} rounds.`);
  await note.getByRole('button', { name: `Show all ${ROUNDS}` }).click();
  await expect(meters).toHaveCount(ROUNDS);
  await expect(page.locator('[data-testid="turn-timeline"] > li')).toHaveCount(60);
  expect(errors).toEqual([]);
});

test('the live page of a long debate holds its last rounds, not a section per planned round', async ({ page }) => {
  expect(longId, 'the long debate of the test above').not.toBe('');
  await page.goto(`${base}/debates/${longId}`);
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  await expect(page.locator('.round-head')).toHaveCount(20);
  await expect(page.locator('.round').last()).toHaveAttribute('data-round', String(ROUNDS));
  await expect(page.getByTestId('fold-note').last()).toContainText(`Showing the last 20 of ${ROUNDS} rounds.`);
});
