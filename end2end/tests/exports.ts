import { expect, APIRequestContext } from '@playwright/test';

/** Starts an S4 debate, waits for its decision and downloads its export: the text and the log. */
export async function finishedDebate(request: APIRequestContext, query: string, seed: number) {
  const created = await request.post('/api/debates', { data: { query, seed } });
  expect(created.status()).toBe(201);
  const { id } = await created.json();
  await expect
    .poll(async () => (await (await request.get(`/api/debates/${id}`)).json()).status, { timeout: 30_000 })
    .toBe('finished');
  const resp = await request.get(`/api/debates/${id}/export.json`);
  expect(resp.status()).toBe(200);
  const text = await resp.text();
  return { id, text, log: JSON.parse(text) };
}
