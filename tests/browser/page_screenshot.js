// Photographs a whole page in headless Debian chromium (no network, no browser download).
// scripts/sweep_picture.sh uses it for the sweep plots in docs/. Usage:
// node page_screenshot.js PAGE.html OUT.png [WIDTH]
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

(async () => {
  const [page_path, out, width] = process.argv.slice(2);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'redlock-browser-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true,
    viewport: { width: Number(width || 1100), height: 800 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await context.newPage();
  await page.goto('file://' + path.resolve(page_path));
  await page.screenshot({ path: out, fullPage: true });
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
})();
