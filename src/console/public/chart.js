import { h, s, table, uid } from './dom.js';
import { credits, dayLong, dayShort } from './format.js';

// A stacked bar chart as inline SVG, drawn at the width of its box so text stays legible on a
// phone. It comes with a legend and the same figures as a table, for screen readers and for
// anyone who wants the numbers.

function niceStep(max, ticks) {
  const raw = max / ticks;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const norm = raw / magnitude;
  const step = norm <= 1 ? 1 : norm <= 2 ? 2 : norm <= 2.5 ? 2.5 : norm <= 5 ? 5 : 10;
  return step * magnitude;
}

/**
 * days: [{key: 'YYYY-MM-DD', values: {chat: n, embeddings: n, ingest: n}}], oldest first.
 * series: [{key, label}] in stacking order (bottom first).
 */
export function stackedBarChart({ days, series, title, summary, valueLabel = 'Credits' }) {
  const titleId = uid('chart-title');
  const descId = uid('chart-desc');
  const box = h('div', { class: 'chart-box' });
  const totals = days.map((d) => series.reduce((sum, k) => sum + (d.values[k.key] ?? 0), 0));
  const max = Math.max(0, ...totals);

  const draw = () => {
    const width = Math.max(300, Math.round(box.clientWidth || 800));
    const height = Math.round(Math.min(340, Math.max(220, width * 0.36)));
    const narrow = width < 560;
    const margin = { top: 14, right: 12, bottom: 46, left: narrow ? 54 : 70 };
    const plotW = width - margin.left - margin.right;
    const plotH = height - margin.top - margin.bottom;
    const step = max > 0 ? niceStep(max, narrow ? 4 : 5) : 1;
    const top = max > 0 ? Math.ceil(max / step - 1e-9) * step : 1;
    const y = (v) => margin.top + plotH - (v / top) * plotH;
    const slot = plotW / Math.max(1, days.length);
    const barW = Math.max(2, Math.min(42, slot * 0.72));

    const svg = s('svg', {
      class: 'chart',
      viewBox: `0 0 ${width} ${height}`,
      width: String(width),
      height: String(height),
      role: 'img',
      'aria-labelledby': `${titleId} ${descId}`,
    });
    svg.append(s('title', { id: titleId }, title), s('desc', { id: descId }, summary));

    const grid = s('g', { class: 'grid', 'aria-hidden': 'true' });
    const axis = s('g', { class: 'axis', 'aria-hidden': 'true' });
    for (let v = 0; v <= top + step / 2; v += step) {
      const py = y(v);
      grid.append(s('line', { x1: margin.left, x2: width - margin.right, y1: py, y2: py }));
      axis.append(s('text', { x: margin.left - 8, y: py + 4, 'text-anchor': 'end' }, credits(Number(v.toPrecision(12)))));
    }
    axis.append(
      s('line', { x1: margin.left, x2: width - margin.right, y1: margin.top + plotH, y2: margin.top + plotH }),
      s('text', { class: 'axis-title', x: 12, y: margin.top + plotH / 2, transform: `rotate(-90 12 ${margin.top + plotH / 2})`, 'text-anchor': 'middle' }, valueLabel),
      s('text', { class: 'axis-title', x: margin.left + plotW / 2, y: height - 6, 'text-anchor': 'middle' }, 'Day (UTC)'),
    );
    // Day labels: as many as fit without touching.
    const every = Math.max(1, Math.ceil(days.length / Math.max(1, Math.floor(plotW / (narrow ? 52 : 64)))));
    days.forEach((d, i) => {
      if ((days.length - 1 - i) % every !== 0) return;
      const cx = margin.left + slot * i + slot / 2;
      axis.append(s('text', { x: cx, y: margin.top + plotH + 18, 'text-anchor': 'middle' }, dayShort(d.key)));
    });

    const bars = s('g', { class: 'bars' });
    days.forEach((d, i) => {
      const x = margin.left + slot * i + (slot - barW) / 2;
      let base = 0;
      for (const k of series) {
        const value = d.values[k.key] ?? 0;
        if (value <= 0) continue;
        const y0 = y(base);
        const y1 = y(base + value);
        base += value;
        bars.append(
          s(
            'rect',
            {
              class: `bar bar-${k.key}`,
              x: x.toFixed(2),
              y: y1.toFixed(2),
              width: barW.toFixed(2),
              height: Math.max(1, y0 - y1).toFixed(2),
              'data-day': d.key,
              'data-kind': k.key,
            },
            s('title', null, `${dayLong(d.key)} · ${k.label}: ${credits(value)} credits`),
          ),
        );
      }
    });
    svg.append(grid, bars, axis);
    if (max === 0) {
      svg.append(s('text', { class: 'empty-note', x: margin.left + plotW / 2, y: margin.top + plotH / 2, 'text-anchor': 'middle' }, 'No usage in this period'));
    }
    box.replaceChildren(svg);
  };

  const legend = h(
    'ul',
    { class: 'legend', 'aria-label': 'Legend' },
    series.map((k) => h('li', null, h('span', { class: `swatch swatch-${k.key}`, 'aria-hidden': 'true' }), k.label)),
  );

  const data = table({
    caption: title,
    narrow: true,
    columns: [
      { label: 'Day (UTC)', cell: (d) => h('span', { class: 'nowrap' }, d.key) },
      ...series.map((k) => ({ label: k.label, num: true, cell: (d) => credits(d.values[k.key] ?? 0) })),
      { label: 'Total', num: true, cell: (d) => credits(series.reduce((sum, k) => sum + (d.values[k.key] ?? 0), 0)) },
    ],
    rows: days.filter((_, i) => totals[i] > 0),
    empty: 'No usage in this period.',
  });

  const figure = h(
    'figure',
    { class: 'chart-figure' },
    box,
    legend,
    h('details', null, h('summary', null, 'Show the figures as a table'), data.el),
  );

  // Drawn once the box is in the page (it needs its width), and again when the width changes.
  let lastWidth = -1;
  const observer = new ResizeObserver(() => {
    if (!box.isConnected) {
      observer.disconnect();
      return;
    }
    const width = Math.round(box.clientWidth);
    if (width !== lastWidth) {
      lastWidth = width;
      draw();
    }
  });
  observer.observe(box);
  draw();
  return figure;
}
