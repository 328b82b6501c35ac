// DOM building and formatting shared by the pages. Text always goes in as text (never as HTML), so
// queue names, payloads and error messages cannot inject markup.

export const DASH = '–';

// h('div', {class: 'x', 'data-test': 'y', onclick: fn}, child, 'text', [more children])
export function h(tag, attrs, ...children) {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'value') el.value = value;
    else if (name === 'checked') el.checked = Boolean(value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  append(el, children);
  return el;
}

function append(el, children) {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
}

export function clear(el, ...children) {
  el.replaceChildren();
  append(el, children);
  return el;
}

// The first of several dotted paths that is present: pick(body, 'messages.pending', 'pending').
export function pick(obj, ...paths) {
  for (const path of paths) {
    let value = obj;
    for (const key of path.split('.')) {
      if (value === null || value === undefined || typeof value !== 'object') { value = undefined; break; }
      value = value[key];
    }
    if (value !== undefined && value !== null) return value;
  }
  return undefined;
}

export function isNumber(value) {
  return typeof value === 'number' && Number.isFinite(value);
}

export function num(value, digits = 0) {
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) value = Number(value);
  if (!isNumber(value)) return DASH;
  return value.toLocaleString('en-US', {maximumFractionDigits: digits});
}

export function text(value) {
  if (value === undefined || value === null || value === '') return DASH;
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

// Queue mode's consumer group: the API names it __QUEUE_MODE__, every page shows it as 'queue mode'.
export const QUEUE_MODE_GROUP = '__QUEUE_MODE__';
export const QUEUE_MODE_LABEL = 'queue mode';

export function groupLabel(name) {
  return name === QUEUE_MODE_GROUP ? QUEUE_MODE_LABEL : text(name);
}

// What a user typed for a group (a filter) as the API names it: 'queue mode' is queue mode's group.
export function groupName(typed) {
  return typed.trim().toLowerCase() === QUEUE_MODE_LABEL ? QUEUE_MODE_GROUP : typed.trim();
}

export function bool(value, yes = 'on', no = 'off') {
  if (value === true) return yes;
  if (value === false) return no;
  return DASH;
}

// A duration in milliseconds with the digits that matter: '0.42 ms' (a local database ping is well under a
// millisecond, which rounding to whole ones would show as 0), '3.5 ms', '120 ms'.
export function milliseconds(value) {
  if (typeof value === 'string' && value.trim() !== '') value = Number(value);
  if (!isNumber(value)) return DASH;
  if (value === 0) return '0 ms';
  if (value < 0.01) return '<0.01 ms';
  return `${num(value, value < 1 ? 2 : value < 10 ? 1 : 0)} ms`;
}

export function seconds(value) {
  if (typeof value === 'string' && value.trim() !== '') value = Number(value);
  if (!isNumber(value)) return DASH;
  if (value < 1) return milliseconds(value * 1000);
  if (value < 120) return `${value.toFixed(value < 10 ? 1 : 0)} s`;
  if (value < 7200) return `${Math.round(value / 60)} min`;
  if (value < 172800) return `${(value / 3600).toFixed(1)} h`;
  return `${(value / 86400).toFixed(1)} d`;
}

export function bytes(value) {
  if (!isNumber(value)) return DASH;
  const units = ['B', 'KiB', 'MiB', 'GiB'];
  let i = 0;
  while (value >= 1024 && i < units.length - 1) { value /= 1024; i++; }
  return `${value.toFixed(i === 0 ? 0 : 1)} ${units[i]}`;
}

// The time zone every time on the dashboard is shown and typed in: chosen by the user in the header (kept in
// localStorage), UTC until they choose. 'local' is the browser's own zone.
const ZONE_KEY = 'queen.dashboard.timeZone';

export function timeZone() {
  const chosen = localStorage.getItem(ZONE_KEY) || 'UTC';
  return chosen === 'local' ? Intl.DateTimeFormat().resolvedOptions().timeZone : chosen;
}

export function timeZoneChoice() {
  return localStorage.getItem(ZONE_KEY) || 'UTC';
}

export function setTimeZone(choice) {
  localStorage.setItem(ZONE_KEY, choice);
}

const wallFormats = new Map();

// The wall-clock fields of instant `ms` in the zone: {year, month, day, hour, minute, second}.
function wallTime(ms, zone) {
  if (!wallFormats.has(zone)) {
    wallFormats.set(zone, new Intl.DateTimeFormat('en-US', {
      timeZone: zone, hourCycle: 'h23', year: 'numeric', month: '2-digit', day: '2-digit',
      hour: '2-digit', minute: '2-digit', second: '2-digit',
    }));
  }
  const parts = Object.fromEntries(wallFormats.get(zone).formatToParts(new Date(ms)).map((p) => [p.type, p.value]));
  return {year: +parts.year, month: +parts.month, day: +parts.day, hour: +parts.hour % 24, minute: +parts.minute, second: +parts.second};
}

// 'YYYY-MM-DD HH:MM:SS' of instant `ms` in the chosen zone (24-hour, the form the filter inputs take).
export function wallText(ms, zone = timeZone()) {
  const w = wallTime(ms, zone);
  const pad = (n, width = 2) => String(n).padStart(width, '0');
  return `${pad(w.year, 4)}-${pad(w.month)}-${pad(w.day)} ${pad(w.hour)}:${pad(w.minute)}:${pad(w.second)}`;
}

// The instant (epoch ms) of wall time 'YYYY-MM-DD HH:MM[:SS]' in the zone; undefined when it does not parse.
export function instantOfWallText(value, zone = timeZone()) {
  const match = /^\s*(\d{4})-(\d{2})-(\d{2})[ T](\d{2}):(\d{2})(?::(\d{2}))?\s*$/.exec(value || '');
  if (!match) return undefined;
  const [, y, mo, d, hh, mm, ss] = match.map(Number);
  const asUtc = Date.UTC(y, mo - 1, d, hh, mm, ss || 0);
  if (Number.isNaN(asUtc)) return undefined;
  // The zone's offset at that wall time: try the offset of the naive guess, then of the corrected instant
  // (they differ only across a daylight-saving change).
  const offsetAt = (ms) => {
    const w = wallTime(ms, zone);
    return Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(ms / 1000) * 1000;
  };
  let instant = asUtc - offsetAt(asUtc);
  instant = asUtc - offsetAt(instant);
  return instant;
}

// A label for the zone: 'UTC', or the zone's name with its current offset ('Asia/Tokyo, UTC+9').
export function zoneLabel(zone = timeZone()) {
  if (zone === 'UTC' || zone === 'Etc/UTC') return 'UTC';
  return `${zone}, ${zoneOffset(zone)}`;
}

// The zone's current offset from UTC ('UTC+9', 'UTC-3:30'), '' for UTC itself.
export function zoneOffset(zone = timeZone()) {
  if (zone === 'UTC' || zone === 'Etc/UTC') return '';
  const now = Date.now();
  const w = wallTime(now, zone);
  const minutes = Math.round((Date.UTC(w.year, w.month - 1, w.day, w.hour, w.minute, w.second) - Math.floor(now / 1000) * 1000) / 60000);
  const sign = minutes < 0 ? '-' : '+';
  const abs = Math.abs(minutes);
  return `UTC${sign}${Math.floor(abs / 60)}${abs % 60 ? `:${String(abs % 60).padStart(2, '0')}` : ''}`;
}

export function time(value) {
  if (!value) return DASH;
  const ms = typeof value === 'number' ? value : Date.parse(value);
  if (Number.isNaN(ms)) return text(value);
  return wallText(ms);
}

// A column header for times: 'Created (UTC)'.
export function timeHeader(label) {
  const zone = timeZone();
  return `${label} (${zone === 'UTC' || zone === 'Etc/UTC' ? 'UTC' : zone})`;
}

// A card with a big number: stat('Pending', num(x), 'stat-pending').
export function stat(label, value, test, hint) {
  return h('div', {class: 'stat', 'data-test': test},
    h('div', {class: 'stat-label'}, label),
    h('div', {class: typeof value === 'string' && value.length > 10 ? 'stat-value words' : 'stat-value', 'data-test': test && `${test}-value`}, value),
    hint ? h('div', {class: 'stat-hint'}, hint) : null);
}

export function section(title, ...children) {
  return h('section', {class: 'panel'}, h('h2', {}, title), ...children);
}

// table([{label, key?, render?, sort?}], rows, {rowAttrs?(row), onRowClick?, sortState?, onSort?, empty?})
export function table(columns, rows, options = {}) {
  const head = h('tr', {}, columns.map((column) => {
    const sortable = options.onSort && column.sort !== false && column.key;
    const state = options.sortState || {};
    const arrow = state.key === column.key ? (state.desc ? ' ▼' : ' ▲') : '';
    return h('th', {
      class: [column.class, sortable ? 'sortable' : null].filter(Boolean).join(' ') || null,
      'data-sort': sortable ? column.key : null,
      onclick: sortable ? () => options.onSort(column.key) : null,
    }, column.label + arrow);
  }));
  const body = rows.length === 0
    ? [h('tr', {}, h('td', {colspan: columns.length, class: 'empty'}, options.empty || 'Nothing here.'))]
    : rows.map((row) => h('tr', {
      ...(options.rowAttrs ? options.rowAttrs(row) : {}),
      class: options.onRowClick ? 'clickable' : null,
      onclick: options.onRowClick ? (event) => {
        if (event.target.closest('button, a, input')) return;
        options.onRowClick(row);
      } : null,
    }, columns.map((column) => h('td', {class: column.class},
      column.render ? column.render(row) : text(pick(row, column.key))))));
  // Wide tables scroll sideways inside their box instead of widening the page (narrow windows).
  return h('div', {class: 'table-scroll'}, h('table', {class: 'grid'}, h('thead', {}, head), h('tbody', {}, body)));
}

// Natural order: acct-2 before acct-10, case-insensitive.
const natural = new Intl.Collator('en', {numeric: true, sensitivity: 'base'});

export function naturalCompare(a, b) {
  return natural.compare(String(a), String(b));
}

export function sortRows(rows, state) {
  if (!state || !state.key) return rows;
  const sign = state.desc ? -1 : 1;
  return [...rows].sort((a, b) => {
    const x = pick(a, state.key);
    const y = pick(b, state.key);
    if (x === y) return 0;
    if (x === undefined || x === null) return 1;
    if (y === undefined || y === null) return -1;
    if (typeof x === 'number' && typeof y === 'number') return sign * (x - y);
    return sign * naturalCompare(x, y);
  });
}

// A table's onSort for rows ordered by sortRows(rows, state): a click on a column sorts by it (descending first
// when firstDesc), a second click on it reverses; then render() draws the rows again.
export function sortBy(state, render, firstDesc = false) {
  return (key) => {
    state.desc = state.key === key ? !state.desc : firstDesc;
    state.key = key;
    render();
  };
}

export function kvTable(entries, test) {
  return h('table', {class: 'kv', 'data-test': test},
    h('tbody', {}, entries.map(([key, value]) => h('tr', {}, h('th', {}, key), h('td', {}, value)))));
}

export function json(value) {
  return h('pre', {class: 'json'}, value === undefined ? DASH : JSON.stringify(value, null, 2));
}

export function badge(label, kind) {
  return h('span', {class: `badge ${kind || ''}`}, label);
}

export function button(label, onclick, attrs = {}) {
  return h('button', {type: 'button', ...attrs, onclick}, label);
}

// A time typed in a filter ('YYYY-MM-DD HH:MM[:SS]' in the chosen zone) as ISO 8601 UTC, or undefined when
// empty. A text that does not parse throws, so a search never silently drops a bound.
export function isoFromWallInput(value, what = 'time') {
  if (!value || !value.trim()) return undefined;
  const ms = instantOfWallText(value);
  if (ms === undefined) throw new Error(`${what}: write it as YYYY-MM-DD HH:MM[:SS] (${zoneLabel()}).`);
  return new Date(ms).toISOString();
}

// A text input for a time in the chosen zone, labelled with the zone.
export function timeInput(attrs) {
  return h('input', {type: 'text', inputmode: 'numeric', placeholder: 'YYYY-MM-DD HH:MM:SS', size: 19,
    pattern: '\\d{4}-\\d{2}-\\d{2}[ T]\\d{2}:\\d{2}(:\\d{2})?', title: `YYYY-MM-DD HH:MM[:SS], ${zoneLabel()}`, ...attrs});
}
