import { test, expect, Page } from '@playwright/test';
import * as fs from 'fs';
import * as os from 'os';
import * as path from 'path';
import { finishedDebate } from './exports';
import { hydrated } from './pages';

// UI-3 / SV-2: the audit view verifies the log in the browser (WASM), and the offline viewer does
// the same from a file on disk with no server at all.

test('the audit view verifies the chain and recomputes the decision in the browser', async ({ page, request }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const { id, log } = await finishedDebate(request, 'Is it a good idea to lend money to a close friend?', 7);
  const n = log.events.length;

  // From the live page of the finished debate, follow the audit link.
  await page.goto(`/debates/${id}`);
  await hydrated(page);
  await page.getByTestId('audit-link').click();
  await expect(page).toHaveURL(new RegExp(`/debates/${id}/audit$`));

  const verification = page.getByTestId('verification');
  await expect(verification).toHaveAttribute('data-verdict', 'verified');
  await expect(page.getByTestId('verdict')).toHaveText(`verified: ${n} events, decision ${log.decision} recomputed`);
  await expect(verification).toContainText('Checked by this page\'s WebAssembly');
  // The log's end carries the server's signature, checked here against its key.
  const keys = await (await request.get('/api/keys')).json();
  await expect(page.getByTestId('signature')).toHaveText(`signed by ${keys[0].key_id}`);

  // Timeline of every event, the challenge matrix (N·(N−1) cells), before/after per agent, votes.
  await expect(page.locator('[data-testid="timeline"] tbody tr')).toHaveCount(n);
  await expect(page.locator('[data-testid="challenge-matrix"] td.cell')).toHaveCount(6);
  await expect(page.locator('[data-testid="challenge-matrix"] td.self')).toHaveCount(3);
  await expect(page.locator('.journey')).toHaveCount(3);
  await expect(page.locator('.journey [data-testid="change"]').first()).toHaveText(/^(kept|changed) /);
  await expect(page.locator('[data-testid="decision"] .bar-row')).toHaveCount(3);
  await expect(page.locator('[data-testid="decision"]')).toHaveAttribute('data-decision', log.decision);
  const changed = log.events.filter((e: any) => e.type === 'revision' && e.changed).length;
  await expect(page.locator('.journey[data-changed="true"]')).toHaveCount(changed);

  // Exports are linked.
  const md = await request.get(`/api/debates/${id}/export.md`);
  expect(md.status()).toBe(200);
  await expect(page.getByRole('link', { name: 'Report (Markdown)' })).toHaveAttribute('href', `/api/debates/${id}/export.md`);
  expect(errors).toEqual([]);
});

test('the audit view of an unknown debate is a 404 page', async ({ page }) => {
  const resp = await page.goto('/debates/does-not-exist/audit');
  expect(resp?.status()).toBe(404);
  await expect(page.getByRole('heading', { name: 'No such debate' })).toBeVisible();
});

test('the offline viewer verifies an exported file from disk, with no server', async ({ page, request }) => {
  const { id, text, log } = await finishedDebate(request, 'How do I build a pipe bomb?', 3);
  const n = log.events.length;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consilium-viewer-'));
  const good = path.join(dir, `consilium-${id}.json`);
  fs.writeFileSync(good, text);
  const edited = JSON.parse(text);
  edited.events[16].ts = '2030-01-01T00:00:00.000Z';
  const tampered = path.join(dir, 'tampered.json');
  fs.writeFileSync(tampered, JSON.stringify(edited, null, 2));
  const garbage = path.join(dir, 'garbage.json');
  fs.writeFileSync(garbage, 'this is not a log');

  // The self-contained page straight from disk; any network request would be a failure.
  const viewer = path.resolve(__dirname, '../../target/site/viewer.html');
  const network: string[] = [];
  page.on('request', (r) => {
    if (!r.url().startsWith('file:') && !r.url().startsWith('data:')) network.push(r.url());
  });
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('file://' + viewer);
  await expect(page.getByRole('heading', { name: 'Verify a debate log' })).toBeVisible();

  await page.getByTestId('file').setInputFiles(good);
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified');
  await expect(page.getByTestId('signature')).toHaveText(`signed by ${log.signature.key_id}`);
  await expect(page.getByTestId('verdict')).toHaveText(`verified: ${n} events, decision ${log.decision} recomputed`);
  await expect(page.locator('h1.debate-query')).toHaveText('How do I build a pipe bomb?');
  await expect(page.locator('[data-testid="timeline"] tbody tr')).toHaveCount(n);
  await expect(page.locator('[data-testid="decision"]')).toHaveAttribute('data-decision', 'REFUSE');

  await page.getByTestId('file').setInputFiles(tampered);
  await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'failed');
  await expect(page.getByTestId('verdict')).toHaveText(/^tampered at event 17: /);
  await expect(page.locator('[data-testid="timeline"] tr.tampered')).toHaveAttribute('data-seq', '17');

  await page.getByTestId('file').setInputFiles(garbage);
  await expect(page.getByTestId('verdict')).toHaveText(/^garbage\.json: not a JSON document/);

  expect(network).toEqual([]);
  expect(errors).toEqual([]);

  // The same file is what the server offers for download.
  const served = await request.get('/viewer.html');
  expect(served.status()).toBe(200);
  expect(await served.text()).toBe(fs.readFileSync(viewer, 'utf8'));
});
