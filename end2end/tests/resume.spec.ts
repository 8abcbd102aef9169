import { test, expect, Page, APIRequestContext } from '@playwright/test';
import * as net from 'net';

// SV-3: a live page that loses its connection shows it, recovers by itself, and ends with exactly
// the events of the log — no gap, no duplicate. The connection runs through a TCP proxy the test
// can cut, which answers 502 while "down", like a reverse proxy whose backend is restarting.

class CuttableProxy {
  private server!: net.Server;
  private sockets = new Set<net.Socket>();
  private down = false;
  port = 0;

  constructor(private target: number) {}

  async start() {
    this.server = net.createServer((client) => {
      this.sockets.add(client);
      client.on('close', () => this.sockets.delete(client));
      client.on('error', () => client.destroy());
      if (this.down) {
        client.once('data', () =>
          client.end('HTTP/1.1 502 Bad Gateway\r\ncontent-length: 0\r\nconnection: close\r\n\r\n'));
        return;
      }
      const upstream = net.connect(this.target, '127.0.0.1');
      this.sockets.add(upstream);
      upstream.on('close', () => { this.sockets.delete(upstream); client.destroy(); });
      upstream.on('error', () => upstream.destroy());
      client.on('close', () => upstream.destroy());
      client.pipe(upstream);
      upstream.pipe(client);
    });
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.port = (this.server.address() as net.AddressInfo).port;
  }

  cut() {
    this.down = true;
    for (const s of this.sockets) s.destroy();
  }

  restore() {
    this.down = false;
  }

  async stop() {
    for (const s of this.sockets) s.destroy();
    await new Promise((ok) => this.server.close(ok));
  }
}

const serverPort = Number(process.env.E2E_PORT ?? 3210);

async function startDebate(request: APIRequestContext, query: string) {
  const created = await request.post('/api/debates', { data: { query, seed: 5 } });
  expect(created.status()).toBe(201);
  return (await created.json()).id as string;
}

/** The cards on the page, in order, as (sequence number, tone) pairs. */
async function cards(page: Page) {
  return page.locator('.card').evaluateAll((els) =>
    els.map((e) => `${e.getAttribute('data-seq')}:${e.getAttribute('data-tone')}`));
}

/** What a fresh load of the finished log shows: the reference a live page must equal. */
async function reference(page: Page, url: string) {
  const fresh = await page.context().newPage();
  await fresh.goto(url);
  await expect(fresh.getByTestId('decision')).toBeVisible();
  const list = await cards(fresh);
  await fresh.close();
  return list;
}

test('a cut connection shows a reconnecting banner and recovers with exactly the missing events', async ({ page, request }) => {
  const proxy = new CuttableProxy(serverPort);
  await proxy.start();
  try {
    const id = await startDebate(request, 'Should I put all my savings into bitcoin?');
    const url = `http://127.0.0.1:${proxy.port}/debates/${id}`;
    await page.goto(url);
    await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
    await expect(page.getByTestId('connection')).toHaveText('live');
    await expect(page.locator('.card').nth(1)).toBeVisible();
    expect(await page.getByTestId('decision').count()).toBe(0);

    proxy.cut();
    await expect(page.getByTestId('reconnecting')).toBeVisible();
    await expect(page.getByTestId('connection')).toHaveText('reconnecting…');
    const during = (await cards(page)).length;
    await page.waitForTimeout(3_500); // the debate goes on; the browser's retries get 502s
    expect((await cards(page)).length).toBe(during);

    proxy.restore();
    await expect(page.getByTestId('decision')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('reconnecting')).toHaveCount(0);
    await expect(page.getByTestId('connection')).toHaveText('complete log');
    const live = await cards(page);
    expect(live).toHaveLength(3 + 6 + 3 + 3);
    expect(live).toEqual(await reference(page, url));
  } finally {
    await proxy.stop();
  }
});

test('reloading a live debate resumes from the cursor without gaps or duplicates', async ({ page, request }) => {
  const id = await startDebate(request, 'How much ibuprofen can I take for a bad headache?');
  await page.goto(`/debates/${id}`);
  await expect(page.locator('.card').nth(2)).toBeVisible();
  expect(await page.getByTestId('decision').count()).toBe(0);

  await page.reload();
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  await expect(page.getByTestId('decision')).toBeVisible();
  const live = await cards(page);
  expect(live).toHaveLength(3 + 6 + 3 + 3);
  expect(new Set(live).size).toBe(live.length);
  expect(live).toEqual(await reference(page, `/debates/${id}`));
});
