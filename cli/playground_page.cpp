// The playground's one page (`redlock-sim serve`): pick a scenario, edit its numbers or its raw
// JSON, and the run's verdicts, story and HTML report update; a sweep over one number; a link
// that carries the edited scenario. Everything it shows comes from the server's /api/*.
#include "cli/playground_page.hpp"

namespace redlock_sim::cli {

const char* const playground_page = R"PAGE(<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>redlock-sim playground</title>
<style>
body{font-family:system-ui,sans-serif;margin:0;color:#222}
header{background:#263238;color:#fff;padding:.6em 1em;display:flex;gap:1em;align-items:center;
  flex-wrap:wrap}
header h1{font-size:1.2em;margin:0}
#layout{display:grid;grid-template-columns:minmax(320px,28%) 1fr;gap:1em;padding:1em}
#fields{display:grid;grid-template-columns:1fr 8em;gap:.2em .5em;font-size:.85em;
  max-height:18em;overflow:auto}
#fields label{font-family:monospace;overflow-wrap:anywhere}
#raw{width:100%;height:22em;font-family:monospace;font-size:.8em}
#error{background:#ffebee;border:1px solid #c62828;color:#b71c1c;padding:.5em;
  font-family:monospace;white-space:pre-wrap}
#verdicts span{display:inline-block;padding:.2em .6em;margin:0 .4em .4em 0;border-radius:3px;
  color:#fff;background:#9e9e9e}
#verdicts span.holds{background:#2e7d32}
#verdicts span.violated{background:#c62828}
#summary{background:#f5f5f5;padding:.5em;font-size:.8em;max-height:14em;overflow:auto;
  white-space:pre-wrap}
#report{width:100%;height:70vh;border:1px solid #ccc}
h2{font-size:1em;margin:.8em 0 .3em}
#description{margin:.5em 1em 0;color:#444}
</style>
</head>
<body>
<header>
<h1>redlock-sim playground</h1>
<label>Scenario <select id="scenario"></select></label>
<button id="run">Run</button>
<button id="share">Link to this scenario</button>
<input id="share-link" readonly size="50" aria-label="link">
<span id="status"></span>
</header>
<p id="description"></p>
<div id="layout">
<section id="edit">
<h2>Numbers</h2>
<div id="fields"></div>
<h2>Raw JSON</h2>
<textarea id="raw" spellcheck="false" aria-label="scenario JSON"></textarea>
<h2>Sweep one number</h2>
<div><select id="sweep-path" aria-label="field to vary"></select></div>
<div><input id="sweep-from" type="number" aria-label="from" style="width:7em"> ..
<input id="sweep-to" type="number" aria-label="to" style="width:7em">
step <input id="sweep-step" type="number" placeholder="auto" aria-label="step" style="width:5em">
<button id="sweep">Sweep</button></div>
</section>
<section id="result">
<div id="error" hidden></div>
<div id="verdicts"><span id="verdict-mutual_exclusion">mutual exclusion</span><span
 id="verdict-resource_safety">resource safety</span><span id="verdict-liveness">liveness</span></div>
<pre id="summary"></pre>
<iframe id="report" title="report"></iframe>
</section>
</div>
<script>
'use strict';
const $ = (id) => document.getElementById(id);
let file = 'playground.json';
let timer = null;
let generation = 0;

function toBase64Url(text) {
  const bytes = new TextEncoder().encode(text);
  let binary = '';
  for (const b of bytes) binary += String.fromCharCode(b);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}
function fromBase64Url(text) {
  const binary = atob(text.replace(/-/g, '+').replace(/_/g, '/'));
  return new TextDecoder().decode(Uint8Array.from(binary, (c) => c.charCodeAt(0)));
}

// Every integer of the scenario, by the JSON path the parser's messages use.
function integerLeaves(value, path, out) {
  if (Array.isArray(value)) {
    value.forEach((v, i) => integerLeaves(v, path + '[' + i + ']', out));
  } else if (value !== null && typeof value === 'object') {
    for (const key of Object.keys(value)) integerLeaves(value[key], path + '.' + key, out);
  } else if (Number.isInteger(value)) {
    out.push({ path, value });
  }
  return out;
}
function setAt(document, path, value) {
  const parts = path.slice(1).match(/\.[^.[]+|\[\d+\]/g);
  let node = document;
  for (let i = 0; i < parts.length; ++i) {
    const key = parts[i][0] === '.' ? parts[i].slice(1) : Number(parts[i].slice(1, -1));
    if (i + 1 === parts.length) node[key] = value; else node = node[key];
  }
}

function buildFields() {
  let document;
  try { document = JSON.parse($('raw').value); } catch (e) { return; }
  const leaves = integerLeaves(document, '$', []).slice(0, 80);
  const fields = $('fields');
  fields.textContent = '';
  const sweepPath = $('sweep-path');
  const chosen = sweepPath.value;
  sweepPath.textContent = '';
  for (const leaf of leaves) {
    const label = window.document.createElement('label');
    label.textContent = leaf.path;
    const input = window.document.createElement('input');
    input.type = 'number';
    input.step = '1';
    input.value = String(leaf.value);
    input.dataset.path = leaf.path;
    input.setAttribute('aria-label', leaf.path);
    label.htmlFor = input.id = 'field-' + leaf.path;
    input.addEventListener('input', () => {
      if (!/^-?\d+$/.test(input.value)) return;
      let current;
      try { current = JSON.parse($('raw').value); } catch (e) { return; }
      setAt(current, leaf.path, Number(input.value));
      $('raw').value = JSON.stringify(current, null, 2) + '\n';
      scheduleRun();
    });
    fields.append(label, input);
    const option = window.document.createElement('option');
    option.value = option.textContent = leaf.path;
    sweepPath.append(option);
  }
  if (chosen && leaves.some((l) => l.path === chosen)) sweepPath.value = chosen;
}

function showError(message) {
  $('error').textContent = message;
  $('error').hidden = false;
  for (const checker of ['mutual_exclusion', 'resource_safety', 'liveness']) {
    $('verdict-' + checker).className = '';
  }
}

async function post(url, body) {
  const response = await fetch(url, { method: 'POST', body });
  return response.json();
}

async function run() {
  const mine = ++generation;
  $('status').textContent = 'running...';
  const reply = await post('/api/run?file=' + encodeURIComponent(file), $('raw').value);
  if (mine !== generation) return;
  $('status').textContent = '';
  if (!reply.ok) { showError(reply.error); return; }
  $('error').hidden = true;
  for (const [checker, verdict] of Object.entries(reply.verdicts)) {
    const span = $('verdict-' + checker);
    span.className = verdict;
    span.textContent = checker.replace('_', ' ') + ': ' + verdict.replace('_', ' ');
  }
  $('summary').textContent = reply.summary;
  $('report').srcdoc = reply.report;
  $('report').dataset.generation = String(mine);
}
function scheduleRun() {
  clearTimeout(timer);
  timer = setTimeout(run, 150);
}

async function sweep() {
  const path = $('sweep-path').value;
  const step = $('sweep-step').value;
  const vary = path + '=' + $('sweep-from').value + '..' + $('sweep-to').value +
    (step ? ':' + step : '');
  const mine = ++generation;
  $('status').textContent = 'sweeping...';
  const reply = await post('/api/sweep?file=' + encodeURIComponent(file) + '&vary=' +
    encodeURIComponent(vary), $('raw').value);
  if (mine !== generation) return;
  $('status').textContent = '';
  if (!reply.ok) { showError(reply.error); return; }
  $('error').hidden = true;
  $('summary').textContent = reply.summary;
  $('report').srcdoc = reply.page;
}

async function choose(name) {
  const text = await (await fetch('/api/scenario?name=' + encodeURIComponent(name))).text();
  file = name + '.json';
  $('raw').value = text;
  const entry = scenarios.find((s) => s.name === name);
  $('description').textContent = entry ? entry.description : '';
  buildFields();
  await run();
}

function share() {
  location.hash = 'file=' + encodeURIComponent(file) + '&scenario=' + toBase64Url($('raw').value);
  $('share-link').value = location.href;
}

let scenarios = [];
async function start() {
  scenarios = await (await fetch('/api/scenarios')).json();
  for (const s of scenarios) {
    const option = document.createElement('option');
    option.value = option.textContent = s.name;
    $('scenario').append(option);
  }
  $('scenario').addEventListener('change', () => choose($('scenario').value));
  $('run').addEventListener('click', run);
  $('sweep').addEventListener('click', sweep);
  $('share').addEventListener('click', share);
  $('raw').addEventListener('input', () => { buildFields(); scheduleRun(); });
  const shared = new URLSearchParams(location.hash.slice(1));
  if (shared.get('scenario')) {
    file = shared.get('file') || file;
    const name = file.replace(/\.json$/, '');
    if (scenarios.some((s) => s.name === name)) $('scenario').value = name;
    $('raw').value = fromBase64Url(shared.get('scenario'));
    buildFields();
    await run();
  } else if (scenarios.length) {
    const first = scenarios.some((s) => s.name === 'kleppmann-clock-jump') ?
      'kleppmann-clock-jump' : scenarios[0].name;
    $('scenario').value = first;
    await choose(first);
  }
  document.body.dataset.ready = 'yes';
}
start();
</script>
</body>
</html>
)PAGE";

}  // namespace redlock_sim::cli
