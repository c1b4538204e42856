import { api } from './api.js';
import { stackedBarChart } from './chart.js';
import { errorBox, field, h, loading, pageHead, table } from './dom.js';
import { credits, dayKeys, int, utcDay } from './format.js';

export const title = 'Usage';

const KINDS = [
  { key: 'chat', label: 'Chat' },
  { key: 'embeddings', label: 'Embeddings' },
  { key: 'ingest', label: 'Ingest' },
];
const PERIODS = [7, 30, 90];

export async function render(view, route) {
  const days = PERIODS.includes(Number(route.params.get('days'))) ? Number(route.params.get('days')) : 30;
  const from = utcDay(new Date(Date.now() - (days - 1) * 86_400_000));

  const period = h(
    'select',
    {
      name: 'days',
      onchange: (event) => route.navigate(route.hrefOf('usage', [], { days: event.target.value })),
    },
    PERIODS.map((n) => h('option', { value: String(n), selected: n === days }, `Last ${n} days`)),
  );
  const head = pageHead('Usage', 'Credits spent by this workspace, per day and per model. Chat, embeddings and document ingest are counted separately.');
  head.classList.add('with-tools');
  head.replaceChildren(h('div', null, ...head.childNodes), h('form', { class: 'toolbar', onsubmit: (e) => e.preventDefault(), 'aria-label': 'Period' }, field('Period', period)));
  view.append(head);
  const body = h('div', null, loading('Loading usage…'));
  view.append(body);

  let byDay, byModel;
  try {
    [byDay, byModel] = await Promise.all([
      api('/usage', { query: { group_by: 'day', from } }),
      api('/usage', { query: { group_by: 'model', from } }),
    ]);
  } catch (err) {
    body.replaceChildren(errorBox(err, 'The usage could not be loaded.'));
    return;
  }

  const total = byDay.total;
  const stats = h(
    'dl',
    { class: 'stats' },
    stat('Credits', credits(total.credits.total)),
    stat('Requests', int(total.requests)),
    stat('Tokens', int(total.total_tokens)),
    stat('Cached tokens', int(total.cached_tokens)),
  );

  const perDay = new Map(byDay.data.map((row) => [row.key, row]));
  const series = dayKeys(from, days).map((key) => {
    const row = perDay.get(key);
    const values = {};
    for (const k of KINDS) values[k.key] = row?.kinds?.[k.key]?.credits.total ?? 0;
    return { key, values };
  });
  const kindTotals = KINDS.map((k) => `${k.label} ${credits(series.reduce((sum, d) => sum + d.values[k.key], 0))}`).join(', ');
  const busiest = series.reduce((best, d) => {
    const sum = KINDS.reduce((acc, k) => acc + d.values[k.key], 0);
    return sum > best.sum ? { key: d.key, sum } : best;
  }, { key: null, sum: 0 });
  const summary =
    total.credits.total > 0
      ? `${credits(total.credits.total)} credits over the last ${days} days (${kindTotals}). Busiest day ${busiest.key} with ${credits(busiest.sum)} credits.`
      : `No credits were spent in the last ${days} days.`;

  const chart = h(
    'section',
    { class: 'card', 'aria-labelledby': 'usage-chart-h' },
    h('h2', { id: 'usage-chart-h' }, 'Credits per day, by kind'),
    h('p', { class: 'muted small-text' }, summary),
    stackedBarChart({ days: series, series: KINDS, title: `Credits per day, last ${days} days`, summary }),
  );

  const models = table({
    caption: 'Usage per model',
    columns: [
      { label: 'Model', cell: (r) => h('code', null, r.key) },
      { label: 'Kinds', cell: (r) => Object.keys(r.kinds ?? {}).join(', ') || '–' },
      { label: 'Requests', num: true, cell: (r) => int(r.requests) },
      { label: 'Prompt tokens', num: true, cell: (r) => int(r.prompt_tokens) },
      { label: 'Completion tokens', num: true, cell: (r) => int(r.completion_tokens) },
      { label: 'Cached tokens', num: true, cell: (r) => int(r.cached_tokens) },
      { label: 'Base credits', num: true, cell: (r) => credits(r.credits.base) },
      { label: 'Service credits', num: true, cell: (r) => credits(r.credits.services) },
      { label: 'Total credits', num: true, cell: (r) => credits(r.credits.total) },
    ],
    rows: [...byModel.data].sort((a, b) => b.credits.total - a.credits.total),
    empty: 'No usage in this period.',
  });

  body.replaceChildren(
    stats,
    chart,
    h('section', { class: 'card', 'aria-labelledby': 'usage-models-h' }, h('h2', { id: 'usage-models-h' }, 'Per model'), models.el),
  );
}

function stat(label, value) {
  return h('div', { class: 'stat' }, h('dt', null, label), h('dd', null, value));
}
