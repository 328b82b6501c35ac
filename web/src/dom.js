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

export function bool(value, yes = 'on', no = 'off') {
  if (value === true) return yes;
  if (value === false) return no;
  return DASH;
}

export function seconds(value) {
  if (typeof value === 'string' && value.trim() !== '') value = Number(value);
  if (!isNumber(value)) return DASH;
  if (value < 1) return `${Math.round(value * 1000)} ms`;
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

export function time(value) {
  if (!value) return DASH;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) return text(value);
  return date.toISOString().replace('T', ' ').replace(/\.\d+Z$/, 'Z');
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
      class: sortable ? 'sortable' : null,
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
  return h('table', {class: 'grid'}, h('thead', {}, head), h('tbody', {}, body));
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
    return sign * String(x).localeCompare(String(y));
  });
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

// A local time from <input type="datetime-local"> as ISO 8601 UTC, or undefined when empty.
export function isoFromLocalInput(value) {
  if (!value) return undefined;
  const date = new Date(value);
  return Number.isNaN(date.getTime()) ? undefined : date.toISOString();
}

export function localInputValue(date) {
  const pad = (n) => String(n).padStart(2, '0');
  return `${date.getFullYear()}-${pad(date.getMonth() + 1)}-${pad(date.getDate())}T${pad(date.getHours())}:${pad(date.getMinutes())}`;
}
