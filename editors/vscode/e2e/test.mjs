// Drives code-server's VS Code workbench in headless Chromium (playwright-core): opens
// the test file, types, waits for the ghost text from the wafer daemon, accepts it with
// Tab, saves and checks the file on disk. Prints the observed latencies.
import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync } from 'node:fs';

const url = process.env.E2E_URL;
const file = process.env.E2E_FILE;
const shots = process.env.E2E_SHOTS;
const PREFIX = 'def add(';
const t = () => performance.now();
const t0 = t();
const log = (msg) => console.log(`[e2e ${((t() - t0) / 1000).toFixed(1)}s] ${msg}`);

function fail(msg) {
  throw new Error(msg);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
let page;
try {
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  log('workbench loaded');

  // Open the file through Quick Open.
  await page.waitForSelector('.statusbar', { timeout: 60000 });
  await page.keyboard.press('Control+P');
  await page.waitForSelector('.quick-input-widget input', { timeout: 60000 });
  await page.keyboard.type('test.py', { delay: 20 });
  await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: 60000 });
  await page.keyboard.press('Enter');
  await page.waitForSelector('.editor-instance .monaco-editor .view-lines', { timeout: 60000 });
  log('file open');

  // The extension is up when its status bar item shows, and the daemon when it no longer
  // says "starting".
  const status = page.locator('.statusbar-item', { hasText: 'wafer' }).first();
  await status.waitFor({ timeout: 60000 });
  await page.locator('.statusbar-item', { hasText: 'wafer' }).filter({ hasNotText: 'starting' }).first()
    .waitFor({ timeout: 60000 });
  log(`status bar: ${JSON.stringify(await status.innerText())}`);

  await page.click('.editor-instance .monaco-editor .view-lines');
  await page.keyboard.press('Control+End');
  for (const ch of PREFIX) await page.keyboard.type(ch, { delay: 0 }), await page.waitForTimeout(50);
  const typed = t();
  const ghost = page.locator('.editor-instance .ghost-text-decoration, .editor-instance .ghost-text');
  await ghost.first().waitFor({ state: 'visible', timeout: 30000 });
  const latency = t() - typed;
  // The first line is an inline decoration (one span per token); further lines are a
  // view zone of ordinary view lines.
  const ghostText = (await page.evaluate(() => {
    const root = document.querySelector('.editor-instance .monaco-editor');
    const first = [...root.querySelectorAll('.ghost-text-decoration')].map((e) => e.textContent).join('');
    const rest = [...root.querySelectorAll('.ghost-text .view-line')].map((e) => e.textContent);
    return [first, ...rest].join('\n');
  })).replace(/\u00a0/g, ' ');
  log(`ghost text after ${latency.toFixed(0)} ms (last keystroke -> visible in the DOM): ${JSON.stringify(ghostText)}`);
  if (shots) {
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: `${shots}/ghost.png` });
  }
  const statusText = await status.innerText();
  log(`status bar: ${JSON.stringify(statusText)}`);

  await page.keyboard.press('Tab');
  await ghost.first().waitFor({ state: 'hidden', timeout: 10000 }).catch(() => {});
  await page.keyboard.press('Control+S');
  const firstGhostLine = ghostText.split('\n')[0].trim();
  let content = '';
  const deadline = t() + 10000;
  while (t() < deadline) {
    content = readFileSync(file, 'utf8');
    if (content.includes(PREFIX + firstGhostLine)) break;
    await page.waitForTimeout(100);
  }
  log(`file after Tab + save: ${JSON.stringify(content)}`);
  if (!firstGhostLine) fail('the ghost text was empty');
  if (!content.includes(PREFIX + firstGhostLine)) fail(`the accepted suggestion is not in the file`);
  const ext = /(\d+) ms/.exec(statusText);
  console.log(`E2E PASSED: ghost text ${latency.toFixed(0)} ms after the last keystroke (DOM)` +
    (ext ? `, extension-measured ${ext[1]} ms` : '') + `; whole run ${((t() - t0) / 1000).toFixed(1)} s`);
} catch (e) {
  console.error(`E2E FAILED: ${e instanceof Error ? e.message : e}`);
  if (page && shots) {
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: `${shots}/failure.png` }).catch(() => {});
  }
  process.exitCode = 1;
} finally {
  await browser.close();
}
