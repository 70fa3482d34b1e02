// "Live matches": the matches being played now that anyone may watch (GET
// /v1/matches/watchable, no token needed), each with its seats, rules, score, hands played
// and spectators, and a Watch button that opens the watch screen (watch.js). The list is
// read again every few seconds while it is on screen and the tab is visible (a hidden tab
// asks nothing, and reads at once when it is shown again); it pages when the server says
// there is `more`. A private table's match is never listed (the server leaves it out).
import { $, fill, h, plural } from './dom.js';
import { api } from './api.js';
import { announce, problemText } from './ui.js';
import { refName } from './names.js';
import { pollWhileVisible } from './poll.js';
import { listedRules } from './terms.js';

const PAGE = 20;
const EVERY_MS = 5000;
const live = { root: null, offset: 0, poll: null, reads: 0 };

export function closeLive() {
  if (live.poll) live.poll.stop();
  live.poll = null;
  live.root = null;
}

export function showLive(root) {
  closeLive();
  live.root = root;
  live.offset = 0;
  fill(
    root,
    h('h1', { id: 'live-title', tabindex: '-1' }, 'Live matches'),
    h('p', { class: 'hint' }, 'Matches being played now that anyone may watch, newest first; the list follows them every few seconds. A private table\u2019s match is not listed.'),
    h('div', { id: 'live-list', 'data-testid': 'live-list' }, h('p', {}, 'Loading…')),
  );
  live.poll = pollWhileVisible(() => read(), {
    every: EVERY_MS,
    alive: () => live.root === root && document.body.dataset.screen === 'live',
  });
}

/** The page of matches at ``live.offset``; ``say``: the page was asked for by a button. */
async function read(say = false) {
  const asked = ++live.reads;
  const list = live.root && $('#live-list', live.root);
  if (!list) return;
  try {
    const page = await api.watchable(live.offset, PAGE);
    if (asked !== live.reads || !live.root) return; // a newer read, or gone
    if (!page.matches.length && live.offset > 0) {
      // The matches of this page ended meanwhile: the one before it.
      live.offset = Math.max(0, live.offset - PAGE);
      return read(say);
    }
    render(list, page);
    if (say) announce(page.matches.length ? `Live matches ${live.offset + 1} to ${live.offset + page.matches.length}.` : 'No match is being played now.');
  } catch (err) {
    if (asked === live.reads) fill(list, h('p', { 'data-testid': 'live-error' }, problemText(err)));
  }
}

// ``among``: every seat of the page's matches, so two players who share a name are told apart
const against = (m, among) => `${refName(m.seats[0], among)} against ${refName(m.seats[1], among)}`;

function render(list, page) {
  // The list is drawn anew: a button that had the keyboard keeps it (it was dropped to the
  // page's top every few seconds).
  const had = list.contains(document.activeElement) ? document.activeElement : null;
  const key = had && (had.dataset.match ? `[data-match="${had.dataset.match}"]` : `[data-testid=${had.dataset.testid}]`);
  fill(
    list,
    page.matches.length
      ? h(
          'table',
          { class: 'history live-matches', 'data-testid': 'live-matches' },
          h('thead', {}, h('tr', {}, ['Players', 'Rules', 'Score', 'Hands played', 'Watching'].map((t) => h('th', { scope: 'col' }, t)), h('th', { scope: 'col' }, h('span', { class: 'visually-hidden' }, 'Watch')))),
          h('tbody', {}, page.matches.map((m) => row(m, page.matches.flatMap((each) => each.seats)))),
        )
      : h('p', { 'data-testid': 'live-empty' }, live.offset ? 'No more matches.' : 'No match anyone may watch is being played now. Start one under Play a person, or watch two computers from New match.'),
    h(
      'p',
      { class: 'pager' },
      live.offset > 0 ? h('button', { type: 'button', 'data-testid': 'live-previous', onclick: () => turn(-PAGE) }, 'Previous matches') : null,
      page.more ? h('button', { type: 'button', 'data-testid': 'live-next', onclick: () => turn(PAGE) }, 'Next matches') : null,
    ),
  );
  if (had && !list.contains(document.activeElement)) {
    // Gone (Next on the last page): the other pager button, or the first Watch.
    const pager = had.dataset.testid === 'live-next' || had.dataset.testid === 'live-previous';
    const again = (key && list.querySelector(key)) || (pager && list.querySelector('.pager button')) || list.querySelector('button');
    if (again) again.focus();
    else $('#live-title').focus();
  }
}

function row(m, among) {
  return h(
    'tr',
    { 'data-testid': 'live-match', dataset: { matchId: m.match_id } },
    h('td', { 'data-label': 'Players' }, against(m, among)),
    // in the lobby's and History's words ("arcadia to 100"), not the bare preset's name
    h('td', { 'data-label': 'Rules' }, `${listedRules(m.rules)}${m.rated ? ', rated' : ''}`),
    h('td', { 'data-label': 'Score', 'data-testid': 'live-score' }, `${m.scores[0]} : ${m.scores[1]}`),
    h('td', { 'data-label': 'Hands played' }, String(m.hands_played)),
    h('td', { 'data-label': 'Watching', 'data-testid': 'live-spectators' }, plural(m.spectators, 'spectator')),
    h(
      'td',
      {},
      h(
        'button',
        { type: 'button', 'data-testid': 'live-watch', 'data-match': m.match_id, onclick: () => (location.hash = `#/watch/${encodeURIComponent(m.match_id)}`) },
        'Watch',
        h('span', { class: 'visually-hidden' }, ` ${against(m, among)}`),
      ),
    ),
  );
}

function turn(by) {
  live.offset = Math.max(0, live.offset + by);
  read(true);
}
