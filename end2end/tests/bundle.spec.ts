import { test, expect, Page } from '@playwright/test';
import { finishedDebate } from './exports';
import { hydrated } from './pages';

// The bundle is split per page. The home page fetches the main module and its own module
// only (what it shares with other pages is in the main module: vendor/wasm_split_cli_support); a
// page's own code (a module per lazy route, and chunks it shares) is fetched when the page is first
// shown — a server-rendered page preloads all of its chunks as one file (its pack), and a page
// reached by a link fetches the chunks it does not have yet, one by one.

// The bundle's files of the given kinds the page asks for from now on, in order.
function pkgFetched(page: Page, ...endings: string[]): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    const url = new URL(r.url());
    if (url.pathname.startsWith('/pkg/') && endings.some((e) => url.pathname.endsWith(e))) seen.push(url.pathname);
  });
  return seen;
}

const wasmFetched = (page: Page) => pkgFetched(page, '.wasm');

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
  // (xtask/src/hash.rs), kept by the browser for good.
  const fetched = [...new Set(seen)];
  const main = fetched.filter((p) => /^\/pkg\/consilium\.[0-9a-f]{16}\.wasm$/.test(p));
  expect(main).toHaveLength(1);
  const own = fetched.filter((p) => p !== main[0]);
  expect(own).toHaveLength(1);
  expect(own[0]).toMatch(/^\/pkg\/split___home_route_view_\d+\.[0-9a-f]{16}\.wasm$/);
  for (const file of fetched) expect(cached[file]).toBe('public, max-age=31536000, immutable');
  expect(cached['/pkg/consilium.css']).toBe('no-cache');

  // The debate list links to the live page: client-side navigation fetches its code, all new to
  // this page, as the live page's pack (named in pages.json, which the chunk loader reads once),
  // not chunk by chunk, and the page works (it shows the decision and links to the audit).
  seen.length = 0;
  const packs = pkgFetched(page, '.bin', '.json');
  await page.locator(`a[href="/debates/${id}"]`).first().click();
  await expect(page).toHaveURL(new RegExp(`/debates/${id}$`));
  await expect(page.getByTestId('audit-link')).toBeVisible();
  expect(packs).toEqual(['/pkg/pages.json', expect.stringMatching(/^\/pkg\/pack_live\.[0-9a-f]{16}\.bin$/)]);
  expect(seen).toEqual([]);

  // The audit page shares much of its code with the live page: what it lacks arrives chunk by
  // chunk on the click (its own module among them), and it verifies the log in this browser.
  packs.length = 0;
  await page.getByTestId('audit-link').click();
  await expect(page.getByTestId('verdict')).toHaveText(
    `verified: ${log.events.length} events, decision ${log.decision} recomputed`);
  expect(seen.some((p) => p.includes('audit_route'))).toBe(true);
  expect(seen).not.toContain(main[0]);
  expect(packs).toEqual([]);
  expect(errors).toEqual([]);
});

test('a server-rendered page preloads its chunks as one pack and hydrates with them', async ({ page, request }) => {
  const { id, log } = await finishedDebate(request, 'Is remote work better for junior engineers?', 12);
  const resp = await request.get(`/debates/${id}/audit`);
  const html = await resp.text();
  // Besides the main module (Leptos's own preload): one file holding every chunk of the page
  // (xtask/src/pack.rs), which the chunk loader finds by its id
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
  const packs = pkgFetched(page, '.bin');
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

test("a protocol's panel comes in its page's pack (an RR debate's audit page, not an S4 one's) or in its protocol's live bundle", async ({ page, request }) => {
  // app/src/ui/panels.rs: each protocol's panel is a split point of its own; the server preloads
  // the page's chunks with the panel's as one pack, names the panel in the page, and the browser
  // loads it before hydrating. A live page asked for by address takes its protocol's live
  // bundle instead, which holds that panel and no other (app::ui::Bundle).
  const created = await request.post('/api/debates', {
    data: { query: 'Should I buy index funds after a rally?', protocol: 'round_robin', seed: 4, config: { max_rounds: 2 } },
  });
  expect(created.status()).toBe(201);
  const { id } = await created.json();
  await expect
    .poll(async () => (await (await request.get(`/api/debates/${id}`)).json()).status, { timeout: 30_000 })
    .toBe('finished');
  const packOf = async (path: string) => {
    const html = await (await request.get(path)).text();
    const packs = [...html.matchAll(/<link [^>]*id="wasm-split-pack"[^>]*>/g)].map((m) => m[0]);
    expect(packs).toHaveLength(1);
    const panel = /<meta name="consilium-panel" content="([^"]+)"/.exec(html)?.[1] ?? null;
    return { pack: /href="([^"]+)"/.exec(packs[0])?.[1] ?? '', panel };
  };
  const rr = await packOf(`/debates/${id}/audit`);
  expect(rr.panel).toBe('rr_panel');
  expect(rr.pack).toMatch(/^\/pkg\/pack_audit-rr_panel\.[0-9a-f]{16}\.bin$/);
  const s4 = await finishedDebate(request, 'Should a bakery open on Mondays?', 13);
  const plain = await packOf(`/debates/${s4.id}/audit`);
  expect(plain.panel).toBeNull();
  expect(plain.pack).toMatch(/^\/pkg\/pack_audit\.[0-9a-f]{16}\.bin$/);
  // The RR page's pack is larger than the S4 page's by the panel's code.
  const size = async (path: string) => (await (await request.get(path, { headers: { 'Accept-Encoding': 'identity' } })).body()).length;
  expect(await size(rr.pack)).toBeGreaterThan(await size(plain.pack));
  // Its live page by address: the round-robin live bundle, no pack, no panel to name.
  const live = await (await request.get(`/debates/${id}`)).text();
  expect(live).toMatch(/<link rel="preload" href="\/pkg\/live-round_robin\.[0-9a-f]{16}\.wasm"/);
  expect(live).not.toContain('wasm-split-pack');
  expect(live).not.toContain('consilium-panel');

  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const seen = wasmFetched(page);
  await page.goto(`/debates/${id}`);
  await hydrated(page);
  // The panel was server-rendered and hydrated from code already loaded: a panel still loading
  // would not match the server's markup, and hydration would fail (a page error).
  await expect(page.getByTestId('trigger')).toHaveAttribute('data-triggered', /^(true|false)$/);
  await expect(page.getByTestId('turn-timeline')).toBeVisible();
  expect([...new Set(seen)]).toEqual([expect.stringMatching(/^\/pkg\/live-round_robin\.[0-9a-f]{16}\.wasm$/)]);

  // From the home page, a click to the RR debate: the live page's pack, then what the panel adds
  // to it as one more (pages.json `after`), no chunk alone.
  await page.goto('/');
  await hydrated(page);
  await page.waitForLoadState('networkidle');
  seen.length = 0;
  const fetched = pkgFetched(page, '.bin', '.json');
  await page.locator(`a[href="/debates/${id}"]`).first().click();
  await expect(page.getByTestId('turn-timeline')).toBeVisible();
  expect(fetched).toEqual([
    '/pkg/pages.json',
    expect.stringMatching(/^\/pkg\/pack_live\.[0-9a-f]{16}\.bin$/),
    expect.stringMatching(/^\/pkg\/pack_rr_panel-after-live\.[0-9a-f]{16}\.bin$/),
  ]);
  expect(seen).toEqual([]);
  expect(errors).toEqual([]);
});

test("an S4 debate's live page, asked for by address, is hydrated by the live bundle alone and follows the debate", async ({ page, request }) => {
  // The server gives such a page the live bundle (app::ui::hydrate_live): one module
  // holding the live view, without the router, the other pages or any protocol's panel. Its
  // props ride in the page once (`data-props`), not also as a serialised resource.
  const created = await request.post('/api/debates', {
    data: { query: 'Should a library lend power tools?', protocol: 's4', seed: 21 },
  });
  expect(created.status()).toBe(201);
  const { id } = await created.json();
  const html = await (await request.get(`/debates/${id}`)).text();
  expect(html).not.toContain('wasm-split-pack');
  expect(html).not.toContain('consilium-page');
  expect(html).toMatch(/<link rel="preload" href="\/pkg\/live-s4\.[0-9a-f]{16}\.wasm"/);
  expect(html).not.toMatch(/\/pkg\/consilium\.[0-9a-f]{16}\.wasm/);
  expect(html).toContain('class="live-island"');
  expect(html.split(' data-props="').length - 1).toBe(1);
  const query = 'Should a library lend power tools?';
  expect(html.split(query).length - 1).toBeLessThanOrEqual(4); // title, heading, props; not the log twice

  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const seen = pkgFetched(page, '.wasm', '.bin', '.json');
  await page.goto(`/debates/${id}`);
  await hydrated(page);
  // Live: the stream runs through the same reducer to the decision, in this bundle.
  await expect(page.getByTestId('connection')).toHaveText(/live|complete log/);
  await expect(page.getByTestId('stage')).toHaveText('Debate finished', { timeout: 30_000 });
  await expect(page.getByTestId('audit-link')).toBeVisible();
  expect([...new Set(seen)]).toEqual([expect.stringMatching(/^\/pkg\/live-s4\.[0-9a-f]{16}\.wasm$/)]);

  // A link out of it is an ordinary page load, with the site's bundle: the audit verifies.
  seen.length = 0;
  await page.getByTestId('audit-link').click();
  await expect(page).toHaveURL(new RegExp(`/debates/${id}/audit$`));
  await hydrated(page);
  await expect(page.getByTestId('verdict')).toHaveText(/^verified: \d+ events, decision (ACT|WARN|REFUSE) recomputed$/);
  expect(seen.some((p) => /^\/pkg\/consilium\.[0-9a-f]{16}\.wasm$/.test(p))).toBe(true);
  expect(errors).toEqual([]);
});
