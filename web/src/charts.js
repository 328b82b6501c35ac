// Time-series charts with uPlot (web/vendor/uplot.iife.min.js, loaded before the modules as window.uPlot).
// The statistics routes answer series as arrays of points, one object per time bucket; seriesOf() turns
// such an array into uPlot's columns, tolerating the names a point's time and counters may have.
import {h, isNumber, pick, timeZone, wallText} from './dom.js';

export const HOUR_MS = 3600 * 1000;
export const WEEK_MS = 7 * 24 * HOUR_MS;

// The window [now - span, now] as the status route's from and to. Both are sent: with `to` left to the
// server, the window is the span plus the request's transit, and the server picks the next bucket width
// (an hour and a few milliseconds is 5-minute buckets, a week and a few milliseconds 6-hour ones).
export function windowOf(spanMs, now = Date.now()) {
  return {from: new Date(now - spanMs).toISOString(), to: new Date(now).toISOString()};
}

const TIME_KEYS = ['timestamp', 'time', 'bucket', 'bucketStart', 'minute', 'ts', 't', 'at'];
const COLORS = ['#2563eb', '#16a34a', '#9333ea', '#dc2626', '#ea580c', '#0891b2', '#ca8a04', '#db2777'];

function pointTime(point) {
  for (const key of TIME_KEYS) {
    const value = point[key];
    if (value === undefined || value === null) continue;
    const ms = typeof value === 'number' ? (value > 1e11 ? value : value * 1000) : Date.parse(value);
    if (Number.isFinite(ms)) return ms / 1000;
  }
  return undefined;
}

function numeric(value) {
  if (isNumber(value)) return value;
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
  return undefined;
}

// wanted: [{label, keys: ['pushed', 'ingested', ...]}]. A wanted series none of whose keys any point has is
// left out; when none is found, every numeric field of the points is drawn.
export function seriesOf(points, wanted) {
  const rows = (Array.isArray(points) ? points : [])
    .map((point) => ({point, at: point && typeof point === 'object' ? pointTime(point) : undefined}))
    .filter((row) => row.at !== undefined)
    .sort((a, b) => a.at - b.at);
  const present = (key) => rows.some((row) => numeric(pick(row.point, key)) !== undefined);
  let chosen = (wanted || [])
    .map((series) => ({label: series.label, key: series.keys.find(present)}))
    .filter((series) => series.key);
  if (chosen.length === 0 && rows.length > 0) {
    const keys = Object.keys(rows[0].point).filter((key) => !TIME_KEYS.includes(key) && present(key));
    chosen = keys.map((key) => ({label: key, key}));
  }
  return {
    labels: chosen.map((series) => series.label),
    data: [rows.map((row) => row.at), ...chosen.map((series) => rows.map((row) => numeric(pick(row.point, series.key)) ?? null))],
  };
}

// One series per entity (a queue, a broker) of one field, on the union of their times: entities is
// [{name, points}]; the `max` entities with the largest sum are drawn, the rest left out (named in `omitted`).
export function seriesPerEntity(entities, key, max = COLORS.length) {
  const valued = entities.map((entity) => {
    const byTime = new Map();
    for (const point of Array.isArray(entity.points) ? entity.points : []) {
      const at = point && typeof point === 'object' ? pointTime(point) : undefined;
      const value = numeric(pick(point, key));
      if (at !== undefined && value !== undefined) byTime.set(at, value);
    }
    let sum = 0;
    for (const value of byTime.values()) sum += Math.abs(value);
    return {name: entity.name, byTime, sum};
  }).filter((entity) => entity.byTime.size > 0).sort((a, b) => b.sum - a.sum || String(a.name).localeCompare(String(b.name)));
  // The busiest, drawn in name order: the same entities get the same colours on every chart of a page.
  const drawn = valued.slice(0, max).sort((a, b) => String(a.name).localeCompare(String(b.name)));
  const times = [...new Set(drawn.flatMap((entity) => [...entity.byTime.keys()]))].sort((a, b) => a - b);
  return {
    labels: drawn.map((entity) => String(entity.name)),
    data: [times, ...drawn.map((entity) => times.map((at) => entity.byTime.get(at) ?? null))],
    omitted: valued.slice(max).map((entity) => entity.name),
  };
}

// What one point of a series covers, for a chart's title: 'per minute', 'per 5 minutes', 'per hour'.
export function bucketPhrase(minutes) {
  if (!isNumber(minutes)) return 'per bucket';
  if (minutes === 1) return 'per minute';
  if (minutes === 60) return 'per hour';
  if (minutes === 1440) return 'per day';
  if (minutes % 60 === 0) return `per ${minutes / 60} hours`;
  return `per ${minutes} minutes`;
}

// The theme's colours for the axes (the style sheet's variables, so the dark theme applies to charts too).
function axisColors() {
  const style = getComputedStyle(document.documentElement);
  return {text: style.getPropertyValue('--muted').trim() || '#64748b', grid: style.getPropertyValue('--line').trim() || '#e2e8f0'};
}

function chartWidth(el) {
  return Math.max(280, Math.floor(el.getBoundingClientRect().width || el.parentElement?.clientWidth || 600) - 8);
}

// The x range a chart draws: the window the page asked for ({from, to} as windowOf gives them), widened to the
// points it got (a bucket starts at its whole minute or hour, which may be a little before `from`). A young
// queue's single point then sits at the right of an hour-wide axis instead of filling a range of its own.
export function xRangeOf(span, times) {
  const from = span ? Date.parse(span.from) / 1000 : NaN;
  const to = span ? Date.parse(span.to) / 1000 : NaN;
  if (!Number.isFinite(from) || !Number.isFinite(to) || to <= from) return null;
  const first = times.length ? times[0] : from;
  const last = times.length ? times[times.length - 1] : to;
  return [Math.min(from, first), Math.max(to, last)];
}

// The x axis' labels: times as every table writes them (24-hour, the chosen zone), with the date when the
// axis spans more than a day, with seconds under two minutes.
function tickFormat(spanSeconds) {
  return spanSeconds > 86400 ? [5, 16] : spanSeconds < 120 ? [11, 19] : [11, 16];
}

// A chart that keeps its uPlot instance and swaps the data on refresh. Its title is
// `${title} (${bucketPhrase(bucketMinutes)})` once an answer said its bucket width, so it cannot claim a
// resolution the series does not have. Its x axis is the window the page asked for (update's `span`).
export class TimeChart {
  constructor(title, test) {
    this.title = title;
    this.plot = null;
    this.labels = null;
    this.range = null;
    this.body = h('div', {class: 'chart-body'});
    this.heading = h('h3', {'data-test': 'chart-title'}, title);
    this.el = h('div', {class: 'chart', 'data-test': test}, this.heading, this.body);
    this.onResize = () => this.plot && this.plot.setSize({width: chartWidth(this.body), height: 200});
    window.addEventListener('resize', this.onResize);
  }

  // span: the window the series was asked for ({from, to}, ISO 8601), drawn whatever the points cover.
  update({labels, data}, bucketMinutes, span) {
    this.el.dataset.points = String(data[0].length);
    this.range = xRangeOf(span, data[0]);
    if (isNumber(bucketMinutes)) {
      this.el.dataset.bucketMinutes = String(bucketMinutes);
      this.heading.textContent = `${this.title} (${bucketPhrase(bucketMinutes)})`;
    }
    if (typeof window.uPlot !== 'function') {
      this.body.replaceChildren(h('p', {class: 'muted'}, 'Charts unavailable (uPlot did not load).'));
      return;
    }
    if (labels.length === 0 || data[0].length === 0) {
      if (this.plot) this.plot.destroy();
      this.plot = null;
      this.labels = null;
      this.body.replaceChildren(h('p', {class: 'muted', 'data-test': 'chart-empty'}, 'No data in this period yet.'));
      return;
    }
    if (this.plot && this.labels && this.labels.join() === labels.join()) {
      this.plot.setData(data);
      return;
    }
    if (this.plot) this.plot.destroy();
    this.body.replaceChildren();
    this.labels = labels;
    const colors = axisColors();
    const axis = {stroke: colors.text, grid: {stroke: colors.grid}, ticks: {stroke: colors.grid}};
    const zone = timeZone();
    this.plot = new window.uPlot({
      width: chartWidth(this.body),
      height: 200,
      // Axis and legend times in the dashboard's chosen zone, like every table.
      tzDate: (ts) => window.uPlot.tzDate(new Date(ts * 1000), zone),
      // Times as every table writes them (24-hour, the chosen zone), the date only when the span needs it.
      series: [{value: (u, ts) => (ts === null || ts === undefined ? '–' : wallText(ts * 1000, zone))},
        ...labels.map((label, i) => ({label, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: true}))],
      axes: [{
        ...axis,
        // Room for a label: 'MM-DD HH:MM' needs about twice the width of 'HH:MM'.
        space: (u, i, min, max) => (max - min > 86400 ? 110 : 60),
        values: (u, splits) => {
          const [start, end] = tickFormat(u.scales.x.max - u.scales.x.min);
          const texts = splits.map((ts) => wallText(ts * 1000, zone).slice(start, end));
          this.el.dataset.xTicks = texts.join('|');
          return texts;
        },
      }, {...axis, size: 60}],
      scales: {
        // The window asked for whenever the scale takes in every point (uPlot's own fit, padded around a lone
        // point); a narrower range the user dragged out (a zoom) as it is.
        x: {time: true, range: (u, min, max) => {
          const times = u.data[0] || [];
          const wholeData = times.length === 0 || (min <= times[0] && max >= times[times.length - 1]);
          return wholeData && this.range ? this.range : [min, max];
        }},
        y: {range: (u, min, max) => [0, Math.max(1, max)]},
      },
      // What the axis shows, as data attributes (the browser tests read them).
      hooks: {setScale: [(u, key) => {
        if (key !== 'x') return;
        this.el.dataset.xMin = String(u.scales.x.min);
        this.el.dataset.xMax = String(u.scales.x.max);
      }]},
      legend: {live: true},
    }, data, this.body);
  }

  destroy() {
    window.removeEventListener('resize', this.onResize);
    if (this.plot) this.plot.destroy();
    this.plot = null;
  }
}
