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
  // The API's words for these ("you acted on version 4; the match is at version 6",
  // "too many sign_ins from this address", "does not match the schema") are a program's.
  stale_version: 'That move is no longer possible: the game moved on.',
  concurrency_conflict: 'Something changed at the same moment, so nothing was done: try again.',
  rate_limited: (p, err) => `Too many attempts. Try again in ${inSeconds(err.retryAfter)}.`,
  busy: 'The server is busy with the same players just now: try again in a moment.',
  internal_error: 'Something went wrong on the server: try again, or reload the page.',
  invalid_request: (p) => plainRefusal(p.detail || ''),
};

/** A wait of ``seconds`` (Retry-After) in words; a moment if the answer said none. */
const inSeconds = (seconds) => (!seconds ? 'a moment' : seconds === 1 ? '1 second' : `${seconds} seconds`);

/** A name the server refused (``invalid_request``, its detail "name: ..."), in the page's
 * words. Anything else the schema refused (a rule or a clock a stale page let through)
 * is said by its detail, which names the field, without the schema's title. */
function plainRefusal(detail) {
  const refused = [
    [/^name: at most (\d+) characters/, (n) => `That name is too long: a name has at most ${n} characters.`],
    [/^name: holds (.*); send it without$/s, (what) => `That name holds ${what}: type it without.`],
    [/^name: must have a visible/, () => 'That name shows nothing: use at least one letter, digit, punctuation mark or symbol.'],
    [/^name: .* is how a house AI is shown/s, () => 'That name is how the computer (a house AI) is shown: choose another.'],
  ];
  for (const [pattern, words] of refused) {
    const found = pattern.exec(detail);
    if (found) return words(...found.slice(1));
  }
  return detail ? `Not accepted: ${detail}` : 'Not accepted: reload the page and try again.';
}

/** ``text`` begins with ``words``, whatever their case and closing punctuation. */
const startsWithSame = (text, words) => text.trim().toLowerCase().startsWith(words.trim().replace(/[.!]+$/, '').toLowerCase());

export function problemText(err) {
  if (err instanceof ApiError) {
    const p = err.problem;
    if (PLAIN[p.rule]) return typeof PLAIN[p.rule] === 'function' ? PLAIN[p.rule](p, err) : PLAIN[p.rule];
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

