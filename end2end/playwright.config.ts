import { defineConfig } from '@playwright/test';
import * as os from 'os';
import * as path from 'path';

// The real server binary (built by `make test`) with a fresh SQLite file, paced so that a human
// (and the tests) can watch rounds fill in live.
const port = Number(process.env.E2E_PORT ?? 3210);
const bin = process.env.CONSILIUM_BIN ?? path.resolve(__dirname, '../target/debug/consilium');
// Workers inherit E2E_DB from the runner, so tests that run the CLI (judges) use the same file.
const db = process.env.E2E_DB ?? path.join(os.tmpdir(), `consilium-e2e-${process.pid}.db`);
process.env.E2E_DB = db;
// Where the server reads saved `consilium eval` runs (the eval spec writes one there).
const evalDir = process.env.E2E_EVAL_DIR ?? path.join(os.tmpdir(), `consilium-e2e-eval-${process.pid}`);
process.env.E2E_EVAL_DIR = evalDir;
process.env.CONSILIUM_BIN = bin;
// The real small model that `make test` starts (scripts/llm.sh) answers the `openai` backend.
const llm = process.env.CONSILIUM_TEST_LLM_URL ?? `http://127.0.0.1:${process.env.LLM_PORT ?? 8091}/v1`;

export default defineConfig({
  testDir: './tests',
  timeout: 60_000,
  expect: { timeout: 20_000 },
  fullyParallel: false,
  workers: 1,
  retries: 0,
  reporter: [['list']],
  use: {
    baseURL: `http://127.0.0.1:${port}`,
    viewport: { width: 1360, height: 900 },
    trace: 'retain-on-failure',
    screenshot: 'only-on-failure',
    launchOptions: {
      executablePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      args: [
        '--no-sandbox', '--headless', '--disable-gpu', '--disable-quic',
        '--disable-background-networking', '--disable-component-update', '--disable-sync',
        '--no-first-run',
      ],
    },
  },
  webServer: {
    command: `rm -f ${db} ${db}-wal ${db}-shm && ${bin} serve --addr 127.0.0.1:${port} --database-url sqlite:${db} --pace-ms 200 --eval-dir ${evalDir}`,
    url: `http://127.0.0.1:${port}/api/debates`,
    // The paging test starts 35 debates at once from this one address: above the default of 8.
    env: {
      OPENAI_BASE_URL: llm, OPENAI_MODEL: 'smollm2-135m', CONSILIUM_OPENAI_MAX_TOKENS: '200',
      CONSILIUM_MAX_DEBATES_PER_CLIENT: '48',
    },
    reuseExistingServer: false,
    timeout: 60_000,
    stdout: 'pipe',
    stderr: 'pipe',
  },
});
