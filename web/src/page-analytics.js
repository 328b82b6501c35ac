// Analytics: per-queue rates, depth and lag, each broker's load and parked polls, the maintenance jobs'
// runs and the database, over a window the user picks. Everything comes from the analytics routes, which
// read the per-minute statistics (never the message log); the per-broker and database ones need operator.
import {read} from './api.js';
import {HOUR_MS, TimeChart, WEEK_MS, seriesPerEntity, windowOf} from './charts.js';
import {h, clear, bytes, num, pick, section, table, text, time, timeHeader} from './dom.js';
import {sectionError} from './ui.js';

const SLOW_EVERY_REFRESHES = 12;
const SPANS = [
  ['1h', 'last hour', HOUR_MS],
  ['6h', 'last 6 hours', 6 * HOUR_MS],
  ['24h', 'last day', 24 * HOUR_MS],
  ['7d', 'last week', WEEK_MS],
];

function queuesOf(answer) {
  return (pick(answer.data, 'queues') || []).map((q) => ({name: q.queue, points: q.series}));
}

function omittedNote(series) {
  return series.omitted && series.omitted.length ? `; ${series.omitted.length} quieter not drawn` : '';
}

export function create(params) {
  const span = SPANS.find(([key]) => key === params.span) || SPANS[0];
  const picker = h('select', {'data-test': 'analytics-span'}, SPANS.map(([key, label]) => h('option', {value: key}, label)));
  picker.value = span[0];
  const queueInput = h('input', {type: 'search', value: params.queue || '', placeholder: 'every queue', 'data-test': 'analytics-queue'});
  const form = h('form', {class: 'filters'}, h('label', {}, 'Window ', picker), h('label', {}, 'Queue ', queueInput),
    h('button', {type: 'submit', class: 'primary', 'data-test': 'analytics-apply'}, 'Show'));
  const pushed = new TimeChart(`Pushed per second by queue, ${span[1]}`, 'chart-queues-pushed');
  const acked = new TimeChart(`Acknowledged per second by queue, ${span[1]}`, 'chart-queues-acked');
  const pending = new TimeChart(`Pending messages by queue, ${span[1]}`, 'chart-queues-pending');
  const lag = new TimeChart(`Lag by queue (seconds), ${span[1]}`, 'chart-queues-lag');
  const cpu = new TimeChart(`CPU by broker (% of one core), ${span[1]}`, 'chart-brokers-cpu');
  const requests = new TimeChart(`Requests per second by broker, ${span[1]}`, 'chart-brokers-requests');
  const parked = new TimeChart(`Parked long polls by broker, ${span[1]}`, 'chart-brokers-parked');
  const charts = [pushed, acked, pending, lag, cpu, requests, parked];
  const queueErrors = h('div');
  const queueNotes = h('p', {class: 'muted', 'data-test': 'analytics-queue-note'});
  const brokerErrors = h('div');
  const jobs = h('div', {'data-test': 'analytics-jobs'});
  const database = h('div', {'data-test': 'analytics-database'});
  const el = h('div', {class: 'page', 'data-test': 'page-analytics'},
    h('h1', {}, 'Analytics'),
    form,
    section('Queues', queueErrors, queueNotes, h('div', {class: 'charts'}, pushed.el, acked.el, pending.el, lag.el)),
    section('Brokers', brokerErrors, h('div', {class: 'charts'}, cpu.el, requests.el, parked.el)),
    h('div', {class: 'columns'}, section('Maintenance jobs', jobs), section('Database', database)));

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    const search = new URLSearchParams({span: picker.value});
    if (queueInput.value.trim()) search.set('queue', queueInput.value.trim());
    location.hash = `#/analytics?${search}`;
  });

  let refreshes = 0;

  async function refresh() {
    const bounds = windowOf(span[2]);
    const queue = params.queue || undefined;
    // The jobs and the database (sizes of every table) change slowly: about once a minute.
    const slow = refreshes++ % SLOW_EVERY_REFRESHES === 0;
    const [ops, lags, system, parkedAnswer, retention, postgres] = await Promise.all([
      read('api/v1/analytics/queue-ops', {...bounds, queue}),
      read('api/v1/analytics/queue-lag', {...bounds, queue}),
      read('api/v1/analytics/system-metrics', bounds),
      read('api/v1/analytics/queue-parked-replicas', bounds),
      slow ? read('api/v1/analytics/retention', {...bounds, queue}) : null,
      slow ? read('api/v1/analytics/postgres-stats') : null,
    ]);
    clear(queueErrors, ops.error ? sectionError(ops.error) : lags.error ? sectionError(lags.error) : null);
    const pushedSeries = seriesPerEntity(queuesOf(ops), 'pushedPerSecond');
    pushed.update(pushedSeries, pick(ops.data, 'bucketMinutes'), bounds);
    acked.update(seriesPerEntity(queuesOf(ops), 'ackedPerSecond'), pick(ops.data, 'bucketMinutes'), bounds);
    pending.update(seriesPerEntity(queuesOf(lags), 'pending'), pick(lags.data, 'bucketMinutes'), bounds);
    lag.update(seriesPerEntity(queuesOf(lags), 'lagSeconds'), pick(lags.data, 'bucketMinutes'), bounds);
    queueNotes.textContent = `${num(queuesOf(ops).length)} queues with activity in the window${omittedNote(pushedSeries)}. Buckets without a statistics refresh are left out.`;

    clear(brokerErrors, system.error ? sectionError(system.error) : parkedAnswer.error ? sectionError(parkedAnswer.error) : null);
    const brokers = (pick(system.data, 'replicas') || []).map((r) => ({name: r.workerId || r.hostname, points: r.timeSeries}));
    cpu.update(seriesPerEntity(brokers, 'metrics.cpu.percent'), pick(system.data, 'bucketMinutes'), bounds);
    requests.update(seriesPerEntity(brokers, 'metrics.requestsPerSecond'), pick(system.data, 'bucketMinutes'), bounds);
    parked.update(seriesPerEntity((pick(parkedAnswer.data, 'replicas') || []).map((r) => ({name: r.workerId, points: r.series})), 'parkedPops'),
      pick(parkedAnswer.data, 'bucketMinutes'), bounds);

    if (!slow) return;
    clear(jobs, retention.error ? sectionError(retention.error) : table([
      {label: 'Job', key: 'job'},
      {label: 'Runs', key: 'runs', class: 'n', render: (j) => num(j.runs.length)},
      {label: 'Rows handled', key: 'rows', class: 'n', render: (j) => num(j.runs.reduce((sum, r) => sum + (Number(r.rows) || 0), 0))},
      {label: 'Longest run', key: 'longest', class: 'n', render: (j) => `${num(Math.max(0, ...j.runs.map((r) => Number(r.durationMs) || 0)), 1)} ms`},
      {label: timeHeader('Last run'), key: 'last', render: (j) => time(j.runs.length ? j.runs[j.runs.length - 1].timestamp : null)},
    ], pick(retention.data, 'jobs') || [], {rowAttrs: (j) => ({'data-test': 'job-row', 'data-job': j.job}), empty: 'No job ran in the window.'}));

    const d = pick(postgres.data, 'database') || {};
    const c = pick(postgres.data, 'connections') || {};
    clear(database, postgres.error ? sectionError(postgres.error) : [
      table([
        {label: 'Figure', key: 'label'},
        {label: 'Value', key: 'value', class: 'n'},
      ], [
        {label: 'Server version', value: text(pick(postgres.data, 'serverVersion'))},
        {label: 'Database size', value: bytes(d.sizeBytes)},
        {label: 'Connections (active / idle / waiting on a lock)', value: `${num(c.total)} (${num(c.active)} / ${num(c.idle)} / ${num(c.waiting)})`},
        {label: 'Cache hit ratio', value: d.cacheHitRatio === undefined || d.cacheHitRatio === null ? text(null) : `${num(Number(d.cacheHitRatio) * 100, 2)} %`},
        {label: 'Transactions committed / rolled back', value: `${num(d.transactionsCommitted)} / ${num(d.transactionsRolledBack)}`},
        {label: 'Deadlocks', value: num(d.deadlocks)},
      ], {rowAttrs: () => ({'data-test': 'database-row'})}),
      h('h3', {}, 'Largest tables'),
      table([
        {label: 'Table', key: 'table'},
        {label: 'Live rows', key: 'liveRows', class: 'n', render: (t) => num(t.liveRows)},
        {label: 'Dead rows', key: 'deadRows', class: 'n', render: (t) => num(t.deadRows)},
        {label: 'Size', key: 'sizeBytes', class: 'n', render: (t) => bytes(t.sizeBytes)},
        {label: timeHeader('Last autovacuum'), key: 'lastAutovacuum', render: (t) => time(t.lastAutovacuum)},
      ], (pick(postgres.data, 'tables') || []).slice(0, 8)),
    ]);
  }

  return {
    el,
    poll: true,
    refresh,
    destroy() {
      for (const chart of charts) chart.destroy();
    },
  };
}
