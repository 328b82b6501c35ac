// Queue detail: rates, depth and lag over the last hour, partitions with their counters, per-partition lag
// of every consumer group, the queue's options and its consumer groups.
import {read, segment} from './api.js';
import {HOUR_MS, TimeChart, seriesOf, windowOf} from './charts.js';
import {h, clear, groupLabel, isNumber, naturalCompare, num, pick, section, seconds, stat, table, text, time, timeHeader} from './dom.js';
import {groupStateBadge, partitionLagRows} from './page-groups.js';
import {sectionError} from './ui.js';

// Per-partition lag reads one route per group; a queue with more groups shows the first ones.
const LAG_GROUPS_MAX = 20;

// The queue options of POST /api/v1/configure (docs/http-api.md) with a readable name and their unit; a
// value of `zero` reads as that word (0 means "none" or "off" for those options).
const OPTIONS = {
  leaseTime: {label: 'Lease time', unit: 's'},
  retryLimit: {label: 'Retry limit', unit: 'deliveries'},
  retryDelay: {label: 'Retry delay', unit: 'ms'},
  priority: {label: 'Priority'},
  delayedProcessing: {label: 'Delayed processing', unit: 's', zero: 'none'},
  windowBuffer: {label: 'Window buffer', unit: 's', zero: 'none'},
  maxSize: {label: 'Maximum pending', unit: 'messages', zero: 'no limit'},
  ttl: {label: 'Time to live (unconsumed)', unit: 's', zero: 'none'},
  retentionEnabled: {label: 'Retention'},
  retentionSeconds: {label: 'Retention of every message', unit: 's', zero: 'keep'},
  completedRetentionSeconds: {label: 'Retention of consumed messages', unit: 's', zero: 'keep'},
  maxWaitTimeSeconds: {label: 'Maximum wait before dead-lettering', unit: 's', zero: 'off'},
  deadLetterQueue: {label: 'Dead-letter queue (echoed; always on)'},
  dlqAfterMaxRetries: {label: 'Dead-letter after the retry limit (echoed; always on)'},
  encryptionEnabled: {label: 'Payload encryption'},
};

function optionValue(key, value) {
  const info = OPTIONS[key] || {};
  if (typeof value === 'boolean') return value ? 'on' : 'off';
  const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : value;
  if (!isNumber(n)) return text(value);
  if (n === 0 && info.zero) return info.zero;
  if (info.unit === 's') return n >= 120 ? `${num(n)} s (${seconds(n)})` : `${num(n)} s`;
  if (info.unit === 'ms') return `${num(n)} ms`;
  return info.unit ? `${num(n)} ${info.unit}` : num(n);
}

// [{key, label, value}] in the order of OPTIONS, then any option this page does not know, by name.
export function optionRows(statusQueue) {
  const config = pick(statusQueue, 'queue.config', 'config', 'queue.options', 'options');
  if (!config || typeof config !== 'object') return [];
  const known = Object.keys(OPTIONS).filter((key) => key in config);
  const other = Object.keys(config).filter((key) => !(key in OPTIONS)).sort(naturalCompare);
  return [...known, ...other].map((key) => ({key, label: OPTIONS[key] ? OPTIONS[key].label : key, value: optionValue(key, config[key])}));
}

// The series of this queue in a per-queue analytics answer ({queues: [{queue, series}]}).
function queueSeries(answer, queue) {
  const entry = (pick(answer.data, 'queues') || []).find((q) => q.queue === queue);
  return entry ? entry.series : [];
}

export function create(params) {
  const queue = params.queue;
  const totals = h('div', {class: 'stats', 'data-test': 'queue-totals'});
  const partitions = h('div', {'data-test': 'queue-partitions'});
  const lag = h('div', {'data-test': 'queue-lag'});
  const options = h('div', {'data-test': 'queue-options'});
  const groupsEl = h('div', {'data-test': 'queue-groups'});
  const ratesChart = new TimeChart('Messages per second, last hour', 'chart-queue-rates');
  const depthChart = new TimeChart('Pending and processing messages, last hour', 'chart-queue-depth');
  const lagChart = new TimeChart('Lag in seconds (age of the oldest pending message), last hour', 'chart-queue-lag');
  const chartErrors = h('div');
  const el = h('div', {class: 'page', 'data-test': 'page-queue'},
    h('p', {class: 'crumbs'}, h('a', {href: '#/queues'}, 'Queues'), ' / '),
    h('h1', {'data-test': 'queue-name'}, queue),
    h('p', {class: 'toolbar'},
      h('a', {href: `#/messages?queue=${encodeURIComponent(queue)}`}, 'Messages of this queue'), ' · ',
      h('a', {href: `#/dlq?queue=${encodeURIComponent(queue)}`}, 'Dead letters of this queue')),
    totals,
    section('Activity', chartErrors, h('div', {class: 'charts'}, ratesChart.el, depthChart.el, lagChart.el)),
    section('Partitions', h('p', {class: 'muted'}, 'Pending and completed, as in the cards above, are counted at the slowest consumer group\'s cursor (queue mode included).'),
      partitions),
    section('Consumer groups', groupsEl),
    section('Lag per partition and group', lag),
    section('Options', options));

  async function refresh() {
    const hour = windowOf(HOUR_MS);
    const span = {...hour, queue};
    const [detail, status, groups, ops, lagSeries] = await Promise.all([
      read(`api/v1/resources/queues/${segment(queue)}`),
      read(`api/v1/status/queues/${segment(queue)}`),
      read('api/v1/consumer-groups'),
      read('api/v1/analytics/queue-ops', span),
      read('api/v1/analytics/queue-lag', span),
    ]);
    clear(chartErrors, ops.error ? sectionError(ops.error) : lagSeries.error ? sectionError(lagSeries.error) : null);
    ratesChart.update(seriesOf(queueSeries(ops, queue), [
      {label: 'pushed/s', keys: ['pushedPerSecond']},
      {label: 'acked/s', keys: ['ackedPerSecond']},
    ]), pick(ops.data, 'bucketMinutes'), hour);
    depthChart.update(seriesOf(queueSeries(lagSeries, queue), [
      {label: 'pending', keys: ['pending']},
      {label: 'processing', keys: ['processing']},
    ]), pick(lagSeries.data, 'bucketMinutes'), hour);
    lagChart.update(seriesOf(queueSeries(lagSeries, queue), [{label: 'lag (s)', keys: ['lagSeconds']}]),
      pick(lagSeries.data, 'bucketMinutes'), hour);
    if (detail.error) {
      clear(partitions, sectionError(detail.error));
    } else {
      const t = pick(detail.data, 'totals') || {};
      // Pending and completed are counted at the slowest reader's cursor on each partition (queue mode counts
      // as a reader): a message is completed once every group has consumed it (docs/operations-stats.md).
      clear(totals,
        stat('Total', num(t.total), 'queue-total'),
        stat('Pending', num(t.pending), 'queue-pending', 'for the slowest consumer group'),
        stat('Processing', num(t.processing), 'queue-processing', 'leased now'),
        stat('Completed', num(t.completed), 'queue-completed', 'by every consumer group'),
        stat('Dead letters', num(t.deadLetter), 'queue-dlq'));
      clear(partitions, table([
        {label: 'Partition', key: 'name'},
        {label: 'Total', key: 'stats.total', class: 'n', render: (p) => num(pick(p, 'stats.total'))},
        {label: 'Pending', key: 'stats.pending', class: 'n', render: (p) => num(pick(p, 'stats.pending'))},
        {label: 'Processing', key: 'stats.processing', class: 'n', render: (p) => num(pick(p, 'stats.processing'))},
        {label: 'Completed', key: 'stats.completed', class: 'n', render: (p) => num(pick(p, 'stats.completed'))},
        {label: 'Dead letters', key: 'stats.deadLetter', class: 'n', render: (p) => num(pick(p, 'stats.deadLetter'))},
        {label: timeHeader('Oldest'), key: 'oldestMessage', render: (p) => time(pick(p, 'oldestMessage.createdAt', 'oldestMessage'))},
        {label: timeHeader('Newest'), key: 'newestMessage', render: (p) => time(pick(p, 'newestMessage.createdAt', 'newestMessage'))},
      ], [...(pick(detail.data, 'partitions') || [])].sort((a, b) => naturalCompare(a.name, b.name)),
      {rowAttrs: (p) => ({'data-test': 'partition-row', 'data-partition': text(p.name)})}));
    }

    const entries = optionRows(status.data);
    clear(options, status.error ? sectionError(status.error)
      : entries.length ? h('div', {'data-test': 'options-table'}, table([
        {label: 'Option', key: 'label'},
        {label: 'Value', key: 'value', class: 'n'},
        {label: 'Name in the API', key: 'key', render: (o) => h('code', {class: 'muted'}, o.key)},
      ], entries, {rowAttrs: (o) => ({'data-test': 'option-row', 'data-option': o.key})}))
        : h('p', {class: 'muted'}, 'No options reported.'));

    if (groups.error) {
      clear(groupsEl, sectionError(groups.error));
      clear(lag);
      return;
    }
    const mine = (Array.isArray(groups.data) ? groups.data : []).filter((g) => g.queueName === queue);
    clear(groupsEl, table([
      {label: 'Group', key: 'name', render: (g) => groupLabel(g.name)},
      {label: 'State', key: 'state', render: groupStateBadge},
      {label: 'Partitions lagging', key: 'partitionsWithLag', class: 'n', render: (g) => num(g.partitionsWithLag)},
      {label: 'Offset lag', key: 'totalLag', class: 'n', render: (g) => num(g.totalLag)},
      {label: 'Time lag', key: 'maxTimeLag', class: 'n', render: (g) => seconds(g.maxTimeLag)},
    ], mine, {rowAttrs: () => ({'data-test': 'queue-group-row'}), empty: 'No consumer group has read this queue.'}));

    const details = await Promise.all(mine.slice(0, LAG_GROUPS_MAX).map((g) => read(`api/v1/consumer-groups/${segment(g.name)}`)));
    const lagRows = [];
    details.forEach((answer, i) => {
      for (const p of partitionLagRows(answer, queue)) lagRows.push({group: mine[i].name, ...p});
    });
    lagRows.sort((a, b) => naturalCompare(a.partition, b.partition) || naturalCompare(groupLabel(a.group), groupLabel(b.group)));
    clear(lag, table([
      {label: 'Partition', key: 'partition'},
      {label: 'Group', key: 'group', render: (r) => groupLabel(r.group)},
      {label: 'Offset lag', key: 'offsetLag', class: 'n', render: (r) => num(r.offsetLag)},
      {label: 'Time lag', key: 'timeLagSeconds', class: 'n', render: (r) => seconds(r.timeLagSeconds)},
      {label: 'Consumed', key: 'totalConsumed', class: 'n', render: (r) => num(r.totalConsumed)},
      {label: timeHeader('Last consumed'), key: 'lastConsumedAt', render: (r) => time(r.lastConsumedAt)},
      {label: 'Lease', key: 'leaseActive', render: (r) => (r.leaseActive ? 'held' : 'free')},
    ], lagRows, {rowAttrs: () => ({'data-test': 'lag-row'}), empty: 'No cursor on this queue yet.'}));
  }

  return {
    el,
    poll: true,
    refresh,
    destroy() {
      ratesChart.destroy();
      depthChart.destroy();
      lagChart.destroy();
    },
  };
}
