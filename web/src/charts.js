// Time-series charts with uPlot (web/vendor/uplot.iife.min.js, loaded before the modules as window.uPlot).
// The statistics routes answer series as arrays of points, one object per time bucket; seriesOf() turns
// such an array into uPlot's columns, tolerating the names a point's time and counters may have.
import {h, isNumber} from './dom.js';

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
  const present = (key) => rows.some((row) => numeric(row.point[key]) !== undefined);
  let chosen = (wanted || [])
    .map((series) => ({label: series.label, key: series.keys.find(present)}))
    .filter((series) => series.key);
  if (chosen.length === 0 && rows.length > 0) {
    const keys = Object.keys(rows[0].point).filter((key) => !TIME_KEYS.includes(key) && present(key));
    chosen = keys.map((key) => ({label: key, key}));
  }
  return {
    labels: chosen.map((series) => series.label),
    data: [rows.map((row) => row.at), ...chosen.map((series) => rows.map((row) => numeric(row.point[series.key]) ?? null))],
  };
}

function chartWidth(el) {
  return Math.max(280, Math.floor(el.getBoundingClientRect().width || el.parentElement?.clientWidth || 600) - 8);
}

// A chart that keeps its uPlot instance and swaps the data on refresh.
export class TimeChart {
  constructor(title, test) {
    this.title = title;
    this.plot = null;
    this.labels = null;
    this.body = h('div', {class: 'chart-body'});
    this.el = h('div', {class: 'chart', 'data-test': test}, h('h3', {}, title), this.body);
    this.onResize = () => this.plot && this.plot.setSize({width: chartWidth(this.body), height: 200});
    window.addEventListener('resize', this.onResize);
  }

  update({labels, data}) {
    this.el.dataset.points = String(data[0].length);
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
    this.plot = new window.uPlot({
      width: chartWidth(this.body),
      height: 200,
      series: [{}, ...labels.map((label, i) => ({label, stroke: COLORS[i % COLORS.length], width: 1.5, spanGaps: true}))],
      axes: [{}, {size: 60}],
      scales: {y: {range: (u, min, max) => [0, Math.max(1, max)]}},
      legend: {live: true},
    }, data, this.body);
  }

  destroy() {
    window.removeEventListener('resize', this.onResize);
    if (this.plot) this.plot.destroy();
    this.plot = null;
  }
}
