// Measures how long headless chromium takes to open a report: navigation to the load event, then
// the page's script (layout, first step) finished. Not a test: scripts/report_perf.sh prints it.
// Usage: node measure_load.js REPORT.html
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

(async () => {
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'redlock-browser-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1260, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  const started = Date.now();
  await page.goto('file://' + path.resolve(process.argv[2]), { waitUntil: 'load' });
  await page.waitForFunction(() => window.redlockReport !== undefined);
  const loaded_ms = Date.now() - started;
  const zoomStarted = Date.now();
  await page.click('#zoom-all');
  const zoom_ms = Date.now() - zoomStarted;
  console.log(JSON.stringify({ loaded_ms, zoom_whole_run_ms: zoom_ms, errors }));
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
})();
