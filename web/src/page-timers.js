// Timers: what this broker's sweeper did since it started (passes, timers claimed and fired, expired KV rows
// pruned, failures) and since the page opened, from GET /api/v1/system/shared-state (operator). The broker has no
// route that lists pending timers (they are rows of queen.timers until they fire), so none is shown.
import {read} from './api.js';
import {h, clear, kvTable, num, pick, section, sortBy, sortRows, table, text, time, timeHeader, zoneLabel} from './dom.js';
import {drawer, sectionError} from './ui.js';

const COUNTERS = [
  ['passes', 'Sweeper passes', null, 'Times the sweeper woke and asked the database for due timers and expired keys.'],
  ['timers_claimed', 'Timers claimed', null, 'Due timers this broker claimed (a claim is a lease: another broker takes the timer over when it expires).'],
  ['timers_fired', 'Timers fired', 'queen_sweeper_timers_fired_total', 'Timers this broker turned into messages (a fire the queue refuses counts as a failure and is retried).'],
  ['kv_pruned', 'KV rows pruned', 'queen_sweeper_kv_pruned_total', 'Expired KV rows deleted (an expired key already reads as absent before its row is pruned).'],
  ['failures', 'Failures', 'queen_sweeper_failures_total', 'Sweeper passes that failed (the database unreachable, a fire that raised).'],
];

export function create() {
  const sortState = {key: null, desc: false};
  const summary = h('p', {class: 'muted', 'data-test': 'timers-summary'});
  const listing = h('div', {'data-test': 'timer-list'});
  const detail = drawer('timer-detail');
  const el = h('div', {class: 'page', 'data-test': 'page-timers'},
    h('h1', {}, 'Timers'),
    h('p', {class: 'muted'}, 'A push item with deliverAt is a timer: it becomes a message at or after that time, fired by the sweeper of whichever broker claims it first. '
      + 'The broker has no route that lists the timers still pending; this page shows what this broker\'s sweeper did.'),
    section('This broker\'s sweeper', summary, listing),
    detail.el);
  let first = null;
  let rows = [];
  let readAt = null;
  let broker = null;

  function inspect(row) {
    detail.open(
      h('h2', {'data-test': 'timer-detail-title'}, row.label),
      h('p', {}, row.meaning),
      kvTable([
        ['Since the broker started', num(row.total)],
        ['Since this page opened', num(row.sincePageOpened)],
        ['Broker', text(broker)],
        [timeHeader('Read at'), time(readAt)],
        ['Field of GET /api/v1/system/shared-state', `sweeper.${row.counter}`],
        ['Prometheus series', text(row.series)],
      ], 'timer-fields'));
  }

  function render() {
    clear(listing, table([
      {label: 'Counter', key: 'label'},
      {label: 'Since the broker started', key: 'total', class: 'n', render: (r) => num(r.total)},
      {label: 'Since this page opened', key: 'sincePageOpened', class: 'n', render: (r) => num(r.sincePageOpened)},
      {label: 'Prometheus series', key: 'series', render: (r) => text(r.series)},
    ], sortRows(rows, sortState), {
      sortState,
      onSort: sortBy(sortState, render),
      onRowClick: inspect,
      rowAttrs: (r) => ({'data-test': 'timer-row', 'data-counter': r.counter}),
      empty: 'This broker reports no sweeper.',
    }));
  }

  async function refresh() {
    const answer = await read('api/v1/system/shared-state');
    if (answer.error) {
      clear(summary);
      clear(listing, sectionError(answer.error));
      return;
    }
    const sweeper = pick(answer.data, 'sweeper') || {};
    if (!first) first = sweeper;
    readAt = Date.now();
    broker = pick(answer.data, 'server_id');
    rows = COUNTERS.filter(([counter]) => sweeper[counter] !== undefined).map(([counter, label, series, meaning]) => ({
      counter, label, series, meaning, total: sweeper[counter], sincePageOpened: sweeper[counter] - (first[counter] || 0)}));
    summary.textContent = Number(sweeper.timers_fired) > 0
      ? `Broker ${text(broker)} fired ${num(sweeper.timers_fired)} timer${Number(sweeper.timers_fired) === 1 ? '' : 's'} since it started; read at ${time(readAt)} (${zoneLabel()}).`
      : `Broker ${text(broker)} has fired no timer since it started (another broker of the cell may have); read at ${time(readAt)} (${zoneLabel()}).`;
    render();
  }

  return {el, poll: true, refresh};
}
