// Proves the playground (`redlock-sim serve`) works end to end in headless Debian chromium: it
// starts on 127.0.0.1 on a free port, the page loads the catalogue, a chosen scenario runs and
// shows its verdict and report; editing one number (the clock jump) turns mutual exclusion from
// holds to violated; bad JSON shows exactly the message `redlock-sim run` prints for the same
// text; a sweep from the page finds the jump's threshold; the share link reopens the edited
// scenario. The server is stopped whatever happens.
//
// Usage: node playground_test.js REDLOCK_SIM SOURCE_DIR OUT_DIR
'use strict';
const { chromium } = require('playwright-core');
const { spawn, spawnSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const assert = require('assert');

const [cliArgument, sourceDir, outDir] = process.argv.slice(2);
const redlockSim = path.resolve(cliArgument);
fs.mkdirSync(outDir, { recursive: true });

function startServer() {
  const server = spawn(redlockSim, ['serve'], { stdio: ['ignore', 'pipe', 'pipe'] });
  return new Promise((resolve, reject) => {
    let text = '';
    const timeout = setTimeout(() => reject(new Error('serve did not start: ' + text)), 20000);
    server.stdout.on('data', (chunk) => {
      text += chunk;
      const match = text.match(/http:\/\/127\.0\.0\.1:(\d+)\//);
      if (match) { clearTimeout(timeout); resolve({ server, url: match[0] }); }
    });
    server.on('exit', (code) => reject(new Error('serve exited ' + code + ': ' + text)));
  });
}

async function verdict(page, checker) {
  return page.$eval('#verdict-' + checker, (e) => e.className);
}

async function waitVerdict(page, checker, wanted) {
  await page.waitForFunction(([c, w]) =>
    document.getElementById('verdict-' + c).className === w, [checker, wanted],
  { timeout: 20000 });
}

(async () => {
  let server = null;
  let context = null;
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'redlock-browser-'));
  const stop = () => { if (server && server.exitCode === null) server.kill('SIGTERM'); };
  process.on('exit', stop);
  try {
    const started = await startServer();
    server = started.server;
    server.removeAllListeners('exit');
    context = await chromium.launchPersistentContext(profile, {
      executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1400, height: 1000 },
      args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
        '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });

    // Load: the catalogue is offered, and the default scenario runs at once.
    await page.goto(started.url);
    await page.waitForSelector('body[data-ready="yes"]', { timeout: 30000 });
    const offered = await page.$$eval('#scenario option', (o) => o.length);
    const catalogue = fs.readdirSync(path.join(sourceDir, 'scenarios'))
      .filter((f) => f.endsWith('.json')).length;
    assert.strictEqual(offered, catalogue, 'every catalogue scenario is offered');

    // The node-jump story holds; a jump of 9000 ms on N3 lets B in at 2000: violated.
    await page.selectOption('#scenario', 'node-clock-jump-within-drift');
    await waitVerdict(page, 'mutual_exclusion', 'holds');
    const reportHolds = await page.$eval('#report', (f) => f.srcdoc.length);
    assert.ok(reportHolds > 1000, 'the report is shown');
    await page.fill('input[data-path="$.faults[2].delta_ms"]', '9000');
    await waitVerdict(page, 'mutual_exclusion', 'violated');
    const summary = await page.$eval('#summary', (e) => e.textContent);
    assert.match(summary, /mutual exclusion/i);
    const raw = await page.$eval('#raw', (e) => e.value);
    assert.strictEqual(JSON.parse(raw).faults[2].delta_ms, 9000, 'the raw JSON follows the field');
    const frame = page.frameLocator('#report');
    await frame.locator('svg').first().waitFor({ timeout: 20000 });
    await page.screenshot({ path: path.join(outDir, 'playground.png') });

    // The share link carries the edited scenario: a new page opens on it, violated again.
    await page.click('#share');
    const link = await page.$eval('#share-link', (e) => e.value);
    assert.ok(link.startsWith(started.url + '#file='), 'a link on the same server: ' + link);
    const second = await context.newPage();
    await second.goto(link);
    await second.waitForSelector('body[data-ready="yes"]', { timeout: 30000 });
    assert.strictEqual(await second.$eval('#raw', (e) => e.value), raw, 'the link restores it');
    assert.strictEqual(await verdict(second, 'mutual_exclusion'), 'violated');
    await second.close();

    // Bad input: the page shows exactly what `redlock-sim run` prints for the same text.
    const bad = raw.replace('"delta_ms": 9000', '"delta_ms": "soon"');
    await page.fill('#raw', bad);
    await page.waitForSelector('#error:not([hidden])', { timeout: 20000 });
    const shown = await page.$eval('#error', (e) => e.textContent);
    const work = fs.mkdtempSync(path.join(os.tmpdir(), 'redlock-playground-'));
    fs.writeFileSync(path.join(work, 'node-clock-jump-within-drift.json'), bad);
    const cli = spawnSync(redlockSim, ['run', 'node-clock-jump-within-drift.json'],
      { cwd: work, encoding: 'utf8' });
    fs.rmSync(work, { recursive: true, force: true });
    assert.strictEqual(cli.status, 2);
    assert.strictEqual(shown + '\n', cli.stderr, 'the CLI\'s exact message');

    // A sweep from the page: the jump's edge for B's try at 2000 (10 002 - 2 001 = 8 001).
    await page.fill('#raw', raw);
    await waitVerdict(page, 'mutual_exclusion', 'violated');
    await page.selectOption('#sweep-path', '$.faults[2].delta_ms');
    await page.fill('#sweep-from', '0');
    await page.fill('#sweep-to', '10000');
    await page.fill('#sweep-step', '500');
    await page.click('#sweep');
    await page.waitForFunction(() => /violated from/.test(
      document.getElementById('summary').textContent), null, { timeout: 60000 });
    const sweepSummary = await page.$eval('#summary', (e) => e.textContent);
    assert.match(sweepSummary, /mutual exclusion holds for delta_ms <= 8000, violated from 8001/);
    await frame.locator('svg').first().waitFor({ timeout: 20000 });
    await page.screenshot({ path: path.join(outDir, 'playground-sweep.png') });

    assert.deepStrictEqual(errors, [], 'no console errors');
    console.log('playground: loads, edits rerun, bad input shows the CLI message, sweep, link');
  } catch (error) {
    console.error(error);
    process.exitCode = 1;
  } finally {
    if (context) await context.close();
    stop();
    fs.rmSync(profile, { recursive: true, force: true });
  }
})();
