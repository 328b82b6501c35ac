// Dead letters: filter, inspect (payload and error), requeue or delete one, or every match of a queue.
import {api, read, segment} from './api.js';
import {button, h, clear, groupLabel, groupName, isoFromWallInput, json, kvTable, num, pick, section, table, text, time, timeHeader,
  timeInput, zoneLabel} from './dom.js';
import {confirmed, drawer, notifyError, sectionError} from './ui.js';

const PAGE_SIZE = 100;

export function create(params) {
  const form = h('form', {class: 'filters', 'data-test': 'dlq-filters'},
    h('label', {}, 'Queue ', h('input', {name: 'queue', value: params.queue || '', 'data-test': 'dlq-queue'})),
    h('label', {}, 'Group ', h('input', {name: 'consumerGroup', value: params.consumerGroup || '', 'data-test': 'dlq-group'})),
    h('label', {}, 'Partition ', h('input', {name: 'partition', value: params.partition || '', 'data-test': 'dlq-partition'})),
    h('label', {}, timeHeader('Failed from'), timeInput({name: 'from', value: params.from || '', 'data-test': 'dlq-from'})),
    h('label', {}, timeHeader('to'), timeInput({name: 'to', value: params.to || '', 'data-test': 'dlq-to'})),
    h('button', {type: 'submit', class: 'primary', 'data-test': 'dlq-apply'}, 'Search'));
  const summary = h('div', {class: 'toolbar'});
  const listing = h('div', {'data-test': 'dlq-list'});
  const detail = drawer('dlq-detail');
  const el = h('div', {class: 'page', 'data-test': 'page-dlq'},
    h('h1', {}, 'Dead letters'),
    form,
    h('p', {class: 'muted'}, `Times in ${zoneLabel()} (the zone chosen in the header), typed as YYYY-MM-DD HH:MM:SS.`),
    summary,
    listing,
    detail.el);
  let offset = 0;

  function filters() {
    const data = new FormData(form);
    const all = {
      queue: data.get('queue').trim(),
      consumerGroup: groupName(data.get('consumerGroup')),
      partition: data.get('partition').trim(),
      from: isoFromWallInput(data.get('from'), 'Failed from'),
      to: isoFromWallInput(data.get('to'), 'to'),
    };
    // Only the filters given: the bulk routes take them as a JSON body, where "" is not "any".
    return Object.fromEntries(Object.entries(all).filter(([, value]) => value));
  }

  function after(answer) {
    if (answer) {
      detail.close();
      search();
    }
  }

  function requeueOne(entry) {
    return confirmed({
      title: `Requeue ${entry.transactionId}?`,
      body: [h('p', {}, `A copy goes back onto ${entry.queue} / ${entry.partition} as a new message; the dead letter of ${entry.consumerGroup === null || entry.consumerGroup === undefined ? 'the queue' : `group ${groupLabel(entry.consumerGroup)}`} leaves the DLQ.`)],
      confirmLabel: 'Requeue',
    }, () => api('POST', `api/v1/dlq/${segment(entry.id)}/requeue`, {body: {consumerGroup: entry.consumerGroup}}),
    (answer) => `Requeued ${num(pick(answer, 'requeued'))} dead letter.`).then(after);
  }

  function deleteOne(entry) {
    return confirmed({
      title: `Delete the dead letter ${entry.transactionId}?`,
      body: [h('p', {}, 'The entry is removed for good.')],
      confirmLabel: 'Delete',
      danger: true,
    }, () => api('DELETE', `api/v1/dlq/${segment(entry.id)}`, {query: {consumerGroup: entry.consumerGroup}}),
    (answer) => `Deleted ${num(pick(answer, 'deleted'))} dead letter.`).then(after);
  }

  function bulk(kind, total) {
    let f;
    try {
      f = filters();
    } catch (error) {
      notifyError(error);
      return;
    }
    if (!f.queue) return;
    const requeue = kind === 'requeue';
    confirmed({
      title: `${requeue ? 'Requeue' : 'Delete'} every dead letter matching these filters?`,
      body: [h('p', {}, `${num(total)} entries of queue ${f.queue} match. One call handles a bounded number; repeat while entries remain.`)],
      confirmLabel: requeue ? 'Requeue all' : 'Delete all',
      danger: !requeue,
    }, () => (requeue ? api('POST', 'api/v1/dlq/requeue', {body: f}) : api('DELETE', 'api/v1/dlq', {query: f})),
    (answer) => (requeue ? `Requeued ${num(pick(answer, 'requeued'))} dead letters.` : `Deleted ${num(pick(answer, 'deleted'))} dead letters.`))
      .then(after);
  }

  function inspect(entry) {
    detail.open(
      h('h2', {'data-test': 'dlq-detail-title'}, `${entry.queue} / ${entry.partition} / ${entry.transactionId}`),
      h('div', {class: 'toolbar'},
        button('Requeue…', () => requeueOne(entry), {'data-test': 'dlq-detail-requeue'}), ' ',
        button('Delete…', () => deleteOne(entry), {class: 'danger', 'data-test': 'dlq-detail-delete'}), ' ',
        h('a', {href: `#/messages?queue=${encodeURIComponent(entry.queue)}&partition=${encodeURIComponent(entry.partition)}&status=dead_letter`}, 'the message\'s page')),
      kvTable([
        ['Error', text(entry.errorMessage)],
        ['Retries', num(entry.retryCount)],
        ['Consumer group', groupLabel(entry.consumerGroup)],
        [timeHeader('Failed at'), time(entry.failedAt)],
        [timeHeader('Created at'), time(entry.createdAt)],
        ['Message id', text(entry.id)],
        ['Producer', text(entry.producerSub)],
      ], 'dlq-fields'),
      section('Payload', h('div', {'data-test': 'dlq-payload'}, json(entry.data))));
  }

  async function search() {
    let chosen;
    try {
      chosen = filters();
    } catch (error) {
      notifyError(error);
      return;
    }
    const answer = await read('api/v1/dlq', {...chosen, limit: PAGE_SIZE, offset});
    if (answer.error) {
      clear(listing, sectionError(answer.error));
      clear(summary);
      return;
    }
    const rows = pick(answer.data, 'messages') || [];
    const total = pick(answer.data, 'total');
    const queue = chosen.queue;
    clear(summary,
      h('span', {class: 'muted', 'data-test': 'dlq-total'}, `${num(total)} dead letters match`),
      queue ? [' ',
        button(`Requeue all of ${queue}…`, () => bulk('requeue', total), {'data-test': 'dlq-requeue-all'}), ' ',
        button(`Delete all of ${queue}…`, () => bulk('delete', total), {class: 'danger', 'data-test': 'dlq-delete-all'})]
        : h('span', {class: 'muted'}, ' (filter by a queue to act on every match)'));
    clear(listing,
      table([
        {label: timeHeader('Failed at'), key: 'failedAt', render: (d) => time(d.failedAt)},
        {label: 'Queue', key: 'queue'},
        {label: 'Partition', key: 'partition'},
        {label: 'Group', key: 'consumerGroup', render: (d) => groupLabel(d.consumerGroup)},
        {label: 'Transaction id', key: 'transactionId'},
        {label: 'Error', key: 'errorMessage', class: 'clip'},
        {label: 'Retries', key: 'retryCount', class: 'n', render: (d) => num(d.retryCount)},
        {label: '', key: null, class: 'actions', render: (d) => [
          button('Requeue…', () => requeueOne(d), {'data-test': 'dlq-requeue'}), ' ',
          button('Delete…', () => deleteOne(d), {class: 'danger', 'data-test': 'dlq-delete'}),
        ]},
      ], rows, {
        onRowClick: inspect,
        rowAttrs: (d) => ({'data-test': 'dlq-row', 'data-transaction': d.transactionId, 'data-id': d.id}),
        empty: 'No dead letter matches.',
      }),
      h('div', {class: 'toolbar'},
        button('← newer', () => { offset = Math.max(0, offset - PAGE_SIZE); search(); }, {disabled: offset === 0 ? true : null}),
        button('older →', () => { offset += PAGE_SIZE; search(); }, {disabled: offset + rows.length >= (total || 0) ? true : null})));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    offset = 0;
    detail.close();
    search();
  });

  return {el, poll: false, refresh: search};
}
