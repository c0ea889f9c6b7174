// Photographs the top of a report (title, verdicts, story and the lanes chart) in headless
// chromium, as the page prints (controls hidden). scripts/readme_picture.sh uses it for the
// README's picture. Usage: node screenshot.js REPORT.html OUT.png
'use strict';
const { chromium } = require('playwright-core');
const fs = require('fs');
const os = require('os');
const path = require('path');

(async () => {
  const [report, out] = process.argv.slice(2);
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'redlock-browser-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium', headless: true, viewport: { width: 1240, height: 900 },
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  const page = await context.newPage();
  await page.goto('file://' + path.resolve(report));
  await page.emulateMedia({ media: 'print' });
  // The cursor of the step-through would mark an arbitrary instant: the picture shows none.
  await page.evaluate(() => document.getElementById('cursor').setAttribute('visibility', 'hidden'));
  const bottom = await page.evaluate(() => document.getElementById('chart-wrap').getBoundingClientRect().bottom);
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1240, height: Math.ceil(bottom) + 8 } });
  await context.close();
  fs.rmSync(profile, { recursive: true, force: true });
})();
