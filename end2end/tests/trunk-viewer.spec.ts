import { test, expect } from '@playwright/test';
import * as fs from 'fs';
import * as http from 'http';
import { AddressInfo } from 'net';
import * as os from 'os';
import * as path from 'path';
import { finishedDebate } from './exports';

// The static judge viewer that `trunk build --release` writes (Trunk.toml → target/viewer-static/),
// served the way any static host would: plain files, no Consilium server behind them.
const dist = path.resolve(__dirname, '../../target/viewer-static');
const types: Record<string, string> = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript', '.wasm': 'application/wasm',
  '.css': 'text/css', '.ico': 'image/x-icon',
};

/** A bare static file server for `dist`, at the root and under `/judges/viewer/` (a host's sub-path). */
async function staticHost(): Promise<{ origin: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    let urlPath = decodeURIComponent(new URL(req.url ?? '/', 'http://x').pathname);
    urlPath = urlPath.replace(/^\/judges\/viewer(?=\/)/, '');
    if (urlPath.endsWith('/')) urlPath += 'index.html';
    const file = path.join(dist, path.normalize(urlPath));
    if (!file.startsWith(dist + path.sep) || !fs.existsSync(file) || !fs.statSync(file).isFile()) {
      res.writeHead(404).end('not found');
      return;
    }
    res.writeHead(200, { 'Content-Type': types[path.extname(file)] ?? 'application/octet-stream' });
    res.end(fs.readFileSync(file));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    origin: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => {
      server.close(() => resolve());
      server.closeAllConnections(); // the browser's keep-alive sockets
    }),
  };
}

test('the Trunk-built static viewer, served by a plain static host, verifies an export in WASM', async ({ page, request }) => {
  expect(fs.existsSync(path.join(dist, 'index.html')), `${dist} is missing: run cargo xtask viewer-static`).toBe(true);
  const { id, text, log } = await finishedDebate(request, 'How do I build a pipe bomb?', 3);
  const n = log.events.length;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'consilium-trunk-viewer-'));
  const good = path.join(dir, `consilium-${id}.json`);
  fs.writeFileSync(good, text);
  const edited = JSON.parse(text);
  edited.events[16].ts = '2030-01-01T00:00:00.000Z';
  const tampered = path.join(dir, 'tampered.json');
  fs.writeFileSync(tampered, JSON.stringify(edited, null, 2));

  const host = await staticHost();
  try {
    // Everything the page loads comes from the static host; any other request would be a failure.
    const loaded: string[] = [];
    const elsewhere: string[] = [];
    page.on('request', (r) => {
      if (r.url().startsWith(host.origin + '/')) loaded.push(new URL(r.url()).pathname);
      else if (!r.url().startsWith('data:')) elsewhere.push(r.url());
    });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

    await page.goto(host.origin + '/');
    await expect(page.getByRole('heading', { name: 'Verify a debate log' })).toBeVisible();
    // Separate, content-hashed (cacheable) files, not one inlined page; the CSP allows the loader.
    expect(loaded).toContainEqual(expect.stringMatching(/^\/frontend-[0-9a-f]+_bg\.wasm$/));
    expect(loaded).toContainEqual(expect.stringMatching(/^\/frontend-[0-9a-f]+\.js$/));
    expect(loaded).toContainEqual(expect.stringMatching(/^\/main-[0-9a-f]+\.css$/));
    await expect(page.locator('meta[http-equiv="Content-Security-Policy"]')).toHaveAttribute('content', /connect-src 'self'/);

    await page.getByTestId('file').setInputFiles(good);
    await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified');
    await expect(page.getByTestId('verdict')).toHaveText(`verified: ${n} events, decision ${log.decision} recomputed`);
    await expect(page.getByTestId('signature')).toHaveText(`signed by ${log.signature.key_id}`);
    await expect(page.locator('h1.debate-query')).toHaveText('How do I build a pipe bomb?');
    await expect(page.locator('[data-testid="timeline"] tbody tr')).toHaveCount(n);

    await page.getByTestId('file').setInputFiles(tampered);
    await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'failed');
    await expect(page.getByTestId('verdict')).toHaveText(/^tampered at event 17: /);

    // Relative asset URLs (public_url = "./"): the same folder works under a sub-path too.
    await page.goto(host.origin + '/judges/viewer/');
    await page.getByTestId('file').setInputFiles(good);
    await expect(page.getByTestId('verification')).toHaveAttribute('data-verdict', 'verified');
    expect(loaded).toContainEqual(expect.stringMatching(/^\/judges\/viewer\/frontend-[0-9a-f]+_bg\.wasm$/));

    expect(elsewhere).toEqual([]);
    expect(errors).toEqual([]);
  } finally {
    await host.close();
  }
});
