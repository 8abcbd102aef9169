import { test, expect, Page } from '@playwright/test';
import { finishedDebate } from './exports';
import { hydrated } from './pages';

// Issue 17: the bundle is split per page. The home page fetches the main module and its own module
// only (what it shares with other pages is in the main module: vendor/wasm_split_cli_support); a
// page's own code (a module per lazy route, and chunks it shares) is fetched when the page is first
// shown — a server-rendered page preloads all of its chunks as one file (its pack), and a page
// reached by a link fetches the chunks it does not have yet, one by one.

function wasmFetched(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/pkg/') && url.pathname.endsWith('.wasm')) seen.push(url.pathname);
  });
  return seen;
}

test('the home page loads the main module and its own; the audit page fetches its chunks when shown', async ({ page, request }) => {
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const { id, log } = await finishedDebate(request, 'Should a small team adopt a four-day work week?', 11);
  const seen = wasmFetched(page);

  const cached: Record<string, string> = {};
  page.on('response', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/pkg/')) cached[url.pathname] = r.headers()['cache-control'] ?? '';
  });
  await page.goto('/');
  await hydrated(page);
  await page.waitForLoadState('networkidle');
  // The main module and the home page's module, no chunk: two files under the bundle's hash
  // (scripts/hash-bundle.py), kept by the browser for good.
  const fetched = [...new Set(seen)];
  const main = fetched.filter((p) => /^\/pkg\/consilium\.[0-9a-f]{16}\.wasm$/.test(p));
  expect(main).toHaveLength(1);
  const own = fetched.filter((p) => p !== main[0]);
  expect(own).toHaveLength(1);
  expect(own[0]).toMatch(/^\/pkg\/split___home_route_view_\d+\.[0-9a-f]{16}\.wasm$/);
  for (const file of fetched) expect(cached[file]).toBe('public, max-age=31536000, immutable');
  expect(cached['/pkg/consilium.css']).toBe('no-cache');

  // The debate list links to the live page: client-side navigation fetches its chunks, and the
  // page works (it shows the finished debate's decision and links to the audit).
  seen.length = 0;
  await page.locator(`a[href="/debates/${id}"]`).first().click();
  await expect(page).toHaveURL(new RegExp(`/debates/${id}$`));
  await expect(page.getByTestId('audit-link')).toBeVisible();
  expect(seen.length).toBeGreaterThan(0);
  expect(seen).not.toContain(main[0]);

  // The audit page's own chunk arrives on the click, and it verifies the log in this browser.
  seen.length = 0;
  await page.getByTestId('audit-link').click();
  await expect(page.getByTestId('verdict')).toHaveText(
    `verified: ${log.events.length} events, decision ${log.decision} recomputed`);
  expect(seen.some((p) => p.includes('audit_route'))).toBe(true);
  expect(errors).toEqual([]);
});

test('a server-rendered page preloads its chunks as one pack and hydrates with them', async ({ page, request }) => {
  const { id, log } = await finishedDebate(request, 'Is remote work better for junior engineers?', 12);
  const resp = await request.get(`/debates/${id}/audit`);
  const html = await resp.text();
  // Besides the main module (Leptos's own preload): one file holding every chunk of the page
  // (scripts/pack-pages.py), which the chunk loader finds by its id
  // (vendor/wasm_split_cli_support/PATCH.md); no chunk preloaded on its own.
  const preloads = [...html.matchAll(/<link [^>]*>/g)]
    .map((m) => m[0])
    .filter((link) => link.includes('rel="preload"'))
    .filter((link) => !/href="\/pkg\/consilium\.[0-9a-f]{16}\.wasm"/.test(link));
  expect(preloads).toHaveLength(1);
  expect(preloads[0]).toContain('id="wasm-split-pack"');
  // The chunk loader is fetched beside the main module's glue, not after it.
  const modules = [...html.matchAll(/<link [^>]*>/g)]
    .map((m) => m[0])
    .filter((link) => link.includes('rel="modulepreload"'));
  expect(modules.some((link) => /href="\/pkg\/__wasm_split\.[0-9a-f]{16}\.js"/.test(link))).toBe(true);
  const pack = /href="([^"]+)"/.exec(preloads[0])?.[1] ?? '';
  expect(pack).toMatch(/^\/pkg\/pack_audit\.[0-9a-f]{16}\.bin$/);
  // Sent as the brotli written at build time, kept by the browser for good.
  const packed = await request.get(pack, { headers: { 'Accept-Encoding': 'br' } });
  expect(packed.status()).toBe(200);
  expect(packed.headers()['content-encoding']).toBe('br');
  expect(packed.headers()['cache-control']).toBe('public, max-age=31536000, immutable');

  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const seen = wasmFetched(page);
  const packs: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.endsWith('.bin')) packs.push(url.pathname);
  });
  await page.goto(`/debates/${id}/audit`);
  await hydrated(page);
  await expect(page.getByTestId('verdict')).toHaveText(
    `verified: ${log.events.length} events, decision ${log.decision} recomputed`);
  // The page's ~30 chunks came in the pack: the only module fetched alone is the main one, and
  // the pack is fetched once (the loader's fetch takes the preloaded response).
  expect([...new Set(seen)]).toEqual([expect.stringMatching(/^\/pkg\/consilium\.[0-9a-f]{16}\.wasm$/)]);
  expect(packs).toEqual([pack]);
  expect(errors).toEqual([]);
});
