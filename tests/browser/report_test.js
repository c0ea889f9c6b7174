// Proves that the HTML reports work in a real browser: four scenarios' reports open in headless
// Debian chromium without console errors, draw the right number of lanes, hold bars, key-lifetime
// bars, fault marks and violation highlights (counted independently from the --trace export),
// answer hover and step-through, keys, autoplay, #step=N links and presenter mode, and are saved
// as screenshots.
//
// Usage: node report_test.js REDLOCK_SIM SOURCE_DIR OUT_DIR
'use strict';
const { chromium } = require('playwright-core');
const { execFileSync } = require('child_process');
const fs = require('fs');
const os = require('os');
const path = require('path');
const assert = require('assert');

const [redlockSim, sourceDir, outDir] = process.argv.slice(2);
fs.mkdirSync(outDir, { recursive: true });

// What each scenario must show besides what the trace export says (faults are in the scenario).
const cases = [
  { scenario: 'kleppmann-clock-jump', marks: { 'clock-step': 1 }, partitions: 6, pauses: 0,
    overlaps: 1, staleAccepted: 0, staleRejected: 0, bothHoldAtUs: 3000000 },
  { scenario: 'kleppmann-clock-jump-fenced', marks: { 'clock-step': 1 }, partitions: 6, pauses: 0,
    overlaps: 1, staleAccepted: 0, staleRejected: 1, bothHoldAtUs: 3000000 },
  // At 12 s A is paused and its validity ran out at 9898 ms: the state says so.
  { scenario: 'gc-pause-after-acquire', marks: {}, partitions: 0, pauses: 1,
    overlaps: 0, staleAccepted: 1, staleRejected: 0, bothHoldAtUs: null,
    lapsedWhilePaused: { atUs: 12000000, client: 'A', endMs: '9898' } },
  // Its first step (A's acquisition at 1 ms) lies long before the window of the violation (15 s):
  // the page must still open on the violation.
  { scenario: 'pause-during-acquisition-no-elapsed-check', marks: {}, partitions: 0, pauses: 1,
    overlaps: 1, staleAccepted: 0, staleRejected: 0, bothHoldAtUs: null },
];

function render(name) {
  const html = path.join(outDir, name + '.html');
  const trace = path.join(outDir, name + '.trace.json');
  try {
    execFileSync(redlockSim, ['run', path.join(sourceDir, 'scenarios', name + '.json'),
      '--html', html, '--trace', trace], { stdio: 'pipe' });
  } catch (error) {
    if (error.status !== 1) throw error;  // 1: a violation the scenario expects or not; still drawn
  }
  return { html, trace: JSON.parse(fs.readFileSync(trace, 'utf8')) };
}

async function count(page, selector) {
  return page.locator(selector).count();
}

async function checkStructure(page, c, trace) {
  const lockKeys = trace.keys.filter((k) => k.key === 'lock');
  assert.strictEqual(await count(page, '#lanes g.lane'), trace.processes.length, 'lanes');
  for (const p of trace.processes) {
    assert.strictEqual(await count(page, `#lanes g.lane[data-process="${p.name}"]`), 1, 'lane ' + p.name);
  }
  assert.strictEqual(await count(page, '#holds g.hold'), trace.holds.length, 'hold bars');
  assert.ok(trace.holds.length >= 2, 'at least two holds');
  assert.strictEqual(await count(page, '#keys g.key'), lockKeys.length, 'key-lifetime bars');
  for (const [kind, n] of Object.entries(c.marks)) {
    assert.strictEqual(await count(page, `#marks g.mark-${kind}`), n, 'marks ' + kind);
  }
  assert.strictEqual(await count(page, '#partitions g.partition'), c.partitions, 'partition bands');
  assert.strictEqual(await count(page, '#pauses g.pause'), c.pauses, 'pauses');
  assert.strictEqual(await count(page, '.violation-overlap'), c.overlaps, 'overlap highlight');
  assert.strictEqual(await count(page, '.violation-stale_write[data-accepted="true"]'), c.staleAccepted,
    'stale write accepted');
  assert.strictEqual(await count(page, '.rejected-stale[data-accepted="false"]'), c.staleRejected,
    'stale write rejected');
  const overlaps = trace.violations.filter((v) => v.kind === 'overlap');
  if (overlaps.length) {
    const band = page.locator('.violation-overlap').first();
    assert.strictEqual(Number(await band.getAttribute('data-a')), overlaps[0].start_ns / 1000, 'overlap start');
    assert.strictEqual(Number(await band.getAttribute('data-b')), overlaps[0].end_ns / 1000, 'overlap end');
  }
  const story = await page.locator('#story').textContent();
  assert.ok(story.length > 80, 'a story paragraph');
}

// No label is clipped (by the chart, or by the plot's clip for labels inside it) and no two
// shown labels overlap, checked on the boxes the browser laid out.
async function checkLabelsClear(page, when) {
  const problems = await page.evaluate(() => {
    const svg = document.getElementById('chart');
    const s = svg.getBoundingClientRect();
    const scale = s.width / svg.viewBox.baseVal.width;
    const data = JSON.parse(document.getElementById('report-data').textContent);
    const plot = { left: s.left + data.plot[0] * scale, right: s.left + data.plot[1] * scale };
    const shown = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim() &&
      getComputedStyle(t).visibility !== 'hidden' && getComputedStyle(t).display !== 'none' &&
      !t.closest('[visibility="hidden"]'));
    const out = [];
    const boxes = shown.map((t) => ({ t, b: t.getBoundingClientRect(), inPlot: !!t.closest('#plot') }));
    for (const { t, b, inPlot } of boxes) {
      const left = inPlot ? plot.left : s.left;
      const right = inPlot ? plot.right : s.right;
      if (b.left < left - 0.5 || b.right > right + 0.5 || b.top < s.top - 0.5 || b.bottom > s.bottom + 0.5)
        out.push('clipped: ' + t.textContent);
    }
    for (let i = 0; i < boxes.length; i++) {
      for (let j = i + 1; j < boxes.length; j++) {
        const a = boxes[i].b;
        const b = boxes[j].b;
        if (Math.min(a.right, b.right) - Math.max(a.left, b.left) > 1 &&
            Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top) > 1)
          out.push('overlap: "' + boxes[i].t.textContent + '" and "' + boxes[j].t.textContent + '"');
      }
    }
    return out;
  });
  assert.deepStrictEqual(problems, [], 'labels clear ' + when);
}

async function checkInteraction(page, c, trace) {
  await checkLabelsClear(page, 'as opened');
  // The page opens on the interesting window (the violation), whatever the first step's time.
  const opened = await page.evaluate(() =>
    [window.redlockReport.view.start, window.redlockReport.view.end, window.redlockReport.openingWindow]);
  assert.deepStrictEqual([opened[0], opened[1]], opened[2], 'opens on the interesting window');
  // Step-through: next twice moves the slider and the cursor, and fills the state table.
  const first = Number(await page.inputValue('#step-slider'));
  await page.click('#step-next');
  await page.click('#step-next');
  assert.strictEqual(await page.inputValue('#step-slider'), String(first + 2), 'slider moved');
  assert.match(await page.textContent('#step-text'), new RegExp('^Step ' + (first + 3) + ' of \\d+'));
  assert.strictEqual(await page.locator('#cursor').getAttribute('visibility'), null, 'cursor shown');
  assert.strictEqual(await count(page, '#state tbody tr'), trace.processes.length, 'state rows');
  if (c.bothHoldAtUs !== null) {
    await page.evaluate((t) => window.redlockReport.goToTime(t), c.bothHoldAtUs);
    const believers = await page.locator('#state tbody tr', { hasText: 'believes it holds the lock' }).count();
    assert.strictEqual(believers, 2, 'two clients believe they hold the lock inside the overlap');
    // Hover over N3's lane: its wall clock reads 10 s ahead of true time after the jump.
    const lane = page.locator('#lanes g.lane[data-process="N3"] rect.lane-bg');
    const box = await lane.boundingBox();
    await page.mouse.move(box.x + box.width * 0.6, box.y + box.height / 2);
    const tip = await page.textContent('#tooltip');
    assert.match(tip, /N3 reads: wall .*\+10000 ms vs true/, 'hover shows N3 clock: ' + tip);
    await page.mouse.move(0, 0);
  }
  // Messages: the switch hides them all, the filter hides those of one process.
  const messages = await count(page, '#messages line.msg');
  assert.ok(messages > 0, 'messages drawn');
  await page.uncheck('.message-filter[value="N1"]');
  const filtered = await count(page, '#messages line.msg.filtered');
  assert.ok(filtered > 0 && filtered < messages, 'filter by process');
  await page.check('.message-filter[value="N1"]');
  // Zoom out to the whole run and back: ticks are redrawn.
  const ticksBefore = await page.locator('#axis text.tick').allTextContents();
  await page.click('#zoom-all');
  const ticksAll = await page.locator('#axis text.tick').allTextContents();
  assert.notDeepStrictEqual(ticksAll, ticksBefore, 'zoom redraws the axis');
  await checkLabelsClear(page, 'on the whole run');
  await page.click('#zoom-window');
  await checkLabelsClear(page, 'back on the window');
}

// For a teacher: the step-through reaches every hold's end (the end of an overlap), keys and
// autoplay move it, the address links to a step (#step=N) and to presenter mode, presenter mode
// enlarges the type, and a paused holder's state says what happened to it.
async function checkPresenting(page, c, html, context) {
  const reach = await page.evaluate(() => {
    const data = JSON.parse(document.getElementById('report-data').textContent);
    const steps = window.redlockReport.steps;
    return data.holds.filter((h) => h[3] < data.run_end)
      .filter((h) => !steps.some((s) => s[1] === h[0] && s[0] === h[3])).length;
  });
  assert.strictEqual(reach, 0, 'a step at every hold end');
  await page.click('#chart-wrap', { position: { x: 5, y: 5 } });
  await page.keyboard.press('Home');
  assert.strictEqual(await page.inputValue('#step-slider'), '0', 'Home goes to the first step');
  await page.keyboard.press('ArrowRight');
  await page.keyboard.press('ArrowRight');
  assert.strictEqual(await page.inputValue('#step-slider'), '2', 'arrows step');
  assert.strictEqual(await page.evaluate(() => location.hash), '#step=3', 'the address links the step');
  await page.keyboard.press('End');
  const last = Number(await page.inputValue('#step-slider'));
  assert.strictEqual(last, Number(await page.getAttribute('#step-slider', 'max')), 'End: the last step');
  await page.keyboard.press('Home');
  await page.click('#step-play');
  await page.waitForFunction(() => Number(document.getElementById('step-slider').value) >= 1,
    null, { timeout: 5000 });
  await page.click('#step-play');
  assert.strictEqual(await page.textContent('#step-play'), '▶ play', 'autoplay stops');
  const small = await page.$eval('#step-text', (e) => parseFloat(getComputedStyle(e).fontSize));
  await page.click('#presenter');
  await checkLabelsClear(page, 'in presenter mode');
  const large = await page.$eval('#step-text', (e) => parseFloat(getComputedStyle(e).fontSize));
  assert.ok(large >= 20 && large > small, 'presenter mode enlarges the type: ' + small + ' -> ' + large);
  assert.match(await page.evaluate(() => location.hash), /&presenter$/, 'the address keeps presenter mode');
  await page.click('#presenter');
  // A link to step 4 in presenter mode opens there.
  const linked = await context.newPage();
  await linked.goto('file://' + html + '#step=4&presenter');
  assert.strictEqual(await linked.inputValue('#step-slider'), '3', '#step=4 opens on step 4');
  assert.match(await linked.textContent('#step-text'), /^Step 4 of/);
  assert.ok(await linked.evaluate(() => document.body.classList.contains('presenter')), 'presenter link');
  await linked.close();
  if (c.lapsedWhilePaused) {
    const l = c.lapsedWhilePaused;
    await page.evaluate((t) => window.redlockReport.goToTime(t), l.atUs);
    const row = await page.locator('#state tbody tr', { hasText: l.client }).first().textContent();
    assert.ok(row.includes('ran out at ' + l.endMs + ' ms by its own clock; paused, it cannot notice'),
      'a paused holder\'s state: ' + row);
  }
}

// The comparison page: both reports on one time axis (the span covering both opening windows),
// and a zoom in one moves the other; the same runs give the same bytes.
async function checkComparison(context) {
  const html = path.join(outDir, 'compare.html');
  const args = ['compare', path.join(sourceDir, 'scenarios', 'kleppmann-clock-jump.json'),
    path.join(sourceDir, 'scenarios', 'gc-pause-after-acquire.json'), '--html'];
  execFileSync(redlockSim, args.concat([html]), { stdio: 'pipe' });
  execFileSync(redlockSim, args.concat([html + '.again']), { stdio: 'pipe' });
  assert.ok(fs.readFileSync(html).equals(fs.readFileSync(html + '.again')), 'same bytes twice');
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto('file://' + html);
  await page.waitForSelector('body[data-ready="yes"]', { timeout: 20000 });
  const views = () => page.evaluate(() => ['run-a', 'run-b'].map((id) => {
    const r = document.getElementById(id).contentWindow.redlockReport;
    return [r.view.start, r.view.end];
  }));
  const windows = await page.evaluate(() => ['run-a', 'run-b'].map((id) =>
    document.getElementById(id).contentWindow.redlockReport.openingWindow));
  const opened = await views();
  assert.deepStrictEqual(opened[0], opened[1], 'one time axis');
  assert.deepStrictEqual(opened[0], [Math.min(windows[0][0], windows[1][0]),
    Math.max(windows[0][1], windows[1][1])], 'the span of both opening windows');
  await page.frameLocator('#run-a').locator('#zoom-in').click();
  const zoomed = await views();
  assert.notDeepStrictEqual(zoomed[0], opened[0], 'the zoom moved run A');
  assert.deepStrictEqual(zoomed[1], zoomed[0], 'run B follows run A');
  await page.frameLocator('#run-b').locator('#zoom-all').click();
  const all = await views();
  assert.deepStrictEqual(all[0], all[1], 'run A follows run B');
  assert.deepStrictEqual(errors, [], 'no page errors');
  await page.screenshot({ path: path.join(outDir, 'compare.png'), fullPage: false });
  await page.close();
}

(async () => {
  const started = Date.now();
  const profile = fs.mkdtempSync(path.join(os.tmpdir(), 'redlock-browser-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    viewport: { width: 1260, height: 900 },
    // Without the background-networking flags chromium tries to reach the internet.
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  let failed = false;
  try {
    for (const c of cases) {
      const { html, trace } = render(c.scenario);
      const page = await context.newPage();
      const errors = [];
      page.on('console', (m) => { if (m.type() === 'error') errors.push(m.text()); });
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('request', (r) => { if (!r.url().startsWith('file://') && !r.url().startsWith('data:')) errors.push('network request: ' + r.url()); });
      try {
        await page.goto('file://' + html);
        await checkStructure(page, c, trace);
        await page.screenshot({ path: path.join(outDir, c.scenario + '.png'), fullPage: true });
        await checkInteraction(page, c, trace);
        await checkPresenting(page, c, html, context);
        await page.screenshot({ path: path.join(outDir, c.scenario + '.stepped.png'), fullPage: true });
        assert.deepStrictEqual(errors, [], 'no console errors');
        console.log('ok   ' + c.scenario);
      } catch (error) {
        failed = true;
        console.log('FAIL ' + c.scenario + ': ' + error.message);
      }
      await page.close();
    }
    try {
      await checkComparison(context);
      console.log('ok   compare');
    } catch (error) {
      failed = true;
      console.log('FAIL compare: ' + error.message);
    }
  } finally {
    await context.close();
    fs.rmSync(profile, { recursive: true, force: true });
  }
  console.log(`screenshots in ${outDir}; ${((Date.now() - started) / 1000).toFixed(1)} s`);
  process.exit(failed ? 1 : 0);
})();
