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

/** Refusals whose ``detail`` is written for a client program (API paths, table ids):
 * what a person is told instead, in the page's own words. */
const PLAIN = {
  too_many_open_tables: 'You already have as many tables waiting as a host may (3): cancel one of your tables below, or wait until one is joined or expires.',
  already_challenged: 'You already have a challenge waiting for this player: withdraw it below (Challenges you sent), or wait for their answer.',
  too_many_open_challenges: 'You already have as many challenges waiting as a player may (10): withdraw one below, or wait until one is answered or expires.',
};

/** The same words, whatever their case and closing punctuation. */
const same = (a, b) => a.trim().replace(/[.!]+$/, '').toLowerCase() === b.trim().replace(/[.!]+$/, '').toLowerCase();

export function problemText(err) {
  if (err instanceof ApiError) {
    const p = err.problem;
    if (PLAIN[p.rule]) return PLAIN[p.rule];
    const title = p.title || 'Error';
    // A detail naming the API's own paths is for programs: the title alone, then.
    if (!p.detail || (p.title && /\/v1\//.test(p.detail))) return title;
    if (p.title && same(p.detail, p.title)) return p.detail.charAt(0).toUpperCase() + p.detail.slice(1);
    return `${title}: ${p.detail}`;
  }
  if (err instanceof NetworkError) return 'Cannot reach the server: check that it is running and your connection, then try again.';
  return String(err && err.message ? err.message : err);
}

