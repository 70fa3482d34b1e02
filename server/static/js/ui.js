// Screens and messages shared by the page's parts.
import { $, $$, fill } from './dom.js';
import { ApiError, NetworkError } from './api.js';

export function show(screen) {
  for (const el of $$('.screen')) el.hidden = el.id !== `screen-${screen}`;
  document.body.dataset.screen = screen;
}

export function toast(message, kind = 'error') {
  const el = $('#toast');
  fill(el, message);
  el.className = `toast ${kind}`;
  el.hidden = false;
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (el.hidden = true), 5000);
}

export function problemText(err) {
  if (err instanceof ApiError) {
    const p = err.problem;
    return `${p.title || 'Error'}${p.detail && p.detail !== p.title ? `: ${p.detail}` : ''}`;
  }
  if (err instanceof NetworkError) return 'Cannot reach the server: check that it is running and your connection, then try again.';
  return String(err && err.message ? err.message : err);
}

