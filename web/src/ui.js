// The banner (outcome of actions), the confirmation dialog, inline section errors and the side panel.
import {ApiError} from './api.js';
import {h, clear} from './dom.js';

export function notify(message, kind = 'info') {
  const banner = document.getElementById('banner');
  banner.className = `banner ${kind}`;
  banner.dataset.kind = kind;
  clear(banner, h('span', {'data-test': 'banner-text'}, message),
    h('button', {type: 'button', class: 'link', 'aria-label': 'dismiss', onclick: () => { banner.hidden = true; }}, '×'));
  banner.hidden = false;
}

export function notifyError(error) {
  notify(error instanceof ApiError ? error.describe() : String(error && error.message ? error.message : error), 'error');
}

// Why a section has no data: its route refused or failed.
export function sectionError(error) {
  const needsToken = error.status === 401 || error.status === 403;
  return h('p', {class: `section-error${needsToken ? ' auth' : ''}`, 'data-test': 'section-error'},
    error.status === 403 ? 'Not shown: your token\'s role may not read this (403).'
      : error.status === 404 ? `Not available on this broker (404: ${error.message}).`
        : error.describe());
}

// confirmAction({title, body: [nodes], confirmLabel}) -> Promise<FormData|null>; the body may hold inputs
// (named), whose values come back in the FormData. Resolves null on cancel.
export function confirmAction({title, body, confirmLabel = 'Confirm', danger = false}) {
  return new Promise((resolve) => {
    const form = h('form', {method: 'dialog', class: 'dialog-form'},
      h('h3', {}, title),
      h('div', {class: 'dialog-body'}, body || []),
      h('div', {class: 'dialog-actions'},
        h('button', {type: 'button', value: 'cancel', 'data-test': 'dialog-cancel', onclick: () => dialog.close('cancel')}, 'Cancel'),
        h('button', {type: 'submit', value: 'confirm', class: danger ? 'danger' : 'primary', 'data-test': 'dialog-confirm'}, confirmLabel)));
    const dialog = h('dialog', {class: 'dialog', 'data-test': 'dialog'}, form);
    form.addEventListener('submit', (event) => {
      event.preventDefault();
      dialog.close('confirm');
    });
    dialog.addEventListener('close', () => {
      const data = dialog.returnValue === 'confirm' ? new FormData(form) : null;
      dialog.remove();
      resolve(data);
    });
    document.body.append(dialog);
    dialog.showModal();
  });
}

// Runs an action after confirmation, reports its outcome in the banner; returns the answer or null.
export async function confirmed(options, action, successMessage) {
  const form = await confirmAction(options);
  if (!form) return null;
  try {
    const answer = await action(form);
    notify(typeof successMessage === 'function' ? successMessage(answer) : successMessage, 'ok');
    return answer;
  } catch (error) {
    notifyError(error);
    return null;
  }
}

// The side panel a page shows a detail in (a message, a dead letter, a group): fixed to the right of the
// window, so it opens where the user looks whatever the list's scroll, and stays there. One per page;
// open() replaces its content, Escape or × closes it.
export function drawer(test) {
  const body = h('div', {class: 'drawer-body'});
  const el = h('aside', {class: 'drawer', hidden: true, 'data-test': test, 'aria-label': 'detail'},
    h('div', {class: 'drawer-head'}, h('span'),
      h('button', {type: 'button', class: 'link', 'aria-label': 'close', 'data-test': 'drawer-close', onclick: () => close()}, '×')),
    body);
  function close() {
    el.hidden = true;
    body.replaceChildren();
  }
  document.addEventListener('keydown', (event) => {
    if (!el.isConnected) return;
    if (event.key === 'Escape' && !el.hidden && !document.querySelector('dialog[open]')) close();
  });
  return {
    el,
    open(...children) {
      clear(body, ...children);
      el.hidden = false;
      el.scrollTop = 0;
    },
    close,
  };
}
