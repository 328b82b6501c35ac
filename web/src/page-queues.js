// Queues: every queue of the tenant with its counters (from the statistics), searchable and sortable.
import {read} from './api.js';
import {h, clear, num, pick, sortBy, sortRows, table, text, time} from './dom.js';
import {sectionError} from './ui.js';

const LIST_LIMIT = 1000;

export function create(params) {
  const sortState = {key: params.sort || 'name', desc: params.desc === '1'};
  let rows = [];
  let lastSeen = null;
  let search = params.search || '';
  const searchInput = h('input', {type: 'search', placeholder: 'search queue names', value: search, 'data-test': 'queue-search'});
  const summary = h('p', {class: 'muted', 'data-test': 'queue-count'});
  const listing = h('div', {'data-test': 'queue-list'});
  const el = h('div', {class: 'page', 'data-test': 'page-queues'},
    h('h1', {}, 'Queues'),
    h('div', {class: 'toolbar'}, searchInput, summary),
    listing);

  function render() {
    const needle = search.toLowerCase();
    const shown = sortRows(rows.filter((row) => !needle || String(row.name).toLowerCase().includes(needle)), sortState);
    summary.textContent = `${shown.length} of ${rows.length} queues`;
    clear(listing, table([
      {label: 'Queue', key: 'name', render: (row) => h('a', {href: `#/queues/${encodeURIComponent(row.name)}`, 'data-test': 'queue-link'}, row.name)},
      {label: 'Namespace', key: 'namespace'},
      {label: 'Task', key: 'task'},
      {label: 'Partitions', key: 'partitions', class: 'n', render: (row) => num(row.partitions)},
      {label: 'Messages', key: 'messages.total', class: 'n', render: (row) => num(pick(row, 'messages.total'))},
      {label: 'Pending', key: 'messages.pending', class: 'n', render: (row) => num(pick(row, 'messages.pending'))},
      {label: 'Processing', key: 'messages.processing', class: 'n', render: (row) => num(pick(row, 'messages.processing'))},
      {label: 'Created', key: 'createdAt', render: (row) => time(row.createdAt)},
    ], shown, {
      sortState,
      onSort: sortBy(sortState, render),
      rowAttrs: (row) => ({'data-test': 'queue-row', 'data-queue': text(row.name)}),
      empty: rows.length ? 'No queue matches.' : 'No queues yet.',
    }));
  }

  searchInput.addEventListener('input', () => {
    search = searchInput.value.trim();
    render();
  });

  async function refresh() {
    const answer = await read('api/v1/resources/queues', {limit: LIST_LIMIT});
    if (answer.error) {
      clear(listing, sectionError(answer.error));
      return;
    }
    rows = pick(answer.data, 'queues') || [];
    // Re-render only on a change, so a poll does not replace rows under the user's pointer.
    const seen = JSON.stringify(rows);
    if (seen === lastSeen) return;
    lastSeen = seen;
    render();
  }

  return {el, poll: true, refresh};
}
