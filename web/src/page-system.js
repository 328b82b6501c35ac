// Spool & maintenance: this broker's spool (pending and failed files, whether it drains), the cluster-wide
// maintenance flags with their toggles (admin only, confirmed), the mesh links and a statistics refresh.
import {api, read} from './api.js';
import {DASH, badge, bool, button, bytes, h, clear, kvTable, milliseconds, num, pick, section, seconds, stat, table, text} from './dom.js';
import {confirmed, notify, notifyError, sectionError} from './ui.js';

// What the spool is doing, from the flags and its counts (docs/operations-spool.md).
function drainState(buffers, maintenance) {
  const pending = pick(buffers, 'pending') ?? pick(maintenance, 'bufferedMessages');
  if (pending === undefined) return '–';
  if (pick(maintenance, 'maintenanceMode') === true) return pending > 0 ? 'held: push maintenance is on' : 'idle (push maintenance is on)';
  if (pending === 0) return 'idle: nothing to drain';
  if (pick(buffers, 'dbHealthy') === false) return 'waiting for the database';
  return 'draining';
}

function toggle(kind, enabled, after) {
  const push = kind === 'push';
  const name = push ? 'push maintenance' : 'pop maintenance';
  const effect = push
    ? 'Every push is written to the brokers\' spools instead of PostgreSQL, and the spool drain pauses until it is turned off.'
    : 'Every pop answers 204 (nothing to deliver), long polls at their deadline, until it is turned off.';
  return confirmed({
    title: `Turn ${name} ${enabled ? 'on' : 'off'}?`,
    body: [h('p', {}, enabled ? effect : `Brokers return to normal ${push ? 'pushes and drain their spools' : 'pops'}.`),
      h('p', {}, 'This applies to every broker of the cell.')],
    confirmLabel: `Turn ${enabled ? 'on' : 'off'}`,
    danger: enabled,
  }, () => api('POST', push ? 'api/v1/system/maintenance' : 'api/v1/system/maintenance/pop', {body: {enabled}}),
  (answer) => text(pick(answer, 'message')) || `${name} ${enabled ? 'on' : 'off'}`).then((answer) => answer && after());
}

export function create() {
  const spool = h('div', {'data-test': 'system-spool'});
  const flags = h('div', {'data-test': 'system-maintenance'});
  const mesh = h('div', {'data-test': 'system-mesh'});
  const el = h('div', {class: 'page', 'data-test': 'page-system'},
    h('h1', {}, 'Spool & maintenance'),
    h('div', {class: 'columns'}, section('Spool of this broker', spool), section('Maintenance (every broker)', flags)),
    section('Mesh links of this broker', mesh),
    section('Statistics', h('p', {}, 'Counters on these pages come from statistics a background job keeps. ',
      button('Refresh statistics now', () => api('POST', 'api/v1/stats/refresh')
        .then(() => {
          notify('Statistics refreshed.', 'ok');
          return refresh();
        })
        .catch(notifyError), {'data-test': 'stats-refresh'}))));

  async function refresh() {
    const [buffers, maintenance, pop, shared] = await Promise.all([
      read('api/v1/status/buffers'),
      read('api/v1/system/maintenance'),
      read('api/v1/system/maintenance/pop'),
      read('api/v1/system/shared-state'),
    ]);
    const b = buffers.data;
    const m = maintenance.data;
    clear(spool, buffers.error ? sectionError(buffers.error) : [
      h('div', {class: 'stats'},
        stat('Pending events', num(pick(b, 'pending')), 'spool-pending'),
        stat('Failed events', num(pick(b, 'failed')), 'spool-failed'),
        stat('Drain', drainState(b, m), 'spool-drain')),
      kvTable([
        ['Database reachable', bool(pick(b, 'database.reachable'), 'yes', 'no')],
        // The ping's round trip as measured now; none when the database did not answer.
        ['Database latency', pick(b, 'database.reachable') === false ? DASH : milliseconds(pick(b, 'database.latencyMs'))],
        ['Database error', text(pick(b, 'database.error'))],
        ['Spool files', num(pick(m, 'bufferStats.files'))],
        ['Spool bytes', bytes(pick(m, 'bufferStats.bytes'))],
        ['Failed files', `${num(pick(m, 'bufferStats.failedFiles.count'))} (${bytes(pick(m, 'bufferStats.failedFiles.totalBytes'))})`],
        ['Broker', text(pick(b, 'worker'))],
      ], 'spool-fields'),
    ]);

    const pushOn = pick(m, 'maintenanceMode');
    const popOn = pick(pop.data, 'popMaintenanceMode') ?? pick(m, 'popMaintenanceMode');
    // The toggles stay usable without the flags (a token that may not read them may not set them either:
    // the broker says so when asked).
    clear(flags,
      maintenance.error ? sectionError(maintenance.error) : null,
      table([
        {label: 'Mode', key: 'label'},
        {label: 'State', key: 'state', render: (r) => badge(bool(r.state), r.state === true ? 'warn' : r.state === false ? 'ok' : '')},
        {label: '', key: null, render: (r) => button(r.state === true ? 'Turn off…' : 'Turn on…', () => toggle(r.kind, r.state !== true, refresh),
          {'data-test': `toggle-${r.kind}`, class: r.state === true ? null : 'danger'})},
      ], [
        {kind: 'push', label: 'Push maintenance', state: pushOn},
        {kind: 'pop', label: 'Pop maintenance', state: popOn},
      ], {rowAttrs: (r) => ({'data-test': `flag-row-${r.kind}`, 'data-state': String(r.state)})}));

    if (shared.error) {
      clear(mesh, sectionError(shared.error));
      return;
    }
    const s = shared.data || {};
    clear(mesh,
      s.enabled === false ? h('p', {class: 'muted'}, `The mesh is off on this broker${s.reason ? ` (${s.reason})` : ''}: it runs alone, or peers find each other through PostgreSQL only.`) : null,
      table([
        {label: 'Peer', key: 'address'},
        {label: 'Link', key: 'connected', render: (p) => badge(p.connected ? 'connected' : 'down', p.connected ? 'ok' : 'bad')},
        {label: 'Frames sent', key: 'frames_sent', class: 'n', render: (p) => num(p.frames_sent)},
        {label: 'Dropped', key: 'frames_dropped_peer_down', class: 'n', render: (p) => num((p.frames_dropped_peer_down || 0) + (p.frames_dropped_queue_full || 0))},
        {label: 'Last error', key: 'last_error'},
      ], s.peers || [], {empty: 'No peers configured.'}),
      table([
        {label: 'Sender', key: 'server_id'},
        {label: 'State', key: 'alive', render: (x) => badge(x.alive ? 'alive' : 'silent', x.alive ? 'ok' : 'warn')},
        {label: 'Frames received', key: 'frames_received', class: 'n', render: (x) => num(x.frames_received)},
        {label: 'Last frame', key: 'last_frame_age_ms', render: (x) => (x.last_frame_age_ms === undefined ? '–' : `${seconds(x.last_frame_age_ms / 1000)} ago`)},
      ], s.senders || [], {empty: 'No broker has sent frames to this one.'}));
  }

  return {el, poll: true, refresh};
}
