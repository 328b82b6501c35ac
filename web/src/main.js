// The dashboard shell: navigation (hash routes), the time zone, the token form, the outage banner and the
// refresh loop. Each page module exports create(params) -> {el, refresh(), destroy?(), poll}; pages with
// poll: true re-read their statistics every POLL_INTERVAL_MS while the tab is visible, and never two reads
// at once. The outage banner reads /health on the same beat on every page.
import {setToken, token, tokenClaims} from './api.js';
import {h, clear, setTimeZone, timeZone, timeZoneChoice, zoneOffset} from './dom.js';
import {notifyError} from './ui.js';
import {checkOutage} from './outage.js';
import * as overview from './page-overview.js';
import * as queues from './page-queues.js';
import * as queueDetail from './page-queue.js';
import * as groups from './page-groups.js';
import * as messages from './page-messages.js';
import * as deadLetters from './page-dlq.js';
import * as system from './page-system.js';
import * as traces from './page-traces.js';
import * as analytics from './page-analytics.js';
import * as kv from './page-kv.js';
import * as timers from './page-timers.js';

const POLL_INTERVAL_MS = 5000;

const NAV = [
  ['overview', 'Overview'],
  ['queues', 'Queues'],
  ['groups', 'Consumer groups'],
  ['messages', 'Messages'],
  ['dlq', 'Dead letters'],
  ['traces', 'Traces'],
  ['analytics', 'Analytics'],
  ['kv', 'KV'],
  ['timers', 'Timers'],
  ['system', 'Spool & maintenance'],
];

// '#/queues/orders?x=1' -> {name: 'queue', page: queueDetail, params: {queue: 'orders', x: '1'}}
function route() {
  const [path, search] = location.hash.replace(/^#\/?/, '').split('?');
  const params = Object.fromEntries(new URLSearchParams(search || ''));
  const parts = path.split('/').filter(Boolean).map(decodeURIComponent);
  switch (parts[0]) {
    case 'queues':
      return parts.length > 1 ? {name: 'queues', page: queueDetail, params: {...params, queue: parts[1]}}
        : {name: 'queues', page: queues, params};
    case 'groups': return {name: 'groups', page: groups, params};
    case 'messages': return {name: 'messages', page: messages, params};
    case 'dlq': return {name: 'dlq', page: deadLetters, params};
    case 'system': return {name: 'system', page: system, params};
    case 'traces': return {name: 'traces', page: traces, params};
    case 'analytics': return {name: 'analytics', page: analytics, params};
    case 'kv': return {name: 'kv', page: kv, params};
    case 'timers': return {name: 'timers', page: timers, params};
    default: return {name: 'overview', page: overview, params};
  }
}

let current = null;
let refreshing = false;

async function refresh() {
  if (!current || refreshing) return;
  refreshing = true;
  document.body.dataset.refreshing = 'true';
  const page = current;
  try {
    await page.refresh();
    page.el.dataset.refreshes = String(Number(page.el.dataset.refreshes || 0) + 1);
    page.el.dataset.loaded = 'true';
  } catch (error) {
    notifyError(error);
  } finally {
    refreshing = false;
    delete document.body.dataset.refreshing;
  }
}

function show() {
  const {name, page, params} = route();
  if (current && current.destroy) current.destroy();
  current = page.create(params);
  current.el.dataset.page = name;
  document.body.dataset.page = name;
  for (const link of document.querySelectorAll('nav a')) link.classList.toggle('active', link.dataset.nav === name);
  clear(document.getElementById('page'), current.el);
  document.getElementById('banner').hidden = true;
  refreshing = false;
  refresh();
}

function tokenLabel() {
  if (!token()) return 'No token';
  const claims = tokenClaims();
  const role = claims && (claims.role || (Array.isArray(claims.roles) ? claims.roles.join(',') : claims.roles));
  const who = claims && (claims.sub || claims.tenant || claims.tenantId);
  return `Token: ${[who, role].filter(Boolean).join(' · ') || 'set'}`;
}

function tokenForm() {
  const input = h('input', {type: 'password', name: 'token', placeholder: 'JWT (Authorization: Bearer)', autocomplete: 'off', 'data-test': 'token-input'});
  const remember = h('input', {type: 'checkbox', name: 'remember', 'data-test': 'token-remember'});
  const status = h('button', {type: 'button', class: 'token-status', 'data-test': 'token-status'}, tokenLabel());
  const form = h('form', {class: 'token-form', hidden: true, 'data-test': 'token-form'},
    input,
    h('label', {}, remember, ' remember in this browser'),
    h('button', {type: 'submit', class: 'primary', 'data-test': 'token-save'}, 'Use token'),
    h('button', {type: 'button', 'data-test': 'token-clear', onclick: () => save('')}, 'Clear'));
  function save(value) {
    setToken(value.trim(), remember.checked);
    input.value = '';
    form.hidden = true;
    status.textContent = tokenLabel();
    show();
  }
  form.addEventListener('submit', (event) => {
    event.preventDefault();
    save(input.value);
  });
  status.addEventListener('click', () => {
    form.hidden = !form.hidden;
    if (!form.hidden) input.focus();
  });
  return h('div', {class: 'token'}, status, form);
}

// The one time zone of every time shown and typed: UTC, the browser's, or any the browser knows.
function zoneForm() {
  const local = Intl.DateTimeFormat().resolvedOptions().timeZone;
  const zones = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];
  const choice = timeZoneChoice();
  const select = h('select', {'data-test': 'zone-select', 'aria-label': 'time zone'},
    h('option', {value: 'UTC'}, 'UTC'),
    h('option', {value: 'local'}, `browser (${local})`),
    zones.filter((zone) => zone !== 'UTC').map((zone) => h('option', {value: zone}, zone)));
  select.value = choice;
  if (select.value !== choice) select.value = 'UTC';
  // Beside the zone's name, its offset from UTC ('UTC+9'); nothing for UTC itself, which the select names.
  const shown = h('span', {'data-test': 'zone-offset'});
  const showOffset = () => {
    shown.textContent = zoneOffset();
    shown.hidden = !shown.textContent;
    shown.parentElement?.setAttribute('data-zone', timeZone());
  };
  select.addEventListener('change', () => {
    setTimeZone(select.value);
    showOffset();
    show();
  });
  const label = h('label', {class: 'zone', 'data-test': 'zone-label', title: 'Every time on the dashboard is shown and typed in this zone'},
    'Times in ', select, shown);
  showOffset();
  return label;
}

function layout() {
  const nav = h('nav', {}, NAV.map(([name, label]) => h('a', {href: `#/${name}`, 'data-nav': name}, label)));
  document.body.replaceChildren(
    h('header', {class: 'top'}, h('a', {class: 'brand', href: '#/overview'}, 'Queen'), nav,
      h('div', {class: 'tools'}, zoneForm(), tokenForm())),
    h('div', {id: 'outage', class: 'outage', role: 'alert', hidden: true, 'data-test': 'outage', 'data-state': 'unknown'}),
    h('div', {id: 'banner', class: 'banner', role: 'status', hidden: true}),
    h('main', {id: 'page'}));
}

let checkingOutage = false;

async function outage() {
  if (checkingOutage) return;
  checkingOutage = true;
  try {
    await checkOutage(document.getElementById('outage'));
  } finally {
    checkingOutage = false;
  }
}

layout();
window.addEventListener('hashchange', show);
document.addEventListener('visibilitychange', () => {
  if (document.visibilityState !== 'visible') return;
  outage();
  if (current && current.poll) refresh();
});
setInterval(() => {
  if (document.visibilityState !== 'visible') return;
  outage();
  if (current && current.poll) refresh();
}, POLL_INTERVAL_MS);
show();
outage();
