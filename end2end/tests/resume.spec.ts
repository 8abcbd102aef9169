import { test, expect, Page, APIRequestContext } from '@playwright/test';
import * as net from 'net';
import * as os from 'os';
import * as path from 'path';
import { spawn, ChildProcess } from 'child_process';

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

/**
 * Its own server, paced like the real default (600 ms per agent message), so a debate stays live
 * for several seconds however slow the machine is.
 */
class SlowServer {
  private child!: ChildProcess;
  base = '';
  port = 0;

  async start() {
    const bin = process.env.CONSILIUM_BIN ?? path.resolve(__dirname, '../../target/debug/consilium');
    const db = path.join(os.tmpdir(), `consilium-e2e-slow-${process.pid}-${Date.now()}.db`);
    this.child = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--database-url', `sqlite:${db}`, '--pace-ms', '600'],
      { env: { ...process.env, NO_COLOR: '1', RUST_LOG: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
    this.base = await new Promise<string>((ok, fail) => {
      let seen = '';
      this.child.stdout!.on('data', (chunk) => {
        seen += chunk.toString();
        const m = seen.match(/listening on (http:\/\/[0-9.:]+)/);
        if (m) ok(m[1]);
      });
      this.child.on('exit', (code) => fail(new Error(`server exited with ${code}: ${seen}`)));
    });
    this.port = Number(new URL(this.base).port);
  }

  stop() {
    this.child.kill('SIGKILL');
  }
}

async function startDebate(request: APIRequestContext, base: string, query: string) {
  const created = await request.post(`${base}/api/debates`, { data: { query, seed: 5 } });
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
  const server = new SlowServer();
  await server.start();
  const proxy = new CuttableProxy(server.port);
  await proxy.start();
  try {
    const id = await startDebate(request, server.base, 'Should I refinance my mortgage this year?');
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
    await page.waitForTimeout(3_000); // the debate goes on; the browser's retries get 502s
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
    server.stop();
  }
});

test('reloading a live debate resumes from the cursor without gaps or duplicates', async ({ page, request }) => {
  const server = new SlowServer();
  await server.start();
  try {
    await reloadWhileLive(page, request, server.base);
  } finally {
    server.stop();
  }
});

async function reloadWhileLive(page: Page, request: APIRequestContext, base: string) {
  const id = await startDebate(request, base, 'How much ibuprofen can I take for a bad headache?');
  await page.goto(`${base}/debates/${id}`);
  await expect(page.locator('.card').nth(2)).toBeVisible();
  expect(await page.getByTestId('decision').count()).toBe(0);

  await page.reload();
  await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
  await expect(page.getByTestId('decision')).toBeVisible();
  const live = await cards(page);
  expect(live).toHaveLength(3 + 6 + 3 + 3);
  expect(new Set(live).size).toBe(live.length);
  expect(live).toEqual(await reference(page, `${base}/debates/${id}`));
}

/** A free TCP port on loopback, to start a server on again after it was killed. */
async function freePort(): Promise<number> {
  const probe = net.createServer();
  await new Promise<void>((ok) => probe.listen(0, '127.0.0.1', ok));
  const port = (probe.address() as net.AddressInfo).port;
  await new Promise((ok) => probe.close(ok));
  return port;
}

/** A paced server on `port` over the SQLite file `db`, ready when it says where it listens. */
async function serveOn(port: number, db: string): Promise<ChildProcess> {
  const bin = process.env.CONSILIUM_BIN ?? path.resolve(__dirname, '../../target/debug/consilium');
  const child = spawn(bin, ['serve', '--addr', `127.0.0.1:${port}`, '--database-url', `sqlite:${db}`, '--pace-ms', '600'],
    { env: { ...process.env, NO_COLOR: '1', RUST_LOG: 'info' }, stdio: ['ignore', 'pipe', 'inherit'] });
  await new Promise<void>((ok, fail) => {
    let seen = '';
    child.stdout!.on('data', (chunk) => {
      seen += chunk.toString();
      if (seen.includes('listening on')) ok();
    });
    child.on('exit', (code) => fail(new Error(`server exited with ${code}: ${seen}`)));
  });
  return child;
}

// RS-1/RS-2: the server is killed (`kill -9`) mid-debate and started again on the same file and
// port; the open page reconnects by itself, sees the debate go on from its log to the decision
// with every event once, and says that it was resumed.
test('a live page follows a debate across a server restart and says it resumed', async ({ page, request }) => {
  const port = await freePort();
  const base = `http://127.0.0.1:${port}`;
  const db = path.join(os.tmpdir(), `consilium-e2e-restart-${process.pid}-${Date.now()}.db`);
  let server = await serveOn(port, db);
  try {
    const id = await startDebate(request, base, 'Should we move the office to Lisbon next spring?');
    await page.goto(`${base}/debates/${id}`);
    await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();
    await expect(page.locator('.card').nth(1)).toBeVisible();
    expect(await page.getByTestId('decision').count()).toBe(0);

    server.kill('SIGKILL');
    await expect(page.getByTestId('connection')).toHaveText('reconnecting…');
    server = await serveOn(port, db);

    await expect(page.getByTestId('decision')).toBeVisible({ timeout: 30_000 });
    await expect(page.getByTestId('resumed')).toHaveCount(1);
    await expect(page.getByTestId('resumed')).toContainText('resumed from its log');
    const live = await cards(page);
    expect(live).toHaveLength(3 + 6 + 3 + 3);
    expect(new Set(live).size).toBe(live.length);
    expect(live).toEqual(await reference(page, `${base}/debates/${id}`));
  } finally {
    server.kill('SIGKILL');
  }
});
