// Consumer groups: one row per (group, queue) with its lag; seek a group's cursors on a queue to a time or
// to the end, or delete them, each after a confirmation.
import {api, read, segment} from './api.js';
import {badge, button, h, clear, groupLabel, isoFromWallInput, naturalCompare, num, pick, seconds, sortBy, sortRows, table, text, time,
  timeHeader, timeInput, wallText, zoneLabel} from './dom.js';
import {confirmed, drawer, sectionError} from './ui.js';

// What the dashboard calls a group's state. The route's `Dead` means "never consumed": on a queue with
// nothing to read that is an idle group, not a dead one; only with messages waiting is it not consuming.
export function groupState(group) {
  const lag = Number(group.totalLag) || 0;
  if (group.state === 'Dead') {
    return lag > 0 ? {label: 'Not consumed yet', kind: 'warn', hint: 'has not acknowledged a message yet, and messages wait'}
      : {label: 'Idle', kind: '', hint: 'nothing to read yet'};
  }
  if (group.state === 'Lagging') return {label: 'Lagging', kind: 'warn', hint: 'its oldest unread message is over 5 minutes old'};
  if (group.state === 'Stable') return {label: 'Stable', kind: 'ok', hint: 'keeping up'};
  return {label: text(group.state), kind: '', hint: ''};
}

export function groupStateBadge(group) {
  const state = groupState(group);
  return h('span', {title: state.hint, 'data-test': 'group-state', 'data-state': state.label}, badge(state.label, state.kind));
}

// The per-partition lag of one group on one queue (the rows of GET /consumer-groups/:group), in natural
// partition order.
export function partitionLagRows(detailAnswer, queue) {
  const forQueue = detailAnswer.data && typeof detailAnswer.data === 'object' ? detailAnswer.data[queue] : undefined;
  return [...((forQueue && forQueue.partitions) || [])].sort((a, b) => naturalCompare(a.partition, b.partition));
}

function seekDialog(group, refresh) {
  const when = timeInput({name: 'timestamp', value: wallText(Date.now() - 3600 * 1000), 'data-test': 'seek-time'});
  return confirmed({
    title: `Seek ${groupLabel(group.name)} on ${group.queueName}`,
    body: [
      h('p', {}, 'Moves the group\'s cursor on every partition of the queue and drops its leases.'),
      h('label', {class: 'choice'}, h('input', {type: 'radio', name: 'mode', value: 'end', checked: true, 'data-test': 'seek-end'}),
        ' to the end (skip everything not consumed yet)'),
      h('label', {class: 'choice'}, h('input', {type: 'radio', name: 'mode', value: 'time', 'data-test': 'seek-to-time'}),
        ' to a time (messages after it are delivered again): ', when, ` ${zoneLabel()}`),
    ],
    confirmLabel: 'Seek',
  }, (form) => {
    const body = form.get('mode') === 'time' ? {timestamp: isoFromWallInput(form.get('timestamp'), 'Seek time')} : {toEnd: true};
    if (form.get('mode') === 'time' && !body.timestamp) throw new Error('Pick a time to seek to.');
    return api('POST', `api/v1/consumer-groups/${segment(group.name)}/queues/${segment(group.queueName)}/seek`, {body});
  }, (answer) => `Seeked ${groupLabel(group.name)} on ${group.queueName}: ${num(pick(answer, 'partitionsUpdated'))} partitions moved.`)
    .then((answer) => answer && refresh());
}

function deleteDialog(group, refresh) {
  return confirmed({
    title: `Delete ${groupLabel(group.name)} on ${group.queueName}?`,
    body: [h('p', {}, 'Removes the group\'s cursors, leases and subscription on this queue. A consumer using the group starts over from its subscription start.')],
    confirmLabel: 'Delete',
    danger: true,
  }, () => api('DELETE', `api/v1/consumer-groups/${segment(group.name)}/queues/${segment(group.queueName)}`),
  (answer) => `Deleted ${groupLabel(group.name)} on ${group.queueName} (${num(pick(answer, 'deletedPartitions'))} partitions).`)
    .then((answer) => answer && refresh());
}

export function create(params) {
  const sortState = {key: 'maxTimeLag', desc: true};
  let rows = [];
  let lastSeen = null;
  const filter = h('input', {type: 'search', placeholder: 'filter by group or queue', value: params.queue || '', 'data-test': 'group-filter'});
  const listing = h('div', {'data-test': 'group-list'});
  const detail = drawer('group-detail');
  const el = h('div', {class: 'page', 'data-test': 'page-groups'},
    h('h1', {}, 'Consumer groups'),
    h('div', {class: 'toolbar'}, filter),
    listing,
    detail.el);

  async function showDetail(group) {
    const answer = await read(`api/v1/consumer-groups/${segment(group.name)}`);
    const rows = partitionLagRows(answer, group.queueName);
    // A group's members are its consumers: a consumer holds a lease on the partition it is reading.
    const leases = new Set(rows.filter((r) => r.leaseActive).map((r) => r.workerId));
    detail.open(h('h2', {'data-test': 'group-detail-title'}, `${groupLabel(group.name)} on ${group.queueName}`),
      h('p', {}, groupStateBadge(group), ` ${groupState(group).hint}; `,
        h('span', {'data-test': 'group-consumers'}, `${num(leases.size)} consumer${leases.size === 1 ? '' : 's'} reading now (leases held)`),
        `, ${num(rows.length)} partitions with a cursor.`),
      answer.error ? sectionError(answer.error) : table([
        {label: 'Partition', key: 'partition'},
        {label: 'Offset lag', key: 'offsetLag', class: 'n', render: (r) => num(r.offsetLag)},
        {label: 'Time lag', key: 'timeLagSeconds', class: 'n', render: (r) => seconds(r.timeLagSeconds)},
        {label: 'Consumed', key: 'totalConsumed', class: 'n', render: (r) => num(r.totalConsumed)},
        {label: timeHeader('Last consumed'), key: 'lastConsumedAt', render: (r) => time(r.lastConsumedAt)},
        {label: 'Lease', key: 'leaseActive', render: (r) => (r.leaseActive ? `held by ${text(r.workerId)}` : 'free')},
      ], rows, {empty: 'No cursor yet.'}));
  }

  function render() {
    const needle = filter.value.trim().toLowerCase();
    const shown = sortRows(rows.filter((g) => !needle || `${groupLabel(g.name)} ${g.queueName}`.toLowerCase().includes(needle)), sortState);
    clear(listing, table([
      {label: 'Group', key: 'name', render: (g) => groupLabel(g.name)},
      {label: 'Queue', key: 'queueName', render: (g) => h('a', {href: `#/queues/${encodeURIComponent(g.queueName)}`}, g.queueName)},
      {label: 'State', key: 'state', render: groupStateBadge},
      // The route's `members` counts the partitions the group has a cursor on, not consumers.
      {label: 'Partitions', key: 'members', class: 'n', render: (g) => num(g.members)},
      {label: 'Partitions lagging', key: 'partitionsWithLag', class: 'n', render: (g) => num(g.partitionsWithLag)},
      {label: 'Offset lag', key: 'totalLag', class: 'n', render: (g) => num(g.totalLag)},
      {label: 'Time lag', key: 'maxTimeLag', class: 'n', render: (g) => seconds(g.maxTimeLag)},
      {label: 'Subscription', key: 'subscriptionMode', render: (g) => [text(g.subscriptionMode), g.subscriptionTimestamp ? ` from ${time(g.subscriptionTimestamp)}` : '']},
      {label: '', key: null, class: 'actions', render: (g) => [
        button('Seek…', () => seekDialog(g, refresh), {'data-test': 'group-seek'}),
        ' ',
        button('Delete…', () => deleteDialog(g, refresh), {class: 'danger', 'data-test': 'group-delete'}),
      ]},
    ], shown, {
      sortState,
      onSort: sortBy(sortState, render, true),
      onRowClick: showDetail,
      rowAttrs: (g) => ({'data-test': 'group-row', 'data-group': g.name, 'data-queue': g.queueName}),
      empty: rows.length ? 'No group matches.' : 'No consumer groups yet.',
    }));
  }

  filter.addEventListener('input', render);

  async function refresh() {
    const answer = await read('api/v1/consumer-groups');
    if (answer.error) {
      clear(listing, sectionError(answer.error));
      return;
    }
    rows = Array.isArray(answer.data) ? answer.data : [];
    // Re-render only on a change, so a poll does not replace rows under the user's pointer.
    const seen = JSON.stringify(rows);
    if (seen === lastSeen) return;
    lastSeen = seen;
    render();
  }

  return {el, poll: true, refresh};
}
