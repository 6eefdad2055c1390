// Drives code-server's VS Code workbench in headless Chromium (playwright-core) against the
// wafer daemon with the scripted engine (known suggestions, streamed slowly enough to see):
// the ghost text appears and (with wafer.stream on) grows while it streams, Escape
// dismisses it, accept word and accept line insert exactly the next word and line, Tab
// accepts the rest, typing through keeps it, next/previous keep a suggestion shown, and
// wafer.toggle stops the requests. Prints the keystroke -> first visible ghost text latency.
//
// With E2E_FIND=none there is no binary to find: one notification says where the extension
// looked and how to fix it, the status bar shows the error, and a restart does not repeat
// the notification.
//
// With E2E_FIND=package the extension is a packaged .vsix (scripts/package.sh) serving the
// bundled model with its own binary and default settings: what it suggests after
// PACKAGE_PREFIX shows, Tab puts it in the file, and one notification offers to download
// the recommended model.
//
// With E2E_FIND=pull the real daemon serves its bundled model and $WAFER_CATALOG names a
// test catalogue whose model (loop-coder) and the draft model paired with it (loop-draft) a
// loopback server hands out: "Download" on the offer runs `wafer pull loop-coder`, then
// `wafer pull loop-draft`, under a progress notification, and the daemon switches to the
// downloaded model (its message names the file in the pull cache).
//
// Environment: E2E_URL, E2E_FILE (the workspace file on disk), CHROMIUM, E2E_SHOTS (folder
// for screenshots), E2E_STREAM (1/0: what wafer.stream is set to, for the checks), E2E_FIND.
import { chromium } from 'playwright-core';
import { readFileSync, mkdirSync } from 'node:fs';

const url = process.env.E2E_URL;
const file = process.env.E2E_FILE;
const shots = process.env.E2E_SHOTS;
const STREAM = process.env.E2E_STREAM !== '0';
const NONE = process.env.E2E_FIND === 'none';
const PACKAGE = process.env.E2E_FIND === 'package';
const PULL = process.env.E2E_FIND === 'pull';
const PREFIX = 'def add(';
// What the package test types: a line the bundled model completes with confidence above its
// minConfidence, 0.35 (` '__main__':`, whose least likely token has about 0.5), so the automatic request shows it.
const PACKAGE_PREFIX = 'if __name__ ==';
const SUGGESTION = 'a, b):\n    return a + b'; // e2e/fake-engine.json's rule for PREFIX
// Only the first line of a multi-line ghost text is read from the screen (an inline
// decoration); what an accept inserts is checked in the saved file.
const FIRST = SUGGESTION.split('\n')[0];
const t = () => performance.now();
const t0 = t();
const log = (msg) => console.log(`[e2e ${((t() - t0) / 1000).toFixed(1)}s] ${msg}`);

function fail(msg) {
  throw new Error(msg);
}
function expectEq(want, got, what) {
  if (want !== got) fail(`${what}: expected ${JSON.stringify(want)}, got ${JSON.stringify(got)}`);
}

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM,
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking',
    '--disable-component-update', '--disable-sync'],
});
let page;

// The ghost text on the cursor's line (an inline decoration, one span per token); '' when
// none is shown.
async function ghostText() {
  return (await page.evaluate(() => {
    const root = document.querySelector('.editor-instance .monaco-editor');
    if (!root) return '';
    return [...root.querySelectorAll('.ghost-text-decoration')].map((e) => e.textContent).join('');
  })).replace(/\u00a0/g, ' ');
}

// The whole ghost text: the cursor's line, then the spans of the lines below it.
async function ghostAll() {
  return (await page.evaluate(() => {
    const root = document.querySelector('.editor-instance .monaco-editor');
    if (!root) return '';
    const text = (sel) => [...root.querySelectorAll(sel)].map((e) => e.textContent).join('');
    const line = text('.ghost-text-decoration');
    const below = text('.ghost-text:not(.ghost-text-decoration)');
    // (a read between the updates of the two parts, first line gone: not a state shown)
    if (!line && below) return null;
    return line + (below ? '\n' + below : '');
  }))?.replace(/\u00a0/g, ' ') ?? null;
}

// Polls the ghost text every few ms until `done(text)`; returns the distinct texts seen.
async function watchGhost(done, timeout, what, read = ghostText) {
  const seen = [];
  const end = t() + timeout;
  for (;;) {
    const g = await read();
    if (g === null) continue;
    if (seen[seen.length - 1] !== g) seen.push(g);
    if (done(g)) return seen;
    if (t() > end) fail(`timed out waiting for ${what}; ghost texts seen: ${JSON.stringify(seen)}`);
    await page.waitForTimeout(5);
  }
}

// Saves and returns the file's text once `ok(text)` holds (or fails after a while).
async function saved(ok, what) {
  await page.keyboard.press('Control+S');
  let content = '';
  const end = t() + 10000;
  while (t() < end) {
    content = readFileSync(file, 'utf8');
    if (ok(content)) return content;
    await page.waitForTimeout(50);
  }
  fail(`${what}: file is ${JSON.stringify(content)}`);
}
// The last `n` lines of the file, without the indentation of the first (where PREFIX was
// typed: after a block opener the editor indents the new line).
const lastLines = (content, n) => content.replace(/\n$/, '').split('\n').slice(-n).join('\n').replace(/^[ \t]+/, '');

// A new line at the end of the file, PREFIX typed, until the whole suggestion shows.
// Returns the latency to the first visible ghost text and the texts seen while streaming.
async function typePrefix() {
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.press('Enter');
  for (const ch of PREFIX.slice(0, -1)) await page.keyboard.type(ch), await page.waitForTimeout(30);
  await page.keyboard.type(PREFIX.slice(-1));
  const typed = t();
  const first = await watchGhost((g) => g !== '', 30000, 'ghost text', ghostAll);
  const latency = t() - typed;
  const rest = await watchGhost((g) => g === SUGGESTION, 30000, 'the whole suggestion', ghostAll);
  return { latency, seen: [...first, ...rest.slice(1)] };
}

async function command(title) {
  await page.keyboard.press('F1');
  await page.waitForSelector('.quick-input-widget input', { timeout: 30000 });
  await page.keyboard.type(title, { delay: 5 });
  await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: 30000 });
  await page.keyboard.press('Enter');
  await page.waitForTimeout(200);
}

try {
  page = await browser.newPage({ viewport: { width: 1280, height: 800 } });
  await page.goto(url);
  await page.waitForSelector('.monaco-workbench', { timeout: 60000 });
  log('workbench loaded');

  await page.waitForSelector('.statusbar', { timeout: 60000 });
  await page.keyboard.press('Control+P');
  await page.waitForSelector('.quick-input-widget input', { timeout: 60000 });
  await page.keyboard.type('test.py', { delay: 20 });
  await page.waitForSelector('.quick-input-list .monaco-list-row', { timeout: 60000 });
  await page.keyboard.press('Enter');
  await page.waitForSelector('.editor-instance .monaco-editor .view-lines', { timeout: 60000 });
  log('file open');

  if (NONE) {
    const NOT_FOUND = 'no wafer binary found';
    const toast = page.locator('.notification-toast', { hasText: NOT_FOUND });
    await toast.first().waitFor({ timeout: 60000 });
    const text = await toast.first().innerText();
    log(`notification: ${JSON.stringify(text)}`);
    for (const want of ['bin/linux-x64/wafer', 'wafer on PATH', '.local/bin/wafer', 'set wafer.path', 'Open Settings'])
      if (!text.includes(want)) fail(`the notification does not mention ${JSON.stringify(want)}`);
    const status = page.locator('.statusbar-item', { hasText: 'wafer' }).first();
    if (!(await status.locator('.codicon-error').count())) fail(`the status bar shows no error: ${await status.innerHTML()}`);
    await command('wafer: Restart Daemon');
    await page.waitForTimeout(2000);
    const count = await page.locator('.notification-toast', { hasText: NOT_FOUND }).count();
    expectEq(1, count, 'notifications after a restart');
    console.log(`E2E PASSED (no binary): one notification; whole run ${((t() - t0) / 1000).toFixed(1)} s`);
    process.exit(0);
  }

  // The extension is up when its status bar item shows, and the daemon when it no longer
  // says "starting".
  const status = page.locator('.statusbar-item', { hasText: 'wafer' }).first();
  await status.waitFor({ timeout: 60000 });
  await page.locator('.statusbar-item', { hasText: 'wafer' }).filter({ hasNotText: 'starting' }).first()
    .waitFor({ timeout: 60000 });
  log(`status bar: ${JSON.stringify(await status.innerText())}`);
  await page.click('.editor-instance .monaco-editor .view-lines');

  if (PACKAGE) {
    await page.keyboard.press('Control+End');
    await page.keyboard.type(PACKAGE_PREFIX, { delay: 30 });
    const typed = t();
    const seen = await watchGhost((g) => g.trim() !== '', 60000, 'ghost text from the bundled model', ghostAll);
    const ghost = seen[seen.length - 1];
    log(`ghost text after ${(t() - typed).toFixed(0)} ms: ${JSON.stringify(ghost)}`);
    if (shots) {
      mkdirSync(shots, { recursive: true });
      await page.screenshot({ path: `${shots}/ghost.png` });
    }
    await page.keyboard.press('Tab');
    const line = ghost.split('\n')[0];
    await saved((c) => c.includes(PACKAGE_PREFIX + line), `Tab inserts ${JSON.stringify(line)}`);
    const statusText = await status.innerText();
    if (!/wafer \d+ ms/.test(statusText)) fail(`status bar without latency: ${statusText}`);
    // The daemon's message naming the model it serves, prefixed once.
    const served = page.locator('.notification-toast', { hasText: 'completions from' }).first();
    await served.waitFor({ timeout: 10000 });
    const note = await served.innerText();
    log(`notification: ${JSON.stringify(note)}`);
    if (!note.includes('wafer: completions from wafer-tiny-code') || note.includes('wafer: wafer:'))
      fail(`the notification does not name the model once: ${JSON.stringify(note)}`);
    // The bundled model serves: the offer to download the recommended one, once, with its
    // actions (not taken here: there is no network).
    const offer = page.locator('.notification-toast', { hasText: 'Download qwen2.5-coder-1.5b' });
    await offer.first().waitFor({ timeout: 10000 });
    const offerText = await offer.first().innerText();
    log(`offer: ${JSON.stringify(offerText)}`);
    if (!offerText.includes('Not now')) fail(`the offer has no "Not now" action: ${JSON.stringify(offerText)}`);
    expectEq(1, await offer.count(), 'offers to download a model');
    console.log(`E2E PASSED (package): ${JSON.stringify(PACKAGE_PREFIX + line)} in the file; whole run ${((t() - t0) / 1000).toFixed(1)} s`);
    process.exit(0);
  }

  if (PULL) {
    const offer = page.locator('.notification-toast', { hasText: 'Download loop-coder' }).first();
    await offer.waitFor({ timeout: 60000 });
    const offerText = await offer.innerText();
    log(`offer: ${JSON.stringify(offerText)}`);
    if (!offerText.includes('its draft model loop-draft')) fail(`the offer does not name the draft model: ${JSON.stringify(offerText)}`);
    await offer.locator('.monaco-button', { hasText: 'Download' }).first().click();
    log('clicked Download');
    // Read in the notification center, which lists every notification (toasts come and go:
    // a few at a time, the older hidden by the newer).
    await command('Notifications: Show Notifications');
    const center = page.locator('.notifications-center');
    const item = (text) => center.locator('.notification-list-item', { hasText: text }).first();
    await item('downloaded loop-coder and its draft model loop-draft; completions switch to them now').waitFor({ timeout: 60000 });
    log('downloaded');
    // The daemon names the model it now serves: the downloaded file, from the pull cache.
    const switched = item('loop-coder.gguf), the most capable model in the download cache');
    await switched.waitFor({ timeout: 60000 });
    log(`switched: ${JSON.stringify(await switched.innerText())}`);
    expectEq(0, await center.locator('.notification-list-item', { hasText: 'could not download' }).count(), 'download errors');
    await command('Notifications: Hide Notifications');
    await page.click('.editor-instance .monaco-editor .view-lines'); // the focus left with the click on the toast
    await page.keyboard.press('Control+End');
    await page.keyboard.type(PACKAGE_PREFIX, { delay: 30 });
    const seen = await watchGhost((g) => g.trim() !== '', 60000, 'ghost text from the downloaded model', ghostAll);
    log(`ghost text: ${JSON.stringify(seen[seen.length - 1])}`);
    console.log(`E2E PASSED (pull): downloaded and switched; whole run ${((t() - t0) / 1000).toFixed(1)} s`);
    process.exit(0);
  }

  // 1. Ghost text appears (streams in when wafer.stream is on); Escape dismisses it.
  const latencies = [];
  const first = await typePrefix();
  latencies.push(first.latency);
  log(`ghost text after ${first.latency.toFixed(0)} ms; texts seen: ${JSON.stringify(first.seen)}`);
  if (shots) {
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: `${shots}/ghost.png` });
  }
  if (first.seen.length !== new Set(first.seen).size) fail(`the ghost text flickered (vanished and came back): ${JSON.stringify(first.seen)}`);
  if (STREAM && first.seen.filter((g) => g !== "").length < 2) fail(`the ghost text did not grow while streaming: ${JSON.stringify(first.seen)}`);
  // (the line and the lines below it are separate parts of the DOM, read one after the other)
  if (STREAM && !first.seen.every((g) => FIRST.startsWith(g.split('\n')[0]))) fail(`a streamed text is not a prefix: ${JSON.stringify(first.seen)}`);
  const statusText = await status.innerText();
  log(`status bar: ${JSON.stringify(statusText)}`);
  if (!/wafer \d+ ms/.test(statusText)) fail(`status bar without latency: ${statusText}`);
  await page.keyboard.press('Escape');
  await watchGhost((g) => g === '', 5000, 'Escape to hide the ghost text');
  await saved((c) => lastLines(c, 1) === PREFIX, 'Escape leaves the file as typed');
  log('Escape dismissed it');

  // 2. Accept word, then accept line (twice): exactly the suggestion's text.
  await page.keyboard.press('Alt+\\'); // wafer.trigger
  const again = await watchGhost((g) => g === SUGGESTION, 30000, 'the suggestion after wafer.trigger', ghostAll);
  log(`wafer.trigger: texts seen ${JSON.stringify(again)}`);
  // The next word: letters/digits, else a run of punctuation, with the spaces before it.
  const word = /^\s*(\w+|[^\w\s]+)/.exec(SUGGESTION)[0];
  await page.keyboard.press('Control+ArrowRight'); // wafer.acceptWord
  await saved((c) => lastLines(c, 1) === PREFIX + word, `accept word inserts ${JSON.stringify(word)}`);
  await watchGhost((g) => g === FIRST.slice(word.length), 5000, 'the rest after accept word');
  const nl = SUGGESTION.indexOf('\n');
  const line = nl < 0 ? SUGGESTION : SUGGESTION.slice(0, nl);
  await page.keyboard.press('Control+Alt+ArrowRight'); // wafer.acceptLine
  await saved((c) => lastLines(c, 1) === PREFIX + line, 'accept line inserts the rest of the line');
  if (nl >= 0) {
    // The next accept line takes the following line (with its line break and indentation).
    await page.keyboard.press('Control+Alt+ArrowRight');
    await saved((c) => lastLines(c, SUGGESTION.split('\n').length) === PREFIX + SUGGESTION, 'a second accept line inserts the next line');
  }
  await watchGhost((g) => g === '', 5000, 'no ghost text once all is accepted');
  log(`accept word ${JSON.stringify(word)}, then accept line inserted exactly ${JSON.stringify(SUGGESTION)}`);

  // Tab accepts the whole suggestion.
  const tabbed = await typePrefix();
  latencies.push(tabbed.latency);
  await page.keyboard.press('Tab');
  await saved((c) => lastLines(c, SUGGESTION.split('\n').length) === PREFIX + SUGGESTION, 'Tab accepts all');
  log('Tab accepted all of it');

  // 3. Next/previous: an explicit request for alternatives; the scripted engine has one
  // suggestion, which stays shown.
  const second = await typePrefix();
  latencies.push(second.latency);
  await page.keyboard.press('Alt+]');
  await page.waitForTimeout(500);
  await page.keyboard.press('Alt+[');
  await page.waitForTimeout(500);
  await watchGhost((g) => g === FIRST, 5000, 'the suggestion after next/previous');
  // 4. Typing through keeps the suggestion (the ghost text shortens, it does not vanish).
  await page.keyboard.type(SUGGESTION[0]);
  const through = await watchGhost((g) => g === FIRST.slice(1), 5000, 'the suggestion after typing through');
  log(`next/previous kept it; typed through: ${JSON.stringify(through)}`);
  await page.keyboard.press('Escape');

  // 5. The toggle: off stops requests (no ghost text), the status bar says so; on again.
  await command('wafer: Toggle Suggestions');
  await page.locator('.statusbar-item', { hasText: 'wafer off' }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press('Control+End');
  await page.keyboard.press('Enter');
  await page.keyboard.type(PREFIX, { delay: 30 });
  await page.waitForTimeout(1500);
  expectEq('', await ghostText(), 'ghost text while suggestions are off');
  log(`toggled off: no ghost text; status bar ${JSON.stringify(await page.locator('.statusbar-item', { hasText: 'wafer' }).first().innerText())}`);
  await command('wafer: Toggle Suggestions');
  await page.locator('.statusbar-item', { hasText: 'wafer' }).filter({ hasNotText: 'off' }).first().waitFor({ timeout: 10000 });
  await page.keyboard.press('Backspace');
  await page.keyboard.type(PREFIX.slice(-1));
  await watchGhost((g) => g === FIRST, 30000, 'ghost text once on again');
  log('toggled on: ghost text again');

  const sorted = [...latencies].sort((a, b) => a - b);
  console.log(`E2E PASSED (wafer.stream ${STREAM ? 'on' : 'off'}): keystroke -> first visible ghost text ` +
    `${sorted.map((x) => x.toFixed(0)).join(', ')} ms (DOM); whole run ${((t() - t0) / 1000).toFixed(1)} s`);
} catch (e) {
  console.error(`E2E FAILED: ${e instanceof Error ? e.message : e}`);
  if (page) {
    const ghosts = await page.evaluate(() =>
      [...document.querySelectorAll('[class*="ghost"]')].map((el) => `${el.className}: ${JSON.stringify(el.textContent)}`).slice(0, 20),
    ).catch(() => []);
    console.error(`ghost-text elements: ${JSON.stringify(ghosts, null, 1)}`);
  }
  if (page && shots) {
    mkdirSync(shots, { recursive: true });
    await page.screenshot({ path: `${shots}/failure.png` }).catch(() => {});
  }
  process.exitCode = 1;
} finally {
  await browser.close();
}
