// KV store: the keys the user looked up, each re-read on every refresh (value, expiry, time left), and a key's
// value in the side panel. The broker has no route that lists keys (only GET /api/v1/kv/:key reads one), so
// the list is the keys looked up in this browser (kept in localStorage, at most WATCHED_MAX).
import {read, segment} from './api.js';
import {button, h, clear, json, kvTable, naturalCompare, num, pick, seconds, section, sortBy, sortRows, table, text, time,
  timeHeader} from './dom.js';
import {drawer, sectionError} from './ui.js';

const WATCHED_KEY = 'queen.dashboard.kvKeys';
const WATCHED_MAX = 20;

function watched() {
  try {
    const keys = JSON.parse(localStorage.getItem(WATCHED_KEY) || '[]');
    return Array.isArray(keys) ? keys.filter((k) => typeof k === 'string') : [];
  } catch {
    return [];
  }
}

function setWatched(keys) {
  localStorage.setItem(WATCHED_KEY, JSON.stringify(keys.slice(0, WATCHED_MAX)));
}

// One watched key as a row: state present, absent (404: never set, deleted or expired) or the read's error.
async function readKey(key) {
  const answer = await read(`api/v1/kv/${segment(key)}`);
  if (answer.error && answer.error.status === 404) return {key, state: 'absent'};
  if (answer.error) return {key, state: 'error', error: answer.error};
  const expiresAt = pick(answer.data, 'expiresAt') || null;
  const value = answer.data.value;
  return {key, state: 'present', value, expiresAt,
    ttlSeconds: expiresAt ? Math.max(0, (Date.parse(expiresAt) - Date.now()) / 1000) : null,
    size: new TextEncoder().encode(JSON.stringify(value)).length};
}

function stateLabel(row) {
  if (row.state === 'present') return 'present';
  if (row.state === 'absent') return 'absent';
  return row.error.describe();
}

export function create(params) {
  const sortState = {key: 'key', desc: false};
  const keyInput = h('input', {name: 'key', value: params.key || '', placeholder: 'key', size: 32, 'data-test': 'kv-key-input'});
  const form = h('form', {class: 'filters'}, h('label', {}, 'Key ', keyInput),
    h('button', {type: 'submit', class: 'primary', 'data-test': 'kv-lookup'}, 'Look up'));
  const listing = h('div', {'data-test': 'kv-list'});
  const detail = drawer('kv-detail');
  const el = h('div', {class: 'page', 'data-test': 'page-kv'},
    h('h1', {}, 'KV store'),
    h('p', {class: 'muted'}, 'A JSON value per key, per tenant, with an optional time to live (PUT /api/v1/kv/:key). '
      + 'The broker reads one key at a time and lists none: the keys you look up stay listed here, in this browser, and are re-read on every refresh.'),
    form,
    section('Keys looked up', listing),
    detail.el);
  let rows = [];

  function inspect(row) {
    detail.open(
      h('h2', {'data-test': 'kv-detail-title'}, row.key),
      h('div', {class: 'toolbar'}, button('Stop listing', () => { forget(row.key); detail.close(); }, {'data-test': 'kv-forget'})),
      kvTable([
        ['State', stateLabel(row)],
        [timeHeader('Expires at'), row.state === 'present' ? (row.expiresAt ? time(row.expiresAt) : 'never') : text(null)],
        ['Time left', seconds(row.ttlSeconds)],
        ['Value size', row.size === undefined ? text(null) : `${num(row.size)} B`],
      ], 'kv-fields'),
      section('Value', h('div', {'data-test': 'kv-value'}, row.state === 'present' ? json(row.value) : text(null))));
  }

  function forget(key) {
    setWatched(watched().filter((k) => k !== key));
    refresh();
  }

  function render() {
    clear(listing, table([
      {label: 'Key', key: 'key'},
      {label: 'State', key: 'state', render: stateLabel},
      {label: timeHeader('Expires at'), key: 'expiresAt', render: (r) => (r.state === 'present' && !r.expiresAt ? 'never' : time(r.expiresAt))},
      {label: 'Time left', key: 'ttlSeconds', class: 'n', render: (r) => seconds(r.ttlSeconds)},
      {label: 'Size (bytes)', key: 'size', class: 'n', render: (r) => num(r.size)},
      {label: 'Value', key: 'value', class: 'clip', sort: false, render: (r) => (r.state === 'present' ? JSON.stringify(r.value) : text(null))},
    ], sortRows(rows, sortState), {
      sortState,
      onSort: sortBy(sortState, render),
      onRowClick: inspect,
      rowAttrs: (r) => ({'data-test': 'kv-row', 'data-key': r.key, 'data-state': r.state}),
      empty: 'No key looked up yet: type one above.',
    }));
  }

  form.addEventListener('submit', async (event) => {
    event.preventDefault();
    const key = keyInput.value.trim();
    if (!key) return;
    setWatched([key, ...watched().filter((k) => k !== key)]);
    await refresh();
    const row = rows.find((r) => r.key === key);
    if (row) inspect(row);
  });

  async function refresh() {
    const keys = watched().sort(naturalCompare);
    rows = await Promise.all(keys.map(readKey));
    const denied = rows.find((r) => r.state === 'error' && (r.error.status === 401 || r.error.status === 403));
    if (denied) {
      clear(listing, sectionError(denied.error));
      return;
    }
    render();
  }

  return {el, poll: true, refresh};
}
