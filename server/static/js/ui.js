// Screens and messages shared by the page's parts.
import { $, $$, fill } from './dom.js';
import { ApiError, NetworkError } from './api.js';

/** Each screen's title, for the window's title (a screen reader says it, and the
 * browser's history and tabs list it): it was "Gin Rummy" on every screen. */
const TITLES = {
  start: 'New match',
  table: 'Your match',
  lobby: 'Play a person',
  history: 'Your matches',
  leaderboard: 'Leaderboard',
  watch: 'Watching a match',
  live: 'Live matches',
  rules: 'How to play',
  replay: 'Replay',
  player: 'Player profile',
  signin: 'Sign in with a code',
};

export function show(screen) {
  for (const el of $$('.screen')) el.hidden = el.id !== `screen-${screen}`;
  document.body.dataset.screen = screen;
  document.title = TITLES[screen] ? `${TITLES[screen]} · Gin Rummy` : 'Gin Rummy';
}

/** The table's title while the player is to act begins "Your turn": a person waiting in
 * another tab for an opponent's move sees it in the tab strip (a move clock may be
 * running), where the title said the same whoever was to play. */
export function titleTurn(mine) {
  if (document.body.dataset.screen !== 'table') return;
  document.title = `${mine ? 'Your turn · ' : ''}${TITLES.table} · Gin Rummy`;
}

/** The skip link (index.html's first Tab stop) focuses the heading of the screen shown,
 * so the next Tab is on that screen's first control. Its ``#main`` would be taken for a
 * route by the page's router: the link goes nowhere itself. */
document.addEventListener('click', (event) => {
  const link = event.target.closest && event.target.closest('.skip-link');
  if (!link) return;
  event.preventDefault();
  const screen = $('.screen:not([hidden])');
  const target = (screen && screen.querySelector('h1')) || $('main');
  if (!target.hasAttribute('tabindex')) target.setAttribute('tabindex', '-1');
  target.focus();
});

/** Tell screen readers ``text`` (no more than it): a line added to a live region that is
 * always in the page (#said, polite; #alert, assertive, for what went wrong). Each line
 * goes after a while; lines said together are kept apart, not written over each other. */
export function announce(text, { urgent = false } = {}) {
  const region = $(urgent ? '#alert' : '#said');
  if (!region || !text) return;
  const line = document.createElement('p');
  fill(line, text);
  region.append(line);
  while (region.childElementCount > 5) region.firstElementChild.remove();
  setTimeout(() => line.remove(), 10000);
}

export function toast(message, kind = 'error') {
  const el = $('#toast');
  fill(el, message);
  el.className = `toast ${kind}`;
  el.hidden = false;
  // Shown from hidden, the toast itself was not in the accessibility tree when its words
  // came, so they were not announced: they are said through the regions always there.
  announce([...el.cloneNode(true).childNodes], { urgent: kind === 'error' }); // names stay isolated
  clearTimeout(toast.timer);
  toast.timer = setTimeout(() => (el.hidden = true), 5000);
}

/** Refusals whose ``detail`` is written for a client program (API paths, table ids):
 * what a person is told instead, in the page's own words. */
const PLAIN = {
  too_many_open_tables: 'You already have as many tables waiting as a host may (3): cancel one of your tables below, or wait until one is joined or expires.',
  already_challenged: 'You already have a challenge waiting for this player: withdraw it below (Challenges you sent), or wait for their answer.',
  too_many_open_challenges: 'You already have as many challenges waiting as a player may (10): withdraw one below, or wait until one is answered or expires.',
  // A block, said as neutrally as the server says it: no reason, nothing about a block.
  opponent_refused: (p) => (/table/i.test(p.detail || '') ? 'This table\'s host is not taking you as an opponent.' : 'This player is not taking challenges from you.'),
  too_many_blocks: 'You block as many players as one may (500): unblock one under Blocked players in the lobby first.',
  cannot_block_self: 'You cannot block yourself.',
  cannot_block_house_ai: 'The computer cannot be blocked.',
  chat_flood: 'You are sending messages too fast: wait a moment, then send again.',
  // Its detail is the database driver's ("cannot switch to state 11; another operation…").
  store_unavailable: 'The server lost its database for a moment: try again.',
  // Its detail names the other player's id, which means nothing to a person.
  name_taken: 'That name is too like the name of a player you play or challenge: nobody could tell you apart. Choose another.',
};

/** ``text`` begins with ``words``, whatever their case and closing punctuation. */
const startsWithSame = (text, words) => text.trim().toLowerCase().startsWith(words.trim().replace(/[.!]+$/, '').toLowerCase());

export function problemText(err) {
  if (err instanceof ApiError) {
    const p = err.problem;
    if (PLAIN[p.rule]) return typeof PLAIN[p.rule] === 'function' ? PLAIN[p.rule](p) : PLAIN[p.rule];
    const title = p.title || 'Error';
    // A detail naming the API's own paths is for programs: the title alone, then.
    if (!p.detail || (p.title && /\/v1\//.test(p.detail))) return title;
    // A detail that says the title again, and perhaps more, is said alone: "The message is
    // empty: the message is empty once control characters are removed" read twice.
    if (p.title && startsWithSame(p.detail, p.title)) return p.detail.charAt(0).toUpperCase() + p.detail.slice(1);
    return `${title}: ${p.detail}`;
  }
  if (err instanceof NetworkError) return 'Cannot reach the server: check that it is running and your connection, then try again.';
  return String(err && err.message ? err.message : err);
}

