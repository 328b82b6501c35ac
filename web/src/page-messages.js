// Messages: a filtered listing (queue, partition, status, creation time), a message's detail with its
// payload and traces, and deletion. The listing reads the message log, so it runs when asked, not on the
// refresh loop.
import {api, read, segment} from './api.js';
import {badge, button, h, clear, groupLabel, isoFromWallInput, json, kvTable, num, pick, section, table, text, time, timeHeader, timeInput,
  wallText, zoneLabel} from './dom.js';
import {confirmed, drawer, notifyError, sectionError} from './ui.js';
import {traceTable} from './page-traces.js';

const STATUSES = ['', 'pending', 'processing', 'completed', 'dead_letter'];
const PAGE_SIZE = 100;

function statusBadge(status) {
  const kind = {completed: 'ok', pending: 'info', processing: 'info', dead_letter: 'bad'}[status] || '';
  return badge(text(status), kind);
}

// What the listing says of its matches: how many when they fit in this page, else which ones it shows.
export function matchCount(shown, offset, more) {
  const noun = (n) => `${num(n)} message${n === 1 ? '' : 's'}`;
  if (!more && offset === 0) return `${noun(shown)} match${shown === 1 ? 'es' : ''}`;
  if (!more) return `${noun(offset + shown)} match: #${num(offset + 1)} to #${num(offset + shown)} shown`;
  return `More than ${noun(offset + shown)} match: #${num(offset + 1)} to #${num(offset + shown)} shown, newest first`;
}

export function create(params) {
  const hourAgo = new Date(Date.now() - 3600 * 1000);
  const form = h('form', {class: 'filters', 'data-test': 'message-filters'},
    h('label', {}, 'Queue ', h('input', {name: 'queue', value: params.queue || '', 'data-test': 'filter-queue'})),
    h('label', {}, 'Partition ', h('input', {name: 'partition', value: params.partition || '', 'data-test': 'filter-partition'})),
    h('label', {}, 'Status ', h('select', {name: 'status', 'data-test': 'filter-status'},
      STATUSES.map((s) => h('option', {value: s, selected: s === (params.status || '') ? 'selected' : null}, s || 'any')))),
    h('label', {}, timeHeader('From'), timeInput({name: 'from', value: params.from || wallText(hourAgo.getTime()), 'data-test': 'filter-from'})),
    h('label', {}, timeHeader('To'), timeInput({name: 'to', value: params.to || '', 'data-test': 'filter-to'})),
    h('button', {type: 'submit', class: 'primary', 'data-test': 'filter-apply'}, 'Search'));
  const listing = h('div', {'data-test': 'message-list'});
  const detail = drawer('message-detail');
  const el = h('div', {class: 'page', 'data-test': 'page-messages'},
    h('h1', {}, 'Messages'),
    form,
    h('p', {class: 'muted', 'data-test': 'zone-note'}, `Creation times in ${zoneLabel()} (the zone chosen in the header), typed as YYYY-MM-DD HH:MM:SS; the broker looks at the last hour when From is empty.`),
    listing,
    detail.el);
  let offset = 0;

  async function showDetail(message) {
    const path = `${segment(message.partitionId)}/${segment(message.transactionId)}`;
    const [one, traces] = await Promise.all([read(`api/v1/messages/${path}`), read(`api/v1/traces/${path}`)]);
    if (one.error) {
      detail.open(sectionError(one.error));
      return;
    }
    const m = one.data;
    detail.open(
      h('h2', {'data-test': 'message-detail-title'}, `${m.queue} / ${m.partition} / ${m.transactionId}`),
      h('div', {class: 'toolbar'},
        button('Delete message…', () => confirmed({
          title: 'Delete this message?',
          body: [h('p', {}, 'Deletes the message with its dead letters and traces, and forgets its transactionId (a producer may push it again).')],
          confirmLabel: 'Delete',
          danger: true,
        }, () => api('DELETE', `api/v1/messages/${path}`), (answer) => text(pick(answer, 'message')) || 'Deleted.')
          .then((answer) => {
            if (answer) {
              detail.close();
              search();
            }
          }), {class: 'danger', 'data-test': 'message-delete'})),
      kvTable([
        ['Status', statusBadge(m.status)],
        ['Message id', text(m.id)],
        ['Partition id', text(m.partitionId)],
        [timeHeader('Created'), time(m.createdAt)],
        [timeHeader('Lease expires'), time(m.leaseExpiresAt)],
        ['Encrypted', m.isEncrypted ? 'yes' : 'no'],
        ['Trace id', text(m.traceId)],
        ['Producer', text(m.producerSub)],
        ['Error', text(m.errorMessage)],
        ['Retries', num(m.retryCount)],
        ['Consumer groups', (m.consumerGroups || []).map((g) => `${groupLabel(g.name)}: ${g.consumed ? 'consumed' : 'not yet'}`).join(', ') || '–'],
      ], 'message-fields'),
      section('Payload', h('div', {'data-test': 'message-payload'}, json(m.payload))),
      section('Traces', traces.error ? sectionError(traces.error) : traceTable(pick(traces.data, 'traces') || []),
        h('p', {}, h('a', {href: `#/traces?partitionId=${encodeURIComponent(m.partitionId)}&transactionId=${encodeURIComponent(m.transactionId)}`,
          'data-test': 'message-traces-link'}, 'Traces of this message on their own page →'))));
  }

  async function search() {
    const data = new FormData(form);
    let bounds;
    try {
      bounds = {from: isoFromWallInput(data.get('from'), 'From'), to: isoFromWallInput(data.get('to'), 'To')};
    } catch (error) {
      notifyError(error);
      return;
    }
    const answer = await read('api/v1/messages', {
      queue: data.get('queue').trim(),
      partition: data.get('partition').trim(),
      status: data.get('status'),
      ...bounds,
      // One more than a page: whether more match is known without counting them (the route has no total).
      limit: PAGE_SIZE + 1,
      offset,
    });
    if (answer.error) {
      clear(listing, sectionError(answer.error));
      return;
    }
    const all = pick(answer.data, 'messages') || [];
    const more = all.length > PAGE_SIZE;
    const rows = all.slice(0, PAGE_SIZE);
    clear(listing,
      h('p', {class: 'muted', 'data-test': 'message-count', 'data-more': String(more)}, `${matchCount(rows.length, offset, more)}; mode ${text(pick(answer.data, 'mode.type'))}`),
      table([
        {label: timeHeader('Created'), key: 'createdAt', render: (m) => time(m.createdAt)},
        {label: 'Queue', key: 'queue'},
        {label: 'Partition', key: 'partition'},
        {label: 'Transaction id', key: 'transactionId'},
        {label: 'Status', key: 'status', render: (m) => statusBadge(m.status)},
        {label: 'Groups consumed', key: 'busStatus', class: 'n', render: (m) => `${num(pick(m, 'busStatus.consumedBy'))}/${num(pick(m, 'busStatus.totalGroups'))}`},
        {label: timeHeader('Lease expires'), key: 'leaseExpiresAt', render: (m) => time(m.leaseExpiresAt)},
      ], rows, {
        onRowClick: showDetail,
        rowAttrs: (m) => ({'data-test': 'message-row', 'data-transaction': m.transactionId}),
        empty: 'No message matches.',
      }),
      h('div', {class: 'toolbar'},
        button('← newer', () => { offset = Math.max(0, offset - PAGE_SIZE); search(); }, {disabled: offset === 0 ? true : null}),
        button('older →', () => { offset += PAGE_SIZE; search(); }, {disabled: more ? null : true})));
  }

  form.addEventListener('submit', (event) => {
    event.preventDefault();
    offset = 0;
    detail.close();
    search();
  });

  return {el, poll: false, refresh: search};
}
