// The HTML report's script (embedded in every page; see reports/html_report.cpp). The page is
// drawn without it; this adds zoom (re-laying out every element from its true time, data-a and
// data-b in microseconds), hover readings of each process's clocks, the message toggle and
// filters, and the step-through cursor with each process's state at that instant.
(function () {
  'use strict';
  const data = JSON.parse(document.getElementById('report-data').textContent);
  const chart = document.getElementById('chart');
  const offsets = document.getElementById('offsets');
  const tooltip = document.getElementById('tooltip');
  const SVG = 'http://www.w3.org/2000/svg';
  const plotLeft = data.plot[0];
  const plotRight = data.plot[1];
  const axisHeight = data.geometry[0];
  const laneHeight = data.geometry[1];
  const view = { start: data.window[0], end: data.window[1] };
  const lanes = [];
  data.processes.forEach(function (p, id) { lanes[p.lane] = id; });

  function msText(us) {
    const negative = us < 0;
    let magnitude = Math.abs(Math.round(us));
    let out = (negative ? '-' : '') + Math.floor(magnitude / 1000);
    let fraction = magnitude % 1000;
    if (fraction === 0) return out;
    let digits = 3;
    while (fraction % 10 === 0) { fraction /= 10; digits -= 1; }
    return out + '.' + String(fraction).padStart(digits, '0');
  }
  function xOf(us, clamp) {
    const span = Math.max(view.end - view.start, 1);
    const x = plotLeft + (us - view.start) / span * (plotRight - plotLeft);
    return clamp === false ? x : Math.min(Math.max(x, plotLeft - 4), plotRight + 4);
  }
  function timeOf(x) {
    return view.start + (x - plotLeft) / (plotRight - plotLeft) * (view.end - view.start);
  }
  function fixed(v) { return v.toFixed(1); }

  // A process's clocks at true time t (µs): piecewise linear between the recorded points.
  function clockAt(id, t) {
    const points = data.processes[id].clock;
    let lo = 0;
    let hi = points.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (points[mid][0] <= t) lo = mid; else hi = mid - 1;
    }
    const i = Math.min(lo, Math.max(points.length - 2, 0));
    const p = points[i];
    const q = points[Math.min(i + 1, points.length - 1)];
    const slope = q[0] > p[0] ? (q[2] - p[2]) / (q[0] - p[0]) : 1;
    const base = points[lo][0] <= t ? points[lo] : p;
    const dt = t - base[0];
    return { wall: base[1] + slope * dt, monotonic: base[2] + slope * dt };
  }
  function wallText(wallUs) {
    const iso = new Date(data.epoch_ms + Math.floor(wallUs / 1000)).toISOString();
    return iso.slice(11, 23);
  }
  function clockText(id, t) {
    const c = clockAt(id, t);
    const ahead = Math.round(c.wall - t);
    const sign = ahead >= 0 ? '+' : '';
    return { wall: wallText(c.wall) + ' (' + sign + msText(ahead) + ' ms vs true)',
             monotonic: msText(c.monotonic) + ' ms' };
  }

  function tickStep(span) {
    const target = Math.max(Math.floor(span / 8), 1);
    for (let power = 1; ; power *= 10) {
      for (const factor of [1, 2, 5]) if (factor * power >= target) return factor * power;
    }
  }
  function tickLabel(t, step) {
    return step >= 1000000 ? msText(Math.trunc(t / 1000)) + ' s' : msText(t) + ' ms';
  }
  function drawAxis() {
    const axis = document.getElementById('axis');
    const height = chart.viewBox.baseVal.height;
    const title = axis.querySelector('.axis-title');
    axis.replaceChildren();
    const step = tickStep(view.end - view.start);
    for (let t = Math.ceil(view.start / step) * step; t <= view.end; t += step) {
      const x = fixed(xOf(t));
      const line = document.createElementNS(SVG, 'line');
      line.setAttribute('class', 'grid');
      line.setAttribute('x1', x); line.setAttribute('x2', x);
      line.setAttribute('y1', 20); line.setAttribute('y2', height);
      const text = document.createElementNS(SVG, 'text');
      text.setAttribute('class', 'tick');
      text.setAttribute('x', x); text.setAttribute('y', 14);
      text.textContent = tickLabel(t, step);
      axis.append(line, text);
    }
    if (title) axis.append(title);
  }

  const labelWidths = new Map();
  function placeLabel(text, a, b) {
    const left = Math.max(xOf(a), plotLeft) + 4;
    text.setAttribute('x', fixed(left));
    if (!labelWidths.has(text)) labelWidths.set(text, text.getComputedTextLength());
    const fits = text.classList.contains('partition-label') || text.classList.contains('violation-label') ||
      Math.min(xOf(b), plotRight) - left >= labelWidths.get(text);
    // A hold too short to carry its name (a few pixels, drawn at the minimum width) is named just
    // after its end instead; the declutter pass below hides it if it would cover another label.
    const bar = text.previousElementSibling;
    const shortHold = !fits && bar && bar.classList.contains('hold-bar');
    text.classList.toggle('outside', shortHold);
    if (shortHold) text.setAttribute('x', fixed(Math.max(xOf(b), xOf(a) + 3, plotLeft) + 3));
    if (fits || shortHold) text.removeAttribute('visibility'); else text.setAttribute('visibility', 'hidden');
  }

  // No label is clipped or covers another: a label running past the plot's right edge is moved
  // left to end there, and a label that would overlap one drawn before it (in document order:
  // lanes, then bars, then marks) is hidden; its words stay in the hover text of its element.
  function declutter() {
    const svgBox = chart.getBoundingClientRect();
    const plotBox = { left: svgBox.left + plotLeft * svgBox.width / chart.viewBox.baseVal.width,
                      right: svgBox.left + plotRight * svgBox.width / chart.viewBox.baseVal.width };
    const placed = new Map();  // rows of 8 px -> boxes already shown there
    const texts = chart.querySelectorAll('text');
    for (const text of texts) {
      if (text.getAttribute('visibility') === 'hidden' || !text.textContent.trim()) continue;
      const inPlot = text.closest('#plot') !== null;
      let box = text.getBoundingClientRect();
      const right = inPlot ? plotBox.right : svgBox.right;
      if (box.right > right - 1 && box.width < right - (inPlot ? plotBox.left : svgBox.left)) {
        const shift = (box.right - right + 2) * chart.viewBox.baseVal.width / svgBox.width;
        text.setAttribute('x', fixed(Number(text.getAttribute('x')) - shift));
        const backing = text.previousElementSibling;
        if (backing && backing.classList.contains('highlight-box')) {
          backing.setAttribute('x', fixed(Number(backing.getAttribute('x')) - shift));
        }
        box = text.getBoundingClientRect();
      }
      const rows = [];
      for (let r = Math.floor(box.top / 8) - 2; r <= Math.floor(box.bottom / 8) + 1; r++) rows.push(r);
      const covers = rows.some(function (r) {
        return (placed.get(r) || []).some(function (o) {
          return Math.min(o.right, box.right) - Math.max(o.left, box.left) > 0.5 &&
                 Math.min(o.bottom, box.bottom) - Math.max(o.top, box.top) > 0.5;
        });
      });
      if (covers) { text.setAttribute('visibility', 'hidden'); continue; }
      const row = Math.floor(box.top / 8);
      if (!placed.has(row)) placed.set(row, []);
      placed.get(row).push(box);
    }
  }
  function layout() {
    drawAxis();
    chart.querySelectorAll('#plot [data-a]').forEach(function (el) {
      const a = Number(el.dataset.a);
      const hasB = el.dataset.b !== undefined;
      const b = hasB ? Number(el.dataset.b) : a;
      const tag = el.tagName.toLowerCase();
      if (tag === 'rect') {
        const x0 = xOf(a);
        const minimum = el.classList.contains('violation-band') || el.classList.contains('violation-outline') ? 2 : 3;
        el.setAttribute('x', fixed(x0));
        el.setAttribute('width', fixed(Math.max(xOf(b) - x0, minimum)));
      } else if (tag === 'text') {
        placeLabel(el, a, b);
      } else if (tag === 'line') {
        el.setAttribute('x1', fixed(xOf(a)));
        el.setAttribute('x2', fixed(xOf(b)));
      } else if (tag === 'circle') {
        el.setAttribute('cx', fixed(xOf(a)));
      } else if (tag === 'g' && !hasB) {
        el.setAttribute('transform', 'translate(' + fixed(xOf(a)) + ',0)');
      }
    });
    // Labels inside translated groups (resource operations, highlights) are placed by their
    // group; they start from their drawn position at each layout.
    chart.querySelectorAll('#plot g[data-a] > text').forEach(function (text) {
      if (!text.hasAttribute('x')) return;
      if (!text.dataset.x) text.dataset.x = text.getAttribute('x');
      text.setAttribute('x', text.dataset.x);
      text.removeAttribute('visibility');
      const backing = text.previousElementSibling;
      if (backing && backing.classList.contains('highlight-box')) {
        if (!backing.dataset.x) backing.dataset.x = backing.getAttribute('x');
        backing.setAttribute('x', backing.dataset.x);
      }
    });
    declutter();
    drawOffsets();
    placeCursor();
  }

  function drawOffsets() {
    const extent = Number(offsets.dataset.extentMs);
    const height = offsets.viewBox.baseVal.height;
    const middle = height / 2;
    const scale = (middle - 14) / extent;
    offsets.querySelectorAll('.offset-line').forEach(function (line) {
      const id = data.processes.findIndex(function (p) { return p.name === line.dataset.process; });
      const clock = data.processes[id].clock;
      const points = [];
      for (let i = 0; i + 1 < clock.length; i++) {
        const p = clock[i];
        const q = clock[i + 1];
        const slope = (q[2] - p[2]) / Math.max(q[0] - p[0], 1);
        for (const t of [p[0], q[0]]) {
          const offsetMs = (p[1] + slope * (t - p[0]) - t) / 1000;
          points.push(fixed(xOf(t, false)) + ',' + fixed(middle - offsetMs * scale));
        }
      }
      line.setAttribute('points', points.join(' '));
    });
  }

  // How far the view may reach: the run's end, or a longer run's on a comparison page.
  let extent = data.run_end;
  function zoomTo(start, end) {
    const minimum = 1000;
    if (end - start < minimum) { const c = (start + end) / 2; start = c - minimum / 2; end = c + minimum / 2; }
    const startBefore = view.start;
    const endBefore = view.end;
    view.start = Math.max(Math.round(start), 0);
    view.end = Math.round(Math.min(end, extent * 1.02 + 1000));
    layout();
    // A comparison page keeps two reports on one time axis by listening to this.
    if (view.start !== startBefore || view.end !== endBefore) {
      window.dispatchEvent(new CustomEvent('redlock-view', { detail: { start: view.start, end: view.end } }));
    }
  }
  function zoomBy(factor) {
    const centre = (view.start + view.end) / 2;
    const half = (view.end - view.start) * factor / 2;
    zoomTo(centre - half, centre + half);
  }
  document.getElementById('zoom-window').addEventListener('click', function () { zoomTo(data.window[0], data.window[1]); });
  document.getElementById('zoom-all').addEventListener('click', function () { zoomTo(0, extent); });
  document.getElementById('zoom-in').addEventListener('click', function () { zoomBy(0.5); });
  document.getElementById('zoom-out').addEventListener('click', function () { zoomBy(2); });

  // Messages: one switch for all, and a filter that keeps the messages between checked processes.
  const messages = document.getElementById('messages');
  const showMessages = document.getElementById('show-messages');
  function applyMessageFilter() {
    messages.classList.toggle('hidden', !showMessages.checked);
    const shown = new Set();
    document.querySelectorAll('.message-filter').forEach(function (box) { if (box.checked) shown.add(box.value); });
    messages.querySelectorAll('.msg').forEach(function (line) {
      line.classList.toggle('filtered', !(shown.has(line.dataset.from) && shown.has(line.dataset.to)));
    });
  }
  showMessages.addEventListener('change', applyMessageFilter);
  document.querySelectorAll('.message-filter').forEach(function (box) { box.addEventListener('change', applyMessageFilter); });

  function svgPoint(event) {
    const box = chart.getBoundingClientRect();
    const viewBox = chart.viewBox.baseVal;
    return { x: (event.clientX - box.left) * viewBox.width / box.width,
             y: (event.clientY - box.top) * viewBox.height / box.height };
  }

  // Hover: a dashed line at the true instant under the mouse, with the clocks of the process
  // whose lane it is over, and the details of the element under it.
  const hoverLine = document.createElementNS(SVG, 'line');
  hoverLine.setAttribute('class', 'hover-line');
  hoverLine.setAttribute('visibility', 'hidden');
  chart.append(hoverLine);
  const brush = document.createElementNS(SVG, 'rect');
  brush.setAttribute('class', 'brush');
  brush.setAttribute('visibility', 'hidden');
  chart.append(brush);
  let dragFrom = null;
  function escapeHtml(text) {
    return text.replace(/[&<>"]/g, function (c) { return { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }[c]; });
  }
  chart.addEventListener('mousemove', function (event) {
    const p = svgPoint(event);
    if (p.x < plotLeft || p.x > plotRight) { tooltip.hidden = true; hoverLine.setAttribute('visibility', 'hidden'); return; }
    const t = Math.round(timeOf(p.x));
    hoverLine.setAttribute('x1', fixed(p.x)); hoverLine.setAttribute('x2', fixed(p.x));
    hoverLine.setAttribute('y1', 20); hoverLine.setAttribute('y2', chart.viewBox.baseVal.height);
    hoverLine.removeAttribute('visibility');
    if (dragFrom !== null) {
      brush.setAttribute('x', fixed(Math.min(dragFrom, p.x))); brush.setAttribute('width', fixed(Math.abs(p.x - dragFrom)));
      brush.setAttribute('y', 0); brush.setAttribute('height', chart.viewBox.baseVal.height);
      brush.removeAttribute('visibility');
    }
    let html = '<b>true time ' + msText(t) + ' ms</b>';
    const lane = Math.floor((p.y - axisHeight) / laneHeight);
    if (lane >= 0 && lane < lanes.length) {
      const id = lanes[lane];
      const c = clockText(id, t);
      html += '<br><b>' + escapeHtml(data.processes[id].name) + '</b> reads: wall ' + c.wall + ', monotonic ' + c.monotonic;
    }
    const item = event.target.closest('[data-info]');
    if (item) html += '<br>' + escapeHtml(item.dataset.info);
    tooltip.innerHTML = html;
    tooltip.hidden = false;
    const wrap = chart.parentElement.getBoundingClientRect();
    const left = event.clientX - wrap.left + 14;
    tooltip.style.left = Math.min(left, wrap.width - 470) + 'px';
    tooltip.style.top = (event.clientY - wrap.top + 14) + 'px';
  });
  chart.addEventListener('mouseleave', function () {
    tooltip.hidden = true; hoverLine.setAttribute('visibility', 'hidden');
    dragFrom = null; brush.setAttribute('visibility', 'hidden');
  });
  // Drag across the chart to zoom into that stretch; a click moves the cursor there.
  chart.addEventListener('mousedown', function (event) {
    const p = svgPoint(event);
    if (p.x >= plotLeft && p.x <= plotRight) { dragFrom = p.x; event.preventDefault(); }
  });
  chart.addEventListener('mouseup', function (event) {
    if (dragFrom === null) return;
    const p = svgPoint(event);
    const from = dragFrom;
    dragFrom = null;
    brush.setAttribute('visibility', 'hidden');
    if (Math.abs(p.x - from) > 6) {
      zoomTo(timeOf(Math.min(from, p.x)), timeOf(Math.max(from, p.x)));
    } else {
      goToTime(timeOf(p.x));
    }
  });

  // A hold that ends because the holder's clock passed its deadline is no story event (nobody did
  // anything), yet the end of an overlap is where the interesting window ends: the step-through
  // visits each hold's end too, unless the holder did something at that instant (a release, a
  // crash) that tells it already.
  for (const h of data.holds) {
    if (h[3] >= data.run_end) continue;
    if (data.steps.some(function (s) { return s[1] === h[0] && s[0] === h[3]; })) continue;
    data.steps.push([h[3], h[0], 'hold end', 'no longer believes it holds the lock (grant ' + h[1] +
                     '): its validity ran out by its own clock', -1]);
  }
  data.steps.sort(function (a, b) { return a[0] - b[0]; });

  // Step-through: a cursor on one story event at a time, and every process's state there.
  const slider = document.getElementById('step-slider');
  slider.max = String(Math.max(data.steps.length - 1, 0));
  const stepText = document.getElementById('step-text');
  const stateBody = document.querySelector('#state tbody');
  const cursor = document.getElementById('cursor');
  let cursorTime = null;
  function placeCursor() {
    if (cursorTime === null) return;
    const x = fixed(xOf(cursorTime));
    cursor.setAttribute('x1', x); cursor.setAttribute('x2', x);
    cursor.removeAttribute('visibility');
  }
  function nameOf(id) { return id >= 0 ? data.processes[id].name : 'someone'; }
  function stateOf(id, t) {
    const parts = [];
    for (const s of data.spans) if (s[0] === id && s[2] <= t && t < s[3]) parts.push(s[1].toUpperCase());
    const role = data.processes[id].role;
    if (role === 'client') {
      const held = data.holds.filter(function (h) { return h[0] === id && h[2] <= t && t < h[3]; });
      const pause = data.spans.find(function (s) { return s[0] === id && s[1] === 'paused' && s[2] <= t && t < s[3]; });
      // A paused holder whose deadline passed during the pause does not "believe" anything: it
      // is not running. Say what happened to it instead.
      const lapsed = pause && data.holds.filter(function (h) { return h[0] === id && pause[2] <= h[3] && h[3] <= t; });
      if (held.length) {
        parts.push(held.map(function (h) { return 'believes it holds the lock (grant ' + h[1] + ', until ' + msText(h[3]) + ' ms true time)'; }).join('; '));
      } else if (lapsed && lapsed.length) {
        const h = lapsed[lapsed.length - 1];
        parts.push('its validity (grant ' + h[1] + ') ran out at ' + msText(h[3]) + ' ms by its own clock; paused, it cannot notice');
      } else {
        parts.push('does not believe it holds the lock');
      }
    } else if (role === 'node') {
      const keys = data.keys.filter(function (k) { return k[0] === id && k[2] <= t && t < k[3]; });
      parts.push(keys.length ? keys.map(function (k) {
        let text = 'holds ' + nameOf(k[1]) + "'s key";
        if (k[5] !== null) {
          // Redis's now > when: the key reads as missing from when + 1 on the node's clock.
          const left = (k[5] + 1) * 1000 - clockAt(id, t).wall;
          text += ', missing in ' + msText(left) + ' ms by its own wall clock (when = ' + k[5] + ')';
        }
        if (k[6] !== null) text += '; expires from ' + k[6] + ' ms true time';
        return text;
      }).join('; ') : 'no lock key');
    } else if (role === 'resource') {
      let value = null;
      for (const op of data.ops) if (op[0] <= t && op[2] === 'write' && op[4]) value = op[3];
      parts.push(value === null ? 'not written yet' : 'register = ' + value);
    }
    let last = null;
    for (const s of data.steps) { if (s[0] > t) break; if (s[1] === id) last = s; }
    if (last) parts.push('last: ' + last[3] + ' (' + msText(last[0]) + ' ms)');
    return parts.length ? parts.join(' · ') : 'running, nothing to report yet';
  }
  function showState(t) {
    const rows = [];
    for (const id of lanes) {
      const c = clockText(id, t);
      rows.push('<tr><td><b>' + escapeHtml(data.processes[id].name) + '</b></td><td class="clock">' + c.wall +
                '</td><td class="clock">' + c.monotonic + '</td><td>' + escapeHtml(stateOf(id, t)) + '</td></tr>');
    }
    stateBody.innerHTML = rows.join('');
  }
  function goToStep(index) {
    if (!data.steps.length) return;
    index = Math.max(0, Math.min(index, data.steps.length - 1));
    slider.value = String(index);
    const step = data.steps[index];
    cursorTime = step[0];
    if (cursorTime < view.start || cursorTime > view.end) {
      // Follow the cursor with the same zoom; near the start, keep the view's width.
      const width = view.end - view.start;
      const start = Math.max(cursorTime - width / 2, 0);
      zoomTo(start, start + width);
    }
    placeCursor();
    chart.querySelectorAll('.ev.current').forEach(function (el) { el.classList.remove('current'); });
    const dot = chart.querySelector('.ev[data-i="' + step[4] + '"]');
    if (dot) dot.classList.add('current');
    stepText.textContent = 'Step ' + (index + 1) + ' of ' + data.steps.length + ' · ' + msText(step[0]) + ' ms · ' +
      data.processes[step[1]].name + ' [' + step[2] + '] ' + step[3];
    showState(step[0]);
  }
  function goToTime(t) {
    let index = 0;
    for (let i = 0; i < data.steps.length; i++) if (data.steps[i][0] <= t) index = i;
    if (data.steps.length) goToStep(index);
    cursorTime = Math.round(t);
    placeCursor();
    showState(cursorTime);
  }
  // A step a person chose is in the address (#step=N, from 1), so it can be linked to.
  function chooseStep(index) {
    goToStep(index);
    if (!data.steps.length) return;
    try {
      history.replaceState(null, '', '#step=' + (Number(slider.value) + 1) +
                           (document.body.classList.contains('presenter') ? '&presenter' : ''));
    } catch (e) { /* a page without an address of its own (srcdoc) keeps none */ }
  }
  slider.addEventListener('input', function () { chooseStep(Number(slider.value)); });
  document.getElementById('step-prev').addEventListener('click', function () { chooseStep(Number(slider.value) - 1); });
  document.getElementById('step-next').addEventListener('click', function () { chooseStep(Number(slider.value) + 1); });

  // Autoplay: one step a second until the last; any other control stops it.
  const play = document.getElementById('step-play');
  let playing = null;
  function stopPlaying() {
    if (playing === null) return;
    clearInterval(playing);
    playing = null;
    play.textContent = '▶ play';
  }
  function togglePlay() {
    if (playing !== null) { stopPlaying(); return; }
    if (Number(slider.value) >= data.steps.length - 1) chooseStep(0);
    play.textContent = '❚❚ pause';
    playing = setInterval(function () {
      if (Number(slider.value) >= data.steps.length - 1) { stopPlaying(); return; }
      chooseStep(Number(slider.value) + 1);
    }, 1000);
  }
  play.addEventListener('click', togglePlay);

  // Presenter mode: large type for a projector.
  function setPresenter(on) {
    document.body.classList.toggle('presenter', on);
    chooseStep(Number(slider.value));
  }
  document.getElementById('presenter').addEventListener('click', function () {
    setPresenter(!document.body.classList.contains('presenter'));
  });

  // Keys: arrows step, Home/End jump, space plays, p toggles presenter mode.
  document.addEventListener('keydown', function (event) {
    const tag = event.target && event.target.tagName;
    if (tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || event.ctrlKey || event.metaKey || event.altKey) return;
    const index = Number(slider.value);
    const actions = {
      ArrowRight: function () { stopPlaying(); chooseStep(index + 1); },
      ArrowLeft: function () { stopPlaying(); chooseStep(index - 1); },
      Home: function () { stopPlaying(); chooseStep(0); },
      End: function () { stopPlaying(); chooseStep(data.steps.length - 1); },
      ' ': togglePlay,
      p: function () { setPresenter(!document.body.classList.contains('presenter')); },
    };
    if (!actions[event.key]) return;
    event.preventDefault();
    actions[event.key]();
  });

  // Exposed for the browser test and for people poking at the page from the console.
  window.redlockReport = { goToStep: goToStep, goToTime: goToTime, zoomTo: zoomTo, view: view,
                           openingWindow: data.window, steps: data.steps,
                           extendTo: function (t) { extent = Math.max(extent, t); } };
  applyMessageFilter();
  layout();
  // The page opens on the interesting window, with the cursor on its first step (a cursor on the
  // run's first step would drag the view away from the violation).
  const linked = new URLSearchParams(location.hash.slice(1));
  if (linked.has('presenter')) document.body.classList.add('presenter');
  const linkedStep = Number(linked.get('step'));
  if (data.steps.length && Number.isInteger(linkedStep) && linkedStep >= 1) {
    goToStep(Math.min(linkedStep, data.steps.length) - 1);
  } else if (data.steps.length) {
    let first = 0;
    while (first + 1 < data.steps.length && data.steps[first][0] < data.window[0]) first++;
    if (data.steps[first][0] > data.window[1]) first = 0;
    if (data.steps[first][0] >= data.window[0] && data.steps[first][0] <= data.window[1]) {
      goToStep(first);
    } else {
      slider.value = '0';
    }
  }
})();
