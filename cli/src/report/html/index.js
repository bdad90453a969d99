// index.js: builds index.html from its data: heading, configuration, sortable tables, and every
// figure as a lineChart (charts.js). URL fragment keys, for tests and links: `log=all` or
// `log=ID,ID` switches charts to a log y axis, `linear=…` to a linear one, `hide=LABEL|LABEL`
// hides series in every chart.
'use strict';

(function () {
  const data = pageData();
  const main = document.getElementById('page');
  htmlEl('h1', {}, data.title, main);
  if (data.intro) inline(data.intro, htmlEl('p', { class: 'intro' }, null, main));
  const toc = htmlEl('nav', {}, null, main);

  function section(title, id) {
    const s = htmlEl('section', { id }, null, main);
    htmlEl('h2', {}, title, s);
    const a = htmlEl('a', { href: '#' + id }, title, toc);
    a.addEventListener('click', (ev) => { ev.preventDefault(); s.scrollIntoView(); });
    return s;
  }

  const conf = htmlEl('table', { class: 'config' }, null, section('Configuration', 'configuration'));
  for (const [k, v] of data.config) {
    const tr = htmlEl('tr', {}, null, conf);
    htmlEl('th', { scope: 'row' }, k, tr);
    inline(v, htmlEl('td', {}, null, tr));
  }

  data.tables.forEach((t, i) => {
    const s = section(t.title, 'table-' + i);
    if (t.note) inline(t.note, htmlEl('p', {}, null, s));
    sortable(t, s);
  });

  const figs = section('Figures', 'figures');
  const charts = data.charts.map((c) => lineChart(figs, c));
  applyFragment(charts);

  /** A table whose rows sort by a column when its header is clicked (again: reversed), by the
   *  exact value behind a rounded cell (`t.keys`) where there is one, else by its text. */
  function sortable(t, parent) {
    const table = htmlEl('table', { class: 'data sortable' }, null, parent);
    const head = htmlEl('tr', {}, null, htmlEl('thead', {}, null, table));
    const body = htmlEl('tbody', {}, null, table);
    const rows = t.rows.map((cells, i) => {
      const tr = htmlEl('tr', {}, null, body);
      cells.forEach((v, j) => inline(v, htmlEl('td', t.numeric[j] ? { class: 'num' } : {}, null, tr)));
      const keys = (t.keys && t.keys[i]) || [];
      return { tr, r: cells.map((v, j) => (keys[j] ?? v)) };
    });
    t.columns.forEach((c, j) => {
      const th = htmlEl('th', { scope: 'col', 'aria-sort': 'none', title: 'sort' }, c, head);
      if (t.numeric[j]) th.classList.add('num');
      th.addEventListener('click', () => {
        const up = th.getAttribute('aria-sort') !== 'ascending';
        head.querySelectorAll('th').forEach((e) => e.setAttribute('aria-sort', 'none'));
        th.setAttribute('aria-sort', up ? 'ascending' : 'descending');
        rows.sort((a, b) => compare(a.r[j], b.r[j]) * (up ? 1 : -1));
        for (const x of rows) body.appendChild(x.tr);
      });
    });
  }

  /** Numbers (thousands separators allowed) before text, numbers by value, text by collation. */
  function compare(a, b) {
    const num = (s) => { const v = parseFloat(String(s).replace(/,/g, '')); return isFinite(v) ? v : null; };
    const x = num(a), y = num(b);
    if (x !== null && y !== null) return x - y;
    if (x !== null) return -1;
    if (y !== null) return 1;
    return String(a).localeCompare(String(b));
  }

  function applyFragment(charts) {
    const f = fragment();
    const ids = (key) => (f.get(key) || '').split(',').filter(Boolean);
    for (const [key, on] of [['log', true], ['linear', false]]) {
      const want = ids(key);
      charts.forEach((c, i) => {
        if (want.includes('all') || want.includes(data.charts[i].id)) c.setLog(on);
      });
    }
    for (const label of (f.get('hide') || '').split('|').filter(Boolean)) {
      charts.forEach((c) => c.hide(label, true));
    }
  }
})();
