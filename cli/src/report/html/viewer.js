// viewer.js: builds viewer.html from its data: the machine at the slider's instant (each node a
// cell in its job's colour, the job's number on it), a play button, the waiting queue with the
// head's request drawn and why it waits (too few idle nodes, or enough of them but no place of its
// shape), a card per job on hover, and the time series (charts.js) with a cursor at
// the slider's time. URL fragment: `t=SECONDS` puts the slider on the last instant ≤ SECONDS.
'use strict';

(function () {
  const data = pageData();
  const main = document.getElementById('page');
  main.classList.add('viewer');
  htmlEl('h1', {}, data.title, main);
  htmlEl('p', { class: 'intro' }, 'Drag the slider or press play to step through every instant at which a job ' +
    'arrived, started or ended in the window; hover a node or a queued job for its card. Colours are ' +
    "the snapshots' (one per job number); white nodes are free.", main);

  const bar = htmlEl('div', { class: 'timebar' }, null, main);
  const play = htmlEl('button', { type: 'button', class: 'play' }, '▶ play', bar);
  const slider = htmlEl('input', { type: 'range', min: 0, max: data.events.length - 1, step: 1, value: 0, 'aria-label': 'time' }, null, bar);
  const clock = htmlEl('span', { class: 'clock' }, null, bar);

  const row = htmlEl('div', { class: 'machine-row' }, null, main);
  const machine = machineView(htmlEl('div', { class: 'machine' }, null, row));
  const queue = htmlEl('div', { class: 'queue' }, null, row);
  const card = htmlEl('div', { class: 'tip card', hidden: '' }, null, main);
  const charts = data.charts.map((c) => lineChart(main, c, { step: true, markers: false }));

  /** The machine as an SVG grid of node cells (a bar of slots for a flat machine). */
  function machineView(parent) {
    const L = data.layout;
    const width = 760;
    const cw = L.bar ? width / L.cols : Math.max(4, Math.min(34, Math.floor(width / L.cols)));
    const ch = L.bar ? 70 : cw;
    const svg = svgEl('svg', { class: 'nodes', viewBox: `0 0 ${L.cols * cw} ${L.rows * ch}`, width: Math.min(width, L.cols * cw), 'data-machine': data.machine }, parent);
    const rects = L.cells.map(([c, r], id) =>
      svgEl('rect', { x: c * cw, y: (L.rows - 1 - r) * ch, width: cw, height: ch, class: 'node', 'data-node': id, fill: '#ffffff' }, svg));
    const labels = svgEl('g', { class: 'labels' }, svg);
    return { svg, rects, labels, cw, ch };
  }

  /** The job holding each node at t (index into data.jobs, or −1). */
  function owners(t) {
    const own = new Int32Array(data.layout.cells.length).fill(-1);
    for (const [j, start, end, ranges] of data.runs) {
      if (start <= t && t < end) for (const [a, b] of ranges) for (let n = a; n < b; n++) own[n] = j;
    }
    return own;
  }

  /** Waiting jobs at t, head (earliest submit) first. */
  function waiting(t) {
    const w = [];
    data.jobs.forEach((j, i) => { if (j.submit <= t && t < j.start) w.push(i); });
    return w.sort((a, b) => data.jobs[a].submit - data.jobs[b].submit || a - b);
  }

  function show(k) {
    const t = data.events[k];
    slider.value = k;
    const own = owners(t);
    let busy = 0;
    own.forEach((j, n) => {
      machine.rects[n].setAttribute('fill', j < 0 ? '#ffffff' : data.jobs[j].colour);
      machine.rects[n].dataset.job = j;
      if (j >= 0) busy++;
    });
    labelJobs(own);
    const w = waiting(t);
    machine.svg.setAttribute('data-t', t);
    machine.svg.setAttribute('data-busy', busy);
    clock.textContent = `t = ${fmtExact(t)} s (${k + 1} of ${data.events.length}) · ${busy} of ${own.length} nodes busy · ${w.length} waiting`;
    drawQueue(w, t, own.length - busy);
    charts.forEach((c) => c.setCursor(t));
  }

  /** Each running job's number at the centre of its cells, where they fill a large enough box. */
  function labelJobs(own) {
    machine.labels.replaceChildren();
    if (data.layout.bar) return;
    const box = new Map();
    own.forEach((j, n) => {
      if (j < 0) return;
      const [c, r] = data.layout.cells[n];
      const b = box.get(j) || { c0: c, c1: c, r0: r, r1: r, n: 0 };
      b.c0 = Math.min(b.c0, c); b.c1 = Math.max(b.c1, c); b.r0 = Math.min(b.r0, r); b.r1 = Math.max(b.r1, r); b.n++;
      box.set(j, b);
    });
    for (const [j, b] of box) {
      const w = (b.c1 - b.c0 + 1) * machine.cw, h = (b.r1 - b.r0 + 1) * machine.ch;
      const text = String(data.jobs[j].id);
      if (b.n !== (b.c1 - b.c0 + 1) * (b.r1 - b.r0 + 1) || w < text.length * 7 + 4 || h < 13) continue;
      const x = b.c0 * machine.cw + w / 2, y = (data.layout.rows - 1 - b.r1) * machine.ch + h / 2 + 4;
      svgEl('text', { x, y, 'text-anchor': 'middle', class: 'job-label' }, machine.labels).textContent = text;
    }
  }

  function drawQueue(w, t, idle) {
    queue.replaceChildren();
    htmlEl('h2', {}, `Waiting queue (${w.length})`, queue);
    if (!w.length) { htmlEl('p', {}, 'nobody waits', queue); return; }
    const head = data.jobs[w[0]];
    const hp = htmlEl('p', { class: 'head' }, `▶ head: job ${head.id} asks ${head.request}, waiting ${fmtExact(t - head.submit)} s`, queue);
    hp.dataset.job = w[0];
    const why = head.nodes > idle
      ? `It needs ${head.nodes} nodes and ${idle} are idle: it waits for running jobs to end.`
      : `It needs ${head.nodes} nodes and ${idle} are idle: enough nodes, yet no start — no free ` +
        'place of its shape (fragmentation), or the scheduler holds it back.';
    htmlEl('p', { class: 'why', 'data-idle': idle }, why, queue);
    requestShape(head, queue);
    const ol = htmlEl('ol', {}, null, queue);
    for (const i of w.slice(0, 40)) {
      const j = data.jobs[i];
      const li = htmlEl('li', { 'data-job': i }, null, ol);
      htmlEl('span', { class: 'sw', style: `background:${j.colour}` }, null, li);
      li.appendChild(document.createTextNode(`job ${j.id}: ${j.request}`));
    }
    if (w.length > 40) htmlEl('p', {}, `… and ${w.length - 40} more`, queue);
  }

  /** The head's request as a grid of cells in its colour. */
  function requestShape(j, parent) {
    const [c, r] = j.grid;
    const cell = Math.max(2, Math.min(14, Math.floor(220 / Math.max(c, r))));
    const cols = Math.min(c, Math.floor(220 / cell)), rows = Math.min(r, 16);
    const svg = svgEl('svg', { class: 'request', width: cols * cell + 1, height: rows * cell + 1 }, parent);
    for (let y = 0; y < rows; y++) for (let x = 0; x < cols; x++) {
      svgEl('rect', { x: x * cell + 0.5, y: y * cell + 0.5, width: cell, height: cell, fill: j.colour, stroke: '#fff' }, svg);
    }
  }

  function showCard(ev, i) {
    const j = data.jobs[i];
    const line = (k, v) => { const d = htmlEl('div', {}); htmlEl('span', { class: 'k' }, k + ': ', d); d.appendChild(document.createTextNode(v)); return d; };
    card.replaceChildren(
      htmlEl('strong', {}, `job ${j.id}`),
      line('asks', j.request),
      line('granted', j.granted || '–'),
      line('submit', fmtExact(j.submit) + ' s'),
      line('start', fmtExact(j.start) + ' s'),
      line('end', fmtExact(j.end) + ' s'),
      line('wait', fmtExact(j.start - j.submit) + ' s'),
      line('delayed by fragmentation', j.frag_delayed ? 'yes, at some instant as the head' : 'no'),
    );
    card.hidden = false;
    const box = main.getBoundingClientRect();
    card.style.left = ev.clientX - box.left + 14 + 'px';
    card.style.top = ev.clientY - box.top + 14 + 'px';
  }

  /** Outlines the cells of job i (−1: none). */
  function highlight(i) {
    machine.rects.forEach((r) => r.classList.toggle('hl', i >= 0 && Number(r.dataset.job) === i));
  }

  function hover(ev) {
    const e = ev.target.closest('[data-job]');
    const i = e ? Number(e.dataset.job) : -1;
    if (i >= 0) showCard(ev, i); else card.hidden = true;
    highlight(i);
  }
  for (const e of [machine.svg, queue]) {
    e.addEventListener('mousemove', hover);
    e.addEventListener('mouseleave', () => { card.hidden = true; highlight(-1); });
  }

  let timer = null;
  function stop() { clearInterval(timer); timer = null; play.textContent = '▶ play'; }
  play.addEventListener('click', () => {
    if (timer) return stop();
    if (Number(slider.value) >= data.events.length - 1) show(0);
    play.textContent = '❚❚ pause';
    timer = setInterval(() => {
      const k = Number(slider.value) + 1;
      if (k >= data.events.length) return stop();
      show(k);
    }, 120);
  });
  slider.addEventListener('input', () => show(Number(slider.value)));

  const want = parseFloat(fragment().get('t'));
  show(isFinite(want) ? Math.max(0, lastAtOrBefore(data.events.map((t) => [t]), want)) : 0);
})();
