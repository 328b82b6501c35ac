// Traces: the trace names in use, the traces recorded under one name (across messages), and the traces of
// one message. Each read is bounded by a page (names 50, traces 100) and runs when asked.
import {read, segment} from './api.js';
import {button, h, clear, groupLabel, num, pick, section, table, text, time, timeHeader} from './dom.js';
import {sectionError} from './ui.js';

const NAMES_PAGE = 50;
const TRACES_PAGE = 100;

function messageLink(t) {
  if (!t.partition_id || !t.transaction_id) return text(t.transaction_id);
  return h('a', {href: `#/traces?partitionId=${encodeURIComponent(t.partition_id)}&transactionId=${encodeURIComponent(t.transaction_id)}`,
    'data-test': 'trace-message-link'}, t.transaction_id);
}

// The traces table of the message detail and of this page; withMessage adds the message's queue, partition
// and transaction id (traces by name span messages).
export function traceTable(traces, withMessage = false) {
  return table([
    {label: timeHeader('At'), key: 'created_at', render: (t) => time(t.created_at)},
    withMessage ? {label: 'Queue', key: 'queue_name', render: (t) => (t.queue_name ? h('a', {href: `#/queues/${encodeURIComponent(t.queue_name)}`}, t.queue_name) : text(t.queue_name))} : null,
    withMessage ? {label: 'Partition', key: 'partition_name'} : null,
    withMessage ? {label: 'Transaction id', key: 'transaction_id', render: messageLink} : null,
    {label: 'Event', key: 'event_type'},
    {label: 'Group', key: 'consumer_group', render: (t) => groupLabel(t.consumer_group)},
    {label: 'Names', key: 'trace_names', render: (t) => (t.trace_names || []).join(', ')},
    {label: 'Data', key: 'data', class: 'clip', render: (t) => text(t.data)},
  ].filter(Boolean), traces, {rowAttrs: () => ({'data-test': 'trace-row'}), empty: 'No traces.'});
}

export function create(params) {
  const names = h('div', {'data-test': 'trace-names'});
  const byName = h('div', {'data-test': 'traces-by-name'});
  const ofMessage = h('div', {'data-test': 'traces-of-message'});
  const nameInput = h('input', {name: 'name', value: params.name || '', placeholder: 'trace name', 'data-test': 'trace-name-input'});
  const partitionInput = h('input', {name: 'partitionId', value: params.partitionId || '', placeholder: 'partition id', size: 36, 'data-test': 'trace-partition-input'});
  const transactionInput = h('input', {name: 'transactionId', value: params.transactionId || '', placeholder: 'transaction id', size: 36, 'data-test': 'trace-transaction-input'});
  const nameForm = h('form', {class: 'filters'}, h('label', {}, 'Trace name ', nameInput),
    h('button', {type: 'submit', class: 'primary', 'data-test': 'trace-name-apply'}, 'Show traces'));
  const messageForm = h('form', {class: 'filters'}, h('label', {}, 'Partition id ', partitionInput),
    h('label', {}, 'Transaction id ', transactionInput),
    h('button', {type: 'submit', class: 'primary', 'data-test': 'trace-message-apply'}, 'Show traces'));
  const el = h('div', {class: 'page', 'data-test': 'page-traces'},
    h('h1', {}, 'Traces'),
    h('p', {class: 'muted'}, 'Traces are events consumers record about a message (POST /api/v1/traces), optionally under names that group them across messages.'),
    h('div', {class: 'columns'},
      section('Trace names in use', names),
      section('Traces of one message', messageForm, ofMessage)),
    section('Traces by name', nameForm, byName));
  let nameOffset = 0;

  function go(next) {
    const search = new URLSearchParams(Object.entries(next).filter(([, v]) => v));
    const hash = `#/traces${search.toString() ? `?${search}` : ''}`;
    if (location.hash === hash) {
      nameOffset = 0;
      refresh();
    } else {
      location.hash = hash;
    }
  }

  async function loadNames() {
    const answer = await read('api/v1/traces/names', {limit: NAMES_PAGE});
    if (answer.error) {
      clear(names, sectionError(answer.error));
      return;
    }
    const rows = pick(answer.data, 'trace_names') || [];
    clear(names, table([
      {label: 'Name', key: 'trace_name', render: (r) => h('a', {href: `#/traces?name=${encodeURIComponent(r.trace_name)}`, 'data-test': 'trace-name-link'}, r.trace_name)},
      {label: 'Traces', key: 'trace_count', class: 'n', render: (r) => num(r.trace_count)},
      {label: 'Messages', key: 'message_count', class: 'n', render: (r) => num(r.message_count)},
      {label: timeHeader('Last seen'), key: 'last_seen', render: (r) => time(r.last_seen)},
    ], rows, {rowAttrs: (r) => ({'data-test': 'trace-name-row', 'data-name': r.trace_name}), empty: 'No trace has a name yet.'}),
    pick(answer.data, 'total') > rows.length ? h('p', {class: 'muted'}, `The ${rows.length} most recently used of ${num(pick(answer.data, 'total'))}.`) : null);
  }

  async function loadByName() {
    const name = nameInput.value.trim();
    if (!name) {
      clear(byName, h('p', {class: 'muted'}, 'Pick a name in the list or type one.'));
      return;
    }
    const answer = await read(`api/v1/traces/by-name/${segment(name)}`, {limit: TRACES_PAGE, offset: nameOffset});
    if (answer.error) {
      clear(byName, sectionError(answer.error));
      return;
    }
    const rows = pick(answer.data, 'traces') || [];
    const total = pick(answer.data, 'total');
    clear(byName,
      h('p', {class: 'muted', 'data-test': 'traces-by-name-count'}, `${num(total)} traces named ${name}, newest first${nameOffset ? `, from #${nameOffset + 1}` : ''}.`),
      traceTable(rows, true),
      h('div', {class: 'toolbar'},
        button('← newer', () => { nameOffset = Math.max(0, nameOffset - TRACES_PAGE); loadByName(); }, {disabled: nameOffset === 0 ? true : null}),
        button('older →', () => { nameOffset += TRACES_PAGE; loadByName(); }, {disabled: nameOffset + rows.length >= (total || 0) ? true : null})));
  }

  async function loadOfMessage() {
    const partitionId = partitionInput.value.trim();
    const transactionId = transactionInput.value.trim();
    if (!partitionId || !transactionId) {
      clear(ofMessage, h('p', {class: 'muted'}, 'A message is named by its partition id and transaction id (both on its detail in Messages).'));
      return;
    }
    const answer = await read(`api/v1/traces/${segment(partitionId)}/${segment(transactionId)}`);
    clear(ofMessage, answer.error ? sectionError(answer.error) : [
      h('p', {class: 'muted', 'data-test': 'traces-of-message-title'}, `Message ${transactionId}, oldest trace first.`),
      traceTable(pick(answer.data, 'traces') || []),
    ]);
  }

  nameForm.addEventListener('submit', (event) => {
    event.preventDefault();
    go({name: nameInput.value.trim(), partitionId: partitionInput.value.trim(), transactionId: transactionInput.value.trim()});
  });
  messageForm.addEventListener('submit', (event) => {
    event.preventDefault();
    go({name: nameInput.value.trim(), partitionId: partitionInput.value.trim(), transactionId: transactionInput.value.trim()});
  });

  async function refresh() {
    await Promise.all([loadNames(), loadByName(), loadOfMessage()]);
  }

  return {el, poll: false, refresh};
}
