// Overview: the cell at a glance. Counters and series come from the statistics routes (kept by the stats
// job, never counted from the message log per request); the spool, the flags and the mesh are this broker's.
import {read} from './api.js';
import {HOUR_MS, TimeChart, WEEK_MS, seriesOf, windowOf} from './charts.js';
import {DASH, bool, badge, h, clear, num, pick, section, seconds, stat, table, text, time} from './dom.js';
import {sectionError} from './ui.js';

// The week chart changes slowly: re-read it every WEEK_EVERY_REFRESHES refreshes (about a minute).
const WEEK_EVERY_REFRESHES = 12;
// A broker flushes its figures every minute (BROKER_STATS_FLUSH_INTERVAL_MS) and its newest minute reads as
// seen at that minute's end: one whose newest figures are older than this has stopped (a clean stop, a
// restart under a new id, a rolling deploy or a crash; the figures cannot tell which).
export const WORKER_GONE_AFTER_S = 180;

export const THROUGHPUT_SERIES = [
  {label: 'pushed', keys: ['pushed', 'ingested', 'push', 'pushes', 'messagesPushed', 'ingestedCount']},
  {label: 'popped', keys: ['popped', 'pop', 'pops', 'delivered', 'messagesPopped']},
  {label: 'acked', keys: ['acked', 'ack', 'acks', 'processed', 'completed', 'messagesAcked', 'processedCount']},
  // The statistics' "failed" of a bucket is the messages dead-lettered in it.
  {label: 'dead-lettered', keys: ['failed', 'failures', 'failedCount', 'messagesFailed', 'errors']},
];


export function throughputPoints(status) {
  const throughput = status && status.throughput;
  if (Array.isArray(throughput)) return throughput;
  return pick(throughput, 'series', 'points', 'buckets') || [];
}

function dlqSize(overview, status) {
  const dlq = status && status.deadLetterQueue;
  if (typeof dlq === 'number') return dlq;
  return pick(overview, 'messages.deadLetter') ?? pick(dlq, 'total', 'count', 'messages', 'size');
}

// The brokers of the cell: this one, its mesh links, and the brokers whose figures reach the statistics. Only
// the live ones are rows; brokers that stopped reporting within the window are a muted count under the table,
// not alarms: a rolling deploy stops every broker once. An outage of this broker or the database is the
// banner's (outage.js).
export function brokerRows(health, shared, status, now = Date.now()) {
  const mesh = shared.data || pick(health.data, 'shared_state') || {};
  const self = pick(health.data, 'server_id');
  const rows = [{
    kind: 'this broker',
    name: self ?? DASH,
    state: health.error ? 'unreachable' : `${text(pick(health.data, 'status'))}, database ${text(pick(health.data, 'database'))}`,
    level: health.error || pick(health.data, 'status') !== 'healthy' || pick(health.data, 'database') !== 'connected' ? 'bad' : 'ok',
    detail: `version ${text(pick(health.data, 'version'))}${mesh.enabled === false ? ', mesh off' : ''}`,
  }];
  for (const peer of mesh.peers || []) {
    rows.push({
      kind: 'mesh peer (outbound link)',
      name: peer.address,
      state: peer.connected ? 'connected' : 'disconnected',
      level: peer.connected ? 'ok' : 'bad',
      detail: peer.last_error ? `last error: ${peer.last_error}` : (peer.frames_sent !== undefined ? `${num(peer.frames_sent)} frames sent` : ''),
    });
  }
  for (const sender of mesh.senders || []) {
    rows.push({
      kind: 'mesh sender (inbound link)',
      name: sender.server_id,
      state: sender.alive ? 'alive' : 'silent',
      level: sender.alive ? 'ok' : 'warn',
      detail: sender.last_frame_age_ms !== undefined ? `last frame ${seconds(sender.last_frame_age_ms / 1000)} ago` : '',
    });
  }
  const gone = [];
  const workers = pick(status.data, 'workers');
  for (const worker of Array.isArray(workers) ? workers : []) {
    const name = text(pick(worker, 'workerId', 'serverId', 'hostname'));
    const lastSeen = pick(worker, 'lastSeen');
    const ageSeconds = lastSeen ? (now - Date.parse(lastSeen)) / 1000 : undefined;
    const figures = `${num(pick(worker, 'requests'))} requests in the hour, pool ${num(pick(worker, 'poolInUse'))}/${num(pick(worker, 'poolSize'))}`;
    if (ageSeconds !== undefined && ageSeconds > WORKER_GONE_AFTER_S) {
      gone.push({name, lastSeen});
    } else if (name === self) {
      rows[0].detail += `; ${figures}`;
    } else {
      rows.push({kind: 'broker (statistics)', name, state: 'reporting', level: 'ok', detail: `seen ${time(lastSeen)}, ${figures}`});
    }
  }
  gone.sort((a, b) => Date.parse(b.lastSeen) - Date.parse(a.lastSeen));
  return {rows, gone};
}

function brokersSection(health, shared, status) {
  const {rows, gone} = brokerRows(health, shared, status);
  return [
    table([
      {label: 'Broker', key: 'name'},
      {label: 'Role', key: 'kind'},
      {label: 'State', key: 'state', render: (row) => badge(row.state, row.level)},
      {label: 'Detail', key: 'detail', class: 'wrap'},
    ], rows, {rowAttrs: (row) => ({'data-test': 'broker-row', 'data-level': row.level})}),
    gone.length ? h('details', {class: 'muted gone', 'data-test': 'brokers-gone', 'data-count': gone.length},
      h('summary', {}, `${num(gone.length)} broker${gone.length === 1 ? '' : 's'} stopped reporting in the last hour`),
      h('p', {}, `Stopped, restarted under another id, or replaced (a broker writes its figures every minute; no figures for ${WORKER_GONE_AFTER_S / 60} minutes is gone). A broker that should be running is in this list only if it also vanished from the rows above.`),
      h('ul', {}, gone.map((g) => h('li', {'data-test': 'broker-gone'}, `${g.name}, last figures ${time(g.lastSeen)}`))))
      : null,
  ];
}

export function create() {
  const hourChart = new TimeChart('Throughput, last hour', 'chart-hour');
  const weekChart = new TimeChart('Throughput, last week', 'chart-week');
  const stats = h('div', {class: 'stats', 'data-test': 'overview-stats'});
  const flags = h('div', {'data-test': 'overview-maintenance'});
  const brokers = h('div', {'data-test': 'overview-brokers'});
  const errors = h('div', {class: 'section-errors'});
  const el = h('div', {class: 'page', 'data-test': 'page-overview'},
    h('h1', {}, 'Overview'),
    errors,
    stats,
    section('Throughput', h('div', {class: 'charts'}, hourChart.el, weekChart.el)),
    h('div', {class: 'columns'},
      section('Maintenance', flags),
      section('Brokers of the cell', brokers)));
  let refreshes = 0;

  async function refresh() {
    const now = Date.now();
    const readWeek = refreshes % WEEK_EVERY_REFRESHES === 0;
    refreshes++;
    const hourSpan = windowOf(HOUR_MS, now);
    const weekSpan = windowOf(WEEK_MS, now);
    const [status, overview, health, buffers, maintenance, shared, week] = await Promise.all([
      read('api/v1/status', hourSpan),
      read('api/v1/resources/overview'),
      read('health'),
      read('api/v1/status/buffers'),
      read('api/v1/system/maintenance'),
      read('api/v1/system/shared-state'),
      readWeek ? read('api/v1/status', weekSpan) : null,
    ]);
    const o = overview.data;
    const s = status.data;
    clear(stats,
      stat('Pending', num(pick(o, 'messages.pending') ?? pick(s, 'messages.pending')), 'stat-pending'),
      stat('Processing', num(pick(o, 'messages.processing') ?? pick(s, 'messages.processing')), 'stat-processing'),
      stat('Completed', num(pick(o, 'messages.completed') ?? pick(s, 'messages.completed')), 'stat-completed'),
      // The resources route's messages.failed is the dead letters again, so the two cards count different
      // things: what was dead-lettered in the hour (it stays counted after a requeue) and what is in the
      // dead-letter queue now.
      stat('Dead-lettered, last hour', num(pick(s, 'deadLetterQueue.addedInRange')), 'stat-dead-lettered'),
      stat('Dead letters', num(dlqSize(o, s)), 'stat-dlq', 'in the dead-letter queue now'),
      // The brokers' own failures in the hour: failed database calls, and acknowledgements refused (an expired
      // or wrong lease, an unknown message, an invalid status). Not about dead letters.
      stat('Broker errors, last hour', num(pick(s, 'errors.total')), 'stat-errors',
        `${num(pick(s, 'errors.dbErrors'))} database, ${num(pick(s, 'errors.ackFailed'))} acks refused`),
      stat('Time lag (max)', seconds(pick(o, 'lag.time.max')), 'stat-lag', `avg ${seconds(pick(o, 'lag.time.avg'))}`),
      stat('Offset lag (max)', num(pick(o, 'lag.offset.max')), 'stat-offset-lag', `avg ${num(pick(o, 'lag.offset.avg'), 1)}`),
      stat('Buffered events', num(pick(buffers.data, 'pending')), 'stat-buffered', `${num(pick(buffers.data, 'failed'))} failed`),
      stat('Queues', num(pick(o, 'queues')), 'stat-queues', `${num(pick(o, 'partitions'))} partitions`),
      stat('Statistics age', seconds(pick(o, 'statsAge') ?? pick(s, 'statsAge')), 'stat-age'));
    hourChart.update(seriesOf(throughputPoints(s), THROUGHPUT_SERIES), pick(s, 'bucketMinutes'), hourSpan);
    if (week) weekChart.update(seriesOf(throughputPoints(week.data), THROUGHPUT_SERIES), pick(week.data, 'bucketMinutes'), weekSpan);

    const failures = [status, overview, buffers].filter((r) => r.error).map((r) => r.error);
    clear(errors, failures.length ? sectionError(failures[0]) : null);
    clear(flags, maintenance.error ? sectionError(maintenance.error) : h('div', {class: 'stats'},
      stat('Push maintenance', bool(pick(maintenance.data, 'maintenanceMode')), 'flag-push'),
      stat('Pop maintenance', bool(pick(maintenance.data, 'popMaintenanceMode')), 'flag-pop'),
      stat('Spool healthy', bool(pick(maintenance.data, 'bufferHealthy'), 'yes', 'no'), 'flag-spool')),
    h('p', {}, h('a', {href: '#/system'}, 'Spool & maintenance →')));
    clear(brokers, brokersSection(health, shared, status));
  }

  return {
    el,
    poll: true,
    refresh,
    destroy() {
      hourChart.destroy();
      weekChart.destroy();
    },
  };
}
