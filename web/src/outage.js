// The outage banner: whether the database or a broker is down, from this broker's /health (read on every
// page, every refresh interval). It is the loudest thing on the page because every other figure is stale
// or missing while it shows.
import {read} from './api.js';
import {h, clear, seconds} from './dom.js';

// What is down, from the /health answer (or its failure): [{level: 'down'|'warn', text}], [] when all is well.
export function outagesOf(health) {
  if (health.error) {
    if (health.error.status === 0) {
      return [{level: 'down', text: `This broker does not answer (${health.error.message}). The figures shown are from before it stopped answering.`}];
    }
    return [];
  }
  const body = health.data || {};
  const found = [];
  if (body.database && body.database !== 'connected') {
    found.push({level: 'down', text: 'The database is unreachable from this broker. Pushes are written to its spool and replayed when PostgreSQL is back; pops, acknowledgements and the statistics wait for it.'});
  }
  const mesh = body.shared_state || {};
  for (const peer of mesh.peers || []) {
    if (peer.connected === false) {
      found.push({level: 'warn', text: `Broker ${peer.address} is unreachable from this one (mesh link down${peer.last_error ? `: ${peer.last_error}` : ''}).`});
    }
  }
  for (const sender of mesh.senders || []) {
    if (sender.alive === false) {
      found.push({level: 'warn', text: `Broker ${sender.server_id} has stopped sending to this one${sender.last_frame_age_ms !== undefined ? ` (last frame ${seconds(sender.last_frame_age_ms / 1000)} ago)` : ''}.`});
    }
  }
  return found;
}

export async function checkOutage(banner) {
  const found = outagesOf(await read('health'));
  banner.hidden = found.length === 0;
  banner.className = `outage${found.some((o) => o.level === 'down') ? '' : ' warn'}`;
  banner.dataset.state = found.length === 0 ? 'ok' : found.some((o) => o.level === 'down') ? 'down' : 'warn';
  clear(banner, found.map((o) => h('p', {'data-test': 'outage-text'}, o.text)));
}
