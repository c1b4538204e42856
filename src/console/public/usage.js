import { api } from './api.js';
import { stackedBarChart } from './chart.js';
import { errorBox, field, h, loading, pageHead, s, table } from './dom.js';
import { credits, dayKeys, int, percent, time, until, utcDay } from './format.js';

export const title = 'Usage';

const KINDS = [
  { key: 'chat', label: 'Chat' },
  { key: 'embeddings', label: 'Embeddings' },
  { key: 'ingest', label: 'Ingest' },
  { key: 'facts', label: 'Fact extraction' },
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
  const head = pageHead('Usage', 'Credits spent by this workspace, per day and per model. Chat, embeddings, document ingest and fact extraction are counted separately.');
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
    stat('Cache-read tokens', int(total.cached_tokens)),
    stat('Cache-write tokens', int(total.cache_write_tokens)),
  );

  const perDay = new Map(byDay.data.map((row) => [row.key, row]));
  // Every kind the service reports has its part, one the console does not know yet too, so the
  // parts of a day always add up to its total.
  const kinds = [...KINDS];
  for (const row of byDay.data) {
    for (const key of Object.keys(row.kinds ?? {})) if (!kinds.some((k) => k.key === key)) kinds.push({ key, label: key });
  }
  const series = dayKeys(from, days).map((key) => {
    const row = perDay.get(key);
    const values = {};
    for (const k of kinds) values[k.key] = row?.kinds?.[k.key]?.credits.total ?? 0;
    return { key, values };
  });
  const kindTotals = kinds.map((k) => `${k.label} ${credits(series.reduce((sum, d) => sum + d.values[k.key], 0))}`).join(', ');
  const busiest = series.reduce((best, d) => {
    const sum = kinds.reduce((acc, k) => acc + d.values[k.key], 0);
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
    stackedBarChart({ days: series, series: kinds, title: `Credits per day, last ${days} days`, summary }),
  );

  const models = table({
    caption: 'Usage per model',
    columns: [
      { label: 'Model', cell: (r) => h('code', null, r.key) },
      { label: 'Kinds', cell: (r) => Object.keys(r.kinds ?? {}).join(', ') || '–' },
      { label: 'Requests', num: true, cell: (r) => int(r.requests) },
      { label: 'Uncached prompt tokens', num: true, cell: (r) => int(r.prompt_tokens - r.cached_tokens - r.cache_write_tokens) },
      { label: 'Cache-read tokens', num: true, cell: (r) => int(r.cached_tokens) },
      { label: 'Cache-write tokens', num: true, cell: (r) => int(r.cache_write_tokens) },
      { label: 'Completion tokens', num: true, cell: (r) => int(r.completion_tokens) },
      { label: 'Base credits', num: true, cell: (r) => credits(r.credits.base) },
      { label: 'Service credits', num: true, cell: (r) => credits(r.credits.services) },
      { label: 'Total credits', num: true, cell: (r) => credits(r.credits.total) },
    ],
    rows: [...byModel.data].sort((a, b) => b.credits.total - a.credits.total),
    empty: 'No usage in this period.',
  });

  body.replaceChildren(
    stats,
    ...budgetsSection(byDay.budgets ?? []),
    chart,
    h('section', { class: 'card', 'aria-labelledby': 'usage-models-h' }, h('h2', { id: 'usage-models-h' }, 'Per model'), models.el),
  );
}

function stat(label, value) {
  return h('div', { class: 'stat' }, h('dt', null, label), h('dd', null, value));
}

const LEVELS = { key: 'This key', workspace: 'Workspace', organization: 'Organization' };
const WINDOWS = { day: 'daily budget (UTC day)', month: 'monthly budget (UTC month)' };

/** Each credit budget that applies to the key, as a bar; nothing at all when there are none. */
function budgetsSection(budgets) {
  if (budgets.length === 0) return [];
  return [
    h(
      'section',
      { class: 'card budgets', 'aria-labelledby': 'budgets-h' },
      h('h2', { id: 'budgets-h' }, 'Budgets'),
      h('p', { class: 'muted small-text' }, 'Credits billed against each budget that applies to this key, in the current window. A request that could pass a budget is refused (402) until it resets.'),
      h('ul', { class: 'budget-list' }, budgets.map(budgetItem)),
    ),
  ];
}

function budgetItem(budget) {
  const share = budget.limit > 0 ? budget.used / budget.limit : 0;
  const state = share >= 1 ? 'exhausted' : share >= 0.8 ? 'high' : 'ok';
  const name = `${LEVELS[budget.level] ?? budget.level} ${WINDOWS[budget.window] ?? budget.window}`;
  const figures = `${credits(budget.used)} of ${credits(budget.limit)} credits (${percent(budget.used, budget.limit)})`;
  // Drawn as SVG: its width is an attribute, where a style attribute would break the CSP.
  const width = budget.used > 0 ? Math.min(100, Math.max(0.75, share * 100)) : 0;
  return h(
    'li',
    { class: `budget ${state}`, 'data-level': budget.level, 'data-window': budget.window, 'data-state': state },
    h(
      'div',
      { class: 'budget-head' },
      h('span', { class: 'budget-name' }, name),
      h('span', { class: 'budget-figures' }, figures),
    ),
    h(
      'div',
      { class: 'budget-meter', role: 'meter', 'aria-label': name, 'aria-valuemin': '0', 'aria-valuemax': String(budget.limit), 'aria-valuenow': String(Math.min(budget.used, budget.limit)), 'aria-valuetext': figures },
      s(
        'svg',
        { class: 'budget-bar', viewBox: '0 0 100 10', preserveAspectRatio: 'none', 'aria-hidden': 'true', focusable: 'false' },
        s('rect', { class: 'track', x: '0', y: '0', width: '100', height: '10' }),
        s('rect', { class: 'fill', x: '0', y: '0', width: String(width), height: '10' }),
      ),
    ),
    h(
      'p',
      { class: 'hint budget-reset' },
      state === 'exhausted' ? h('strong', null, 'Used up: requests are refused until it resets. ') : null,
      'Resets ',
      time(budget.resets_at),
      ` (${until(budget.resets_at)}).`,
    ),
  );
}
