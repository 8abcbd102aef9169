import { test, expect } from '@playwright/test';
import * as http from 'http';
import * as os from 'os';
import * as path from 'path';
import { spawn, ChildProcess } from 'child_process';

// LM-3: with a model that streams, the live page shows each agent's reply growing in its column
// before the reply's event arrives, then the logged reply in its place. The model is a fake
// OpenAI-compatible endpoint here, over real HTTP, that writes four characters every 150 ms.

const REASONING = 'The rollout is tested, reversible and documented; ship it behind a flag.';

function answer(user: string): string {
  if (user.includes('"argues_for"')) {
    return JSON.stringify({ argues_for: 'WARN', text: 'You skip the rollback drill before the release.' });
  }
  return JSON.stringify({ decision: 'ACT', confidence: 70, risk: 10, reasoning: REASONING });
}

class StreamingModel {
  private server!: http.Server;
  port = 0;

  async start() {
    this.server = http.createServer((req, res) => {
      let body = '';
      req.on('data', (c) => (body += c));
      req.on('end', async () => {
        const json = JSON.parse(body);
        const user: string = json.messages?.[1]?.content ?? '';
        const text = answer(user);
        if (!json.stream) {
          res.writeHead(200, { 'content-type': 'application/json' });
          res.end(JSON.stringify({
            choices: [{ index: 0, finish_reason: 'stop', message: { role: 'assistant', content: text } }],
            usage: { prompt_tokens: 100, completion_tokens: 25 },
          }));
          return;
        }
        res.writeHead(200, { 'content-type': 'text/event-stream' });
        // Each reply starts after a pause: the page is open before the first one starts (a
        // viewer who connects mid-reply sees it from then on), and between rounds there is a
        // moment with nothing being written.
        await new Promise((ok) => setTimeout(ok, 2000));
        for (let i = 0; i < text.length; i += 4) {
          if (res.destroyed) return;
          res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: { content: text.slice(i, i + 4) }, finish_reason: null }] })}\n\n`);
          await new Promise((ok) => setTimeout(ok, 150));
        }
        res.write(`data: ${JSON.stringify({ choices: [{ index: 0, delta: {}, finish_reason: 'stop' }] })}\n\n`);
        res.write(`data: ${JSON.stringify({ choices: [], usage: { prompt_tokens: 100, completion_tokens: 25 } })}\n\n`);
        res.end('data: [DONE]\n\n');
      });
    });
    await new Promise<void>((ok) => this.server.listen(0, '127.0.0.1', ok));
    this.port = (this.server.address() as import('net').AddressInfo).port;
  }

  async stop() {
    this.server.closeAllConnections();
    await new Promise((ok) => this.server.close(ok));
  }
}

class Server {
  private child!: ChildProcess;
  base = '';

  async start(model: number) {
    const bin = process.env.CONSILIUM_BIN ?? path.resolve(__dirname, '../../target/debug/consilium');
    const db = path.join(os.tmpdir(), `consilium-e2e-stream-${process.pid}-${Date.now()}.db`);
    this.child = spawn(bin, ['serve', '--addr', '127.0.0.1:0', '--database-url', `sqlite:${db}`, '--pace-ms', '0'], {
      env: {
        ...process.env, NO_COLOR: '1', RUST_LOG: 'info',
        OPENAI_BASE_URL: `http://127.0.0.1:${model}/v1`, OPENAI_MODEL: 'fake-streaming-model',
      },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.base = await new Promise<string>((ok, fail) => {
      let seen = '';
      this.child.stdout!.on('data', (chunk) => {
        seen += chunk.toString();
        const m = seen.match(/listening on (http:\/\/[0-9.:]+)/);
        if (m) ok(m[1]);
      });
      this.child.on('exit', (code) => fail(new Error(`server exited with ${code}: ${seen}`)));
    });
  }

  stop() {
    this.child.kill('SIGKILL');
  }
}

test('a streamed reply grows in its column, then the logged reply takes its place', async ({ page, request }) => {
  const model = new StreamingModel();
  await model.start();
  const server = new Server();
  await server.start(model.port);
  try {
    const created = await request.post(`${server.base}/api/debates`, {
      data: { query: 'Should we ship the release tonight?', backend: 'openai', seed: 9 },
    });
    expect(created.status()).toBe(201);
    const { id } = await created.json();
    await page.goto(`${server.base}/debates/${id}`);
    await expect(page.locator('.app[data-hydrated="true"]')).toBeVisible();

    // The utility agent's analysis is being written: its text grows, and no card holds it yet.
    const writing = page.locator('[data-testid="writing"][data-agent="utility"]');
    await expect(writing).toContainText('"decision"');
    const first = (await writing.textContent()) ?? '';
    expect(await page.locator('.card', { hasText: REASONING }).count()).toBe(0);
    // What is shown is the start of what the model writes, piece by piece, and it grows.
    expect(answer('').startsWith(first)).toBe(true);
    await expect.poll(async () => ((await writing.textContent()) ?? '').length).toBeGreaterThan(first.length);

    // Then the logged reply is on the board and the streamed text is gone.
    await expect(page.locator('.card', { hasText: REASONING }).first()).toBeVisible();
    await expect(writing).toHaveCount(0);
    // Round 2's challenges stream the same way, and the debate decides.
    await expect(writing).toContainText('argues_for');
    await expect(page.getByTestId('decision')).toBeVisible({ timeout: 40_000 });
    await expect(page.locator('[data-testid="writing"]')).toHaveCount(0);
  } finally {
    server.stop();
    await model.stop();
  }
});
