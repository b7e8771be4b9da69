// The built scripts, wasm and styles come from a versioned address, compressed as the browser
// asks, and cached for good; pages are revalidated on each load.
const { test, expect } = require('@playwright/test');
const { open, failOnConsoleErrors } = require('../support');

failOnConsoleErrors(test);

test('assets are versioned, precompressed and immutable; pages are never cached stale', async ({ page, request }) => {
  const response = await request.get('/');
  expect(response.headers()['cache-control']).toBe('no-cache');
  const html = await response.text();
  const wasm = html.match(/href="(\/pkg\/[0-9a-f]{16}\/evalstudio\.wasm)"/);
  expect(wasm, 'the page preloads a versioned wasm').not.toBeNull();
  const css = html.match(/href="(\/pkg\/[0-9a-f]{16}\/evalstudio\.css)"/);
  expect(css, 'the page links a versioned stylesheet').not.toBeNull();

  const brotli = await request.get(wasm[1], { headers: { 'Accept-Encoding': 'br, gzip' } });
  expect(brotli.status()).toBe(200);
  expect(brotli.headers()['content-encoding']).toBe('br');
  expect(brotli.headers()['content-type']).toBe('application/wasm');
  expect(brotli.headers()['cache-control']).toBe('public, max-age=31536000, immutable');
  const gzip = await request.get(css[1], { headers: { 'Accept-Encoding': 'gzip' } });
  expect(gzip.headers()['content-encoding']).toBe('gzip');
  const plain = await request.get(css[1], { headers: { 'Accept-Encoding': 'identity' } });
  expect(plain.headers()['content-encoding']).toBeUndefined();

  // The browser loads them from there and the page works.
  const loaded = [];
  page.on('response', (r) => {
    if (r.url().includes('/pkg/')) loaded.push([new URL(r.url()).pathname, r.headers()['content-encoding']]);
  });
  await open(page, '/');
  expect(loaded).toContainEqual([wasm[1], 'br']);
});

test('the evalset pages load without the other pages\' chunk; a page of the chunk preloads it', async ({ page, request }) => {
  const chunk = /\/pkg\/[0-9a-f]{16}\/split_chunk_page_view_\d+\.wasm/;
  const evalsets = await (await request.get('/')).text();
  expect(evalsets).not.toMatch(chunk);
  const chat = await (await request.get('/chat')).text();
  const preload = chat.match(new RegExp(`href="(${chunk.source})"`));
  expect(preload, 'the chat page names its chunk in a preload link').not.toBeNull();
  const served = await request.get(preload[1], { headers: { 'Accept-Encoding': 'br' } });
  expect(served.headers()['content-encoding']).toBe('br');
  expect(served.headers()['cache-control']).toBe('public, max-age=31536000, immutable');

  const fetched = [];
  page.on('request', (r) => fetched.push(new URL(r.url()).pathname));
  await open(page, '/');
  expect(fetched.filter((path) => chunk.test(path))).toEqual([]);
  // Going to a page of the chunk loads it then, and the page works.
  await page.getByRole('link', { name: 'Chat' }).click();
  await expect(page.getByLabel('Message')).toBeVisible();
  expect(fetched.filter((path) => chunk.test(path))).toHaveLength(1);
});
