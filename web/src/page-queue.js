// Queue detail: partitions with their counters, per-partition lag of every consumer group, the queue's
// options and its consumer groups.
import {read, segment} from './api.js';
import {badge, h, clear, kvTable, num, pick, section, seconds, stat, table, text, time} from './dom.js';
import {sectionError} from './ui.js';

// Per-partition lag reads one route per group; a queue with more groups shows the first ones.
const LAG_GROUPS_MAX = 20;

function optionsOf(statusQueue) {
  const config = pick(statusQueue, 'queue.config', 'config', 'queue.options', 'options');
  return config && typeof config === 'object' ? Object.entries(config) : [];
}

export function create(params) {
  const queue = params.queue;
  const totals = h('div', {class: 'stats', 'data-test': 'queue-totals'});
  const partitions = h('div', {'data-test': 'queue-partitions'});
  const lag = h('div', {'data-test': 'queue-lag'});
  const options = h('div', {'data-test': 'queue-options'});
  const groupsEl = h('div', {'data-test': 'queue-groups'});
  const el = h('div', {class: 'page', 'data-test': 'page-queue'},
    h('p', {class: 'crumbs'}, h('a', {href: '#/queues'}, 'Queues'), ' / '),
    h('h1', {'data-test': 'queue-name'}, queue),
    h('p', {class: 'toolbar'},
      h('a', {href: `#/messages?queue=${encodeURIComponent(queue)}`}, 'Messages of this queue'), ' · ',
      h('a', {href: `#/dlq?queue=${encodeURIComponent(queue)}`}, 'Dead letters of this queue')),
    totals,
    section('Partitions', partitions),
    section('Consumer groups', groupsEl),
    section('Lag per partition and group', lag),
    section('Options', options));

  async function refresh() {
    const [detail, status, groups] = await Promise.all([
      read(`api/v1/resources/queues/${segment(queue)}`),
      read(`api/v1/status/queues/${segment(queue)}`),
      read('api/v1/consumer-groups'),
    ]);
    if (detail.error) {
      clear(partitions, sectionError(detail.error));
    } else {
      const t = pick(detail.data, 'totals') || {};
      clear(totals,
        stat('Total', num(t.total), 'queue-total'),
        stat('Pending', num(t.pending), 'queue-pending'),
        stat('Processing', num(t.processing), 'queue-processing'),
        stat('Completed', num(t.completed), 'queue-completed'),
        stat('Failed', num(t.failed), 'queue-failed'),
        stat('Dead letters', num(t.deadLetter), 'queue-dlq'));
      clear(partitions, table([
        {label: 'Partition', key: 'name'},
        {label: 'Total', key: 'stats.total', class: 'n', render: (p) => num(pick(p, 'stats.total'))},
        {label: 'Pending', key: 'stats.pending', class: 'n', render: (p) => num(pick(p, 'stats.pending'))},
        {label: 'Processing', key: 'stats.processing', class: 'n', render: (p) => num(pick(p, 'stats.processing'))},
        {label: 'Completed', key: 'stats.completed', class: 'n', render: (p) => num(pick(p, 'stats.completed'))},
        {label: 'Dead letters', key: 'stats.deadLetter', class: 'n', render: (p) => num(pick(p, 'stats.deadLetter'))},
        {label: 'Oldest', key: 'oldestMessage', render: (p) => time(pick(p, 'oldestMessage.createdAt', 'oldestMessage'))},
        {label: 'Newest', key: 'newestMessage', render: (p) => time(pick(p, 'newestMessage.createdAt', 'newestMessage'))},
      ], pick(detail.data, 'partitions') || [], {rowAttrs: (p) => ({'data-test': 'partition-row', 'data-partition': text(p.name)})}));
    }

    const entries = optionsOf(status.data);
    clear(options, status.error ? sectionError(status.error)
      : entries.length ? kvTable(entries.map(([k, v]) => [k, text(v)]), 'options-table') : h('p', {class: 'muted'}, 'No options reported.'));

    if (groups.error) {
      clear(groupsEl, sectionError(groups.error));
      clear(lag);
      return;
    }
    const mine = (Array.isArray(groups.data) ? groups.data : []).filter((g) => g.queueName === queue);
    clear(groupsEl, table([
      {label: 'Group', key: 'name'},
      {label: 'State', key: 'state', render: (g) => badge(text(g.state), g.state === 'Stable' ? 'ok' : 'warn')},
      {label: 'Partitions lagging', key: 'partitionsWithLag', class: 'n', render: (g) => num(g.partitionsWithLag)},
      {label: 'Offset lag', key: 'totalLag', class: 'n', render: (g) => num(g.totalLag)},
      {label: 'Time lag', key: 'maxTimeLag', class: 'n', render: (g) => seconds(g.maxTimeLag)},
    ], mine, {rowAttrs: () => ({'data-test': 'queue-group-row'}), empty: 'No consumer group has read this queue.'}));

    const details = await Promise.all(mine.slice(0, LAG_GROUPS_MAX).map((g) => read(`api/v1/consumer-groups/${segment(g.name)}`)));
    const lagRows = [];
    details.forEach((answer, i) => {
      const forQueue = answer.data && typeof answer.data === 'object' ? answer.data[queue] : undefined;
      for (const p of (forQueue && forQueue.partitions) || []) {
        lagRows.push({group: mine[i].name, ...p});
      }
    });
    clear(lag, table([
      {label: 'Partition', key: 'partition'},
      {label: 'Group', key: 'group'},
      {label: 'Offset lag', key: 'offsetLag', class: 'n', render: (r) => num(r.offsetLag)},
      {label: 'Time lag', key: 'timeLagSeconds', class: 'n', render: (r) => seconds(r.timeLagSeconds)},
      {label: 'Consumed', key: 'totalConsumed', class: 'n', render: (r) => num(r.totalConsumed)},
      {label: 'Last consumed', key: 'lastConsumedAt', render: (r) => time(r.lastConsumedAt)},
      {label: 'Lease', key: 'leaseActive', render: (r) => (r.leaseActive ? 'held' : 'free')},
    ], lagRows, {rowAttrs: () => ({'data-test': 'lag-row'}), empty: 'No cursor on this queue yet.'}));
  }

  return {el, poll: true, refresh};
}
