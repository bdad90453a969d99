// charts.js: interactive SVG line charts for pwa-replay's pages (hand-written, no dependencies).
// lineChart(parent, spec, opts) draws spec = {id, title, x_label, y_label, log_x, log_y, png,
// series: [{label, colour, marker, labels: [[name, value]], points: [[x, y] or [x, y, lo, hi]]}]}: axes with
// ticks, a band per series where lo/hi are given, lines, markers, a legend whose entries hide their
// line on click, a log/linear switch, and a hover card with the exact value and the cell's labels.
'use strict';

const SVGNS = 'http://www.w3.org/2000/svg';

/** An SVG element with attributes, appended to parent. */
function svgEl(tag, attrs, parent) {
  const e = document.createElementNS(SVGNS, tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (parent) parent.appendChild(e);
  return e;
}

/** An HTML element with attributes and text, appended to parent. */
function htmlEl(tag, attrs, text, parent) {
  const e = document.createElement(tag);
  for (const k in attrs) e.setAttribute(k, attrs[k]);
  if (text !== undefined && text !== null) e.textContent = text;
  if (parent) parent.appendChild(e);
  return e;
}

/** Markdown-ish inline text: `code`, **strong**, *em*, [text](relative link); the rest as text. */
function inline(text, parent) {
  for (const part of String(text).split(/(`[^`]*`|\*\*[^*]+\*\*|\*[^*]+\*|\[[^\]]+\]\([^)\s:]+\))/)) {
    if (!part) continue;
    const link = part.match(/^\[([^\]]+)\]\(([^)\s:]+)\)$/);
    if (link) htmlEl('a', { href: link[2] }, link[1], parent);
    else if (part.startsWith('`')) htmlEl('code', {}, part.slice(1, -1), parent);
    else if (part.startsWith('**')) htmlEl('strong', {}, part.slice(2, -2), parent);
    else if (part.startsWith('*') && part.length > 2) htmlEl('em', {}, part.slice(1, -1), parent);
    else parent.appendChild(document.createTextNode(part));
  }
  return parent;
}

/** A value to read: up to six significant digits, thousands separated. */
function fmtExact(v) {
  if (v === null || v === undefined || !isFinite(v)) return '–';
  return Number(v.toPrecision(6)).toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/** A tick label: up to four significant digits, thousands separated. */
function fmtTick(v) {
  return Number(v.toPrecision(4)).toLocaleString('en-US', { maximumFractionDigits: 6 });
}

/** Ticks of a linear axis: about n steps of 1, 2 or 5 × 10^k. */
function linTicks(lo, hi, n) {
  const raw = (hi - lo) / n;
  const mag = Math.pow(10, Math.floor(Math.log10(raw)));
  const step = [1, 2, 5, 10].map((m) => m * mag).find((s) => s >= raw);
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + step * 1e-9; v += step) out.push(+v.toPrecision(12));
  return out;
}

/** Ticks of a log axis: powers of ten, with 2 and 5 between when the span is short. */
function logTicks(lo, hi) {
  const decades = Math.log10(hi / lo);
  const mult = decades < 3 ? [1, 2, 5] : [1];
  const out = [];
  for (let e = Math.floor(Math.log10(lo)); e <= Math.ceil(Math.log10(hi)); e++) {
    for (const m of mult) {
      const v = m * Math.pow(10, e);
      if (v >= lo && v <= hi) out.push(v);
    }
  }
  return out.length >= 2 ? out : linTicks(lo, hi, 4);
}

/** Padded domain [lo, hi] of values vs on a log or linear axis. */
function domain(vs, log, zero) {
  const ok = vs.filter((v) => v != null && isFinite(v) && (!log || v > 0));
  if (!ok.length) return log ? [1, 10] : [0, 1];
  let [lo, hi] = extent(ok);
  if (log) return lo === hi ? [lo / 2, hi * 2] : [lo / 1.25, hi * 1.25];
  if (lo === hi) { lo -= Math.abs(lo) * 0.1 || 1; hi += Math.abs(hi) * 0.1 || 1; }
  const pad = (hi - lo) * 0.05;
  lo = zero && lo >= 0 ? 0 : lo - pad;
  return [lo, hi + pad];
}

/** [min, max] of finite numbers (a loop: spreading a long time series into Math.min overflows). */
function extent(vs) {
  let lo = Infinity, hi = -Infinity;
  for (const v of vs) { if (v < lo) lo = v; if (v > hi) hi = v; }
  return [lo, hi];
}

/** Maps [lo, hi] onto pixels [a, b], logarithmically or linearly. */
function scale([lo, hi], [a, b], log) {
  if (log) {
    const l0 = Math.log10(lo), l1 = Math.log10(hi);
    return (v) => a + ((Math.log10(v) - l0) / (l1 - l0)) * (b - a);
  }
  return (v) => a + ((v - lo) / (hi - lo)) * (b - a);
}

/** Draws a marker of the given shape at (x, y). */
function marker(parent, shape, x, y, r, colour) {
  const fill = { fill: colour, stroke: colour };
  switch (shape) {
    case 'square': return svgEl('rect', { x: x - r, y: y - r, width: 2 * r, height: 2 * r, ...fill }, parent);
    case 'triangle': return svgEl('path', { d: `M${x},${y - r * 1.2}L${x + r * 1.1},${y + r * 0.8}L${x - r * 1.1},${y + r * 0.8}Z`, ...fill }, parent);
    case 'diamond': return svgEl('path', { d: `M${x},${y - r * 1.3}L${x + r * 1.3},${y}L${x},${y + r * 1.3}L${x - r * 1.3},${y}Z`, ...fill }, parent);
    case 'cross': return svgEl('path', { d: `M${x - r},${y - r}L${x + r},${y + r}M${x - r},${y + r}L${x + r},${y - r}`, stroke: colour, 'stroke-width': 2.5, fill: 'none' }, parent);
    case 'ring': return svgEl('circle', { cx: x, cy: y, r, fill: 'white', stroke: colour, 'stroke-width': 2 }, parent);
    default: return svgEl('circle', { cx: x, cy: y, r, ...fill }, parent);
  }
}

const SIZE = { w: 760, h: 440, left: 100, right: 18, top: 14, bottom: 56 };

/**
 * Draws spec into parent. opts: {step: draw the lines as steps (a time series, hover reads every
 * series at the pointer's x), markers: false to leave them out, zero: start a linear y axis at 0
 * when no value is negative}. Returns {setLog, hide, setCursor, figure}.
 */
function lineChart(parent, spec, opts) {
  opts = Object.assign({ step: false, markers: true, zero: true, height: SIZE.h }, opts || {});
  const state = { log: !!spec.log_y, hidden: new Set(), cursor: null };
  const fig = htmlEl('figure', { class: 'chart', id: 'chart-' + spec.id, 'data-chart': spec.id }, null, parent);
  const cap = htmlEl('figcaption', {}, null, fig);
  htmlEl('span', { class: 'title' }, spec.title, cap);
  const controls = htmlEl('span', { class: 'controls' }, null, cap);
  const logLabel = htmlEl('label', {}, null, controls);
  const logBox = htmlEl('input', { type: 'checkbox', class: 'log-y' }, null, logLabel);
  logLabel.appendChild(document.createTextNode(' log y'));
  if (spec.png) htmlEl('a', { href: spec.png, class: 'png' }, 'PNG', controls);
  const body = htmlEl('div', { class: 'chart-body' }, null, fig);
  const H = opts.height;
  const svg = svgEl('svg', { viewBox: `0 0 ${SIZE.w} ${H}`, role: 'img', 'aria-label': spec.title }, body);
  const legend = htmlEl('ul', { class: 'legend' }, null, body);
  const tip = htmlEl('div', { class: 'tip', hidden: '' }, null, fig);
  const px = { x0: SIZE.left, x1: SIZE.w - SIZE.right, y0: H - SIZE.bottom, y1: SIZE.top };
  let view = null;

  if (spec.series.length > 2) {
    const li = htmlEl('li', { class: 'all-none' }, null, legend);
    for (const [text, off] of [['show all', false], ['hide all', true]]) {
      const b = htmlEl('button', { type: 'button' }, text, li);
      b.addEventListener('click', () => {
        spec.series.forEach((s) => hide(s.label, off, true));
        draw();
      });
    }
  }
  if (spec.series.length > 2) {
    const li = htmlEl('li', { class: 'filter' }, null, legend);
    const box = htmlEl('input', { type: 'search', placeholder: 'show only labels with…', 'aria-label': 'filter series' }, null, li);
    box.addEventListener('input', () => {
      const words = box.value.toLowerCase().split(/\s+/).filter(Boolean);
      spec.series.forEach((s) => hide(s.label, !words.every((w) => s.label.toLowerCase().includes(w)), true));
      draw();
    });
  }
  for (const s of spec.series) {
    const li = htmlEl('li', {}, null, legend);
    const b = htmlEl('button', { type: 'button', 'data-series': s.label, 'aria-pressed': 'true' }, null, li);
    const sw = svgEl('svg', { width: 34, height: 14, class: 'swatch' }, b);
    svgEl('line', { x1: 1, y1: 7, x2: 33, y2: 7, stroke: s.colour, 'stroke-width': 3 }, sw);
    if (opts.markers) marker(sw, s.marker, 17, 7, 4, s.colour);
    b.appendChild(document.createTextNode(s.label));
    b.addEventListener('click', () => hide(s.label, !state.hidden.has(s.label)));
  }
  logBox.checked = state.log;
  logBox.addEventListener('change', () => setLog(logBox.checked));

  function visible() { return spec.series.filter((s) => !state.hidden.has(s.label)); }

  function draw() {
    svg.replaceChildren();
    const shown = visible();
    const pts = shown.flatMap((s) => s.points);
    // The x axis stays put when series are hidden.
    const xs = spec.series.flatMap((s) => s.points.map((p) => p[0]));
    const ys = pts.flatMap((p) => [p[1], p[2], p[3]]).filter((v) => v != null);
    const canLog = ys.some((v) => v > 0);
    const log = state.log && canLog;
    svg.setAttribute('data-scale', log ? 'log' : 'linear');
    const xd = spec.log_x ? domain(xs, true) : (opts.step && xs.length ? extent(xs) : domain(xs, false, false));
    if (!(xd[1] > xd[0])) { xd[0] -= 1; xd[1] += 1; }
    const yd = domain(ys, log, opts.zero);
    const sx = scale(xd, [px.x0, px.x1], spec.log_x);
    const sy = scale(yd, [px.y0, px.y1], log);
    const clampY = (v) => (log ? Math.max(v, yd[0]) : v);
    axes(xd, yd, sx, sy, log);
    const plot = svgEl('g', { 'clip-path': `url(#clip-${spec.id})` }, svg);
    const clip = svgEl('clipPath', { id: `clip-${spec.id}` }, svg);
    svgEl('rect', { x: px.x0, y: px.y1, width: px.x1 - px.x0, height: px.y0 - px.y1 }, clip);
    const marks = [];
    for (const s of shown) {
      const ok = s.points.filter((p) => p[1] != null && (!log || p[1] > 0));
      const band = ok.filter((p) => p[2] != null && p[3] != null);
      if (band.length > 1) {
        const up = band.map((p) => `${sx(p[0])},${sy(clampY(p[3]))}`);
        const down = band.slice().reverse().map((p) => `${sx(p[0])},${sy(clampY(p[2]))}`);
        svgEl('path', { d: 'M' + up.concat(down).join('L') + 'Z', fill: s.colour, 'fill-opacity': 0.18, class: 'band', 'data-series': s.label }, plot);
      }
      let d = '';
      ok.forEach((p, i) => {
        const x = sx(p[0]), y = sy(p[1]);
        if (i === 0) d += `M${x},${y}`;
        else d += opts.step ? `H${x}V${y}` : `L${x},${y}`;
      });
      if (opts.step && ok.length) d += `H${px.x1}`;
      svgEl('path', { d, fill: 'none', stroke: s.colour, 'stroke-width': spec.series.length > 12 ? 1.5 : 2.2, class: 'line', 'data-series': s.label, 'data-points': ok.length }, plot);
      for (const p of ok) {
        const at = [sx(p[0]), sy(p[1])];
        if (opts.markers) marker(svg, s.marker, at[0], at[1], spec.series.length > 12 ? 3 : 4.5, s.colour);
        marks.push({ s, p, at });
      }
    }
    view = { sx, sy, xd, marks };
    if (state.cursor !== null) drawCursor();
  }

  function axes(xd, yd, sx, sy, log) {
    const g = svgEl('g', { class: 'axes' }, svg);
    const yt = log ? logTicks(yd[0], yd[1]) : linTicks(yd[0], yd[1], 6);
    for (const v of yt) {
      const y = sy(v);
      svgEl('line', { x1: px.x0, x2: px.x1, y1: y, y2: y, class: 'grid' }, g);
      svgEl('text', { x: px.x0 - 8, y: y + 4, 'text-anchor': 'end' }, g).textContent = fmtTick(v);
    }
    const xt = spec.log_x ? logTicks(xd[0], xd[1]) : linTicks(xd[0], xd[1], 8);
    for (const v of xt) {
      const x = sx(v);
      svgEl('line', { x1: x, x2: x, y1: px.y0, y2: px.y0 + 5, class: 'tick' }, g);
      svgEl('text', { x, y: px.y0 + 20, 'text-anchor': 'middle' }, g).textContent = fmtTick(v);
    }
    svgEl('rect', { x: px.x0, y: px.y1, width: px.x1 - px.x0, height: px.y0 - px.y1, class: 'frame' }, g);
    svgEl('text', { x: (px.x0 + px.x1) / 2, y: px.y0 + 44, 'text-anchor': 'middle', class: 'axis-label' }, g).textContent = spec.x_label;
    const cy = (px.y0 + px.y1) / 2;
    svgEl('text', { x: 14, y: cy, transform: `rotate(-90 14 ${cy})`, 'text-anchor': 'middle', class: 'axis-label' }, g).textContent =
      spec.y_label + (log ? ' (log scale)' : '');
  }

  function drawCursor() {
    let line = svg.querySelector('line.cursor');
    if (!line) line = svgEl('line', { class: 'cursor', y1: px.y1, y2: px.y0 }, svg);
    const x = view.sx(Math.min(Math.max(state.cursor, view.xd[0]), view.xd[1]));
    line.setAttribute('x1', x);
    line.setAttribute('x2', x);
    line.setAttribute('data-t', state.cursor);
  }

  function pointer(ev) {
    const m = svg.getScreenCTM();
    if (!m) return null;
    const p = new DOMPoint(ev.clientX, ev.clientY).matrixTransform(m.inverse());
    return [p.x, p.y];
  }

  function showTip(ev, nodes) {
    tip.replaceChildren(...nodes);
    tip.hidden = false;
    const box = fig.getBoundingClientRect();
    tip.style.left = Math.min(ev.clientX - box.left + 14, box.width - 260) + 'px';
    tip.style.top = ev.clientY - box.top + 14 + 'px';
  }

  function row(k, v) {
    const r = htmlEl('div', {});
    htmlEl('span', { class: 'k' }, k + ': ', r);
    r.appendChild(document.createTextNode(v));
    return r;
  }

  svg.addEventListener('mousemove', (ev) => {
    const at = pointer(ev);
    if (!at || !view) return;
    svg.querySelectorAll('.hit').forEach((e) => e.remove());
    if (opts.step) return hoverStep(ev, at);
    let best = null, bd = 16 * 16;
    for (const m of view.marks) {
      const d = (m.at[0] - at[0]) ** 2 + (m.at[1] - at[1]) ** 2;
      if (d < bd) { bd = d; best = m; }
    }
    if (!best) { tip.hidden = true; return; }
    svgEl('circle', { cx: best.at[0], cy: best.at[1], r: 8, class: 'hit', stroke: best.s.colour }, svg);
    const [x, y, lo, hi] = best.p;
    const nodes = [htmlEl('strong', {}, best.s.label)];
    for (const [k, v] of best.s.labels) nodes.push(row(k, v));
    nodes.push(row(spec.x_label, fmtExact(x)));
    nodes.push(row(spec.y_label, fmtExact(y)));
    if (lo != null && hi != null) nodes.push(row('95% interval', `${fmtExact(lo)} … ${fmtExact(hi)}`));
    showTip(ev, nodes);
  });
  svg.addEventListener('mouseleave', () => { tip.hidden = true; });

  /** A time series: every visible series' value at the pointer's x. */
  function hoverStep(ev, at) {
    const t = view.xd[0] + ((at[0] - px.x0) / (px.x1 - px.x0)) * (view.xd[1] - view.xd[0]);
    const nodes = [row(spec.x_label, fmtExact(t))];
    for (const s of visible()) {
      const i = lastAtOrBefore(s.points, t);
      if (i >= 0) nodes.push(row(s.label, fmtExact(s.points[i][1])));
    }
    showTip(ev, nodes);
  }

  function setLog(on) { state.log = on; logBox.checked = on; draw(); }
  /** Hides (or shows) a series and redraws, unless `later` (the caller redraws once). */
  function hide(label, off, later) {
    if (off) state.hidden.add(label); else state.hidden.delete(label);
    const b = [...legend.querySelectorAll('button')].find((e) => e.dataset.series === label);
    if (b) { b.classList.toggle('off', off); b.setAttribute('aria-pressed', String(!off)); }
    if (!later) draw();
  }
  function setCursor(t) { state.cursor = t; if (view) drawCursor(); }

  draw();
  return { setLog, hide, setCursor, figure: fig };
}

/** Index of the last point with x ≤ t (points sorted by x), or −1. */
function lastAtOrBefore(points, t) {
  let lo = 0, hi = points.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (points[mid][0] <= t) lo = mid + 1; else hi = mid;
  }
  return lo - 1;
}

/** The page's data (the JSON element #data). */
function pageData() {
  return JSON.parse(document.getElementById('data').textContent);
}

/** The keys of the URL fragment (`#t=5&log=all`). */
function fragment() {
  return new URLSearchParams(location.hash.replace(/^#/, ''));
}
