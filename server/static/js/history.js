// History: the player's matches, and a replay viewer that steps through a finished
// match event by event with both hands shown in melds (the server's /replay?at=N).
import { $, fill, h, heard, plural } from './dom.js';
import { allEvents, api, ApiError } from './api.js';
import { byRank, bySuit, cardBack, cardFace, cardGroup, cardName } from './cards.js';
import { displayName, narrate } from './words.js';
import { savedPlayer } from './api.js';
import { resultPanel, settlementPanel } from './results.js';
import { verifyButton } from './verify.js';
import { listedRules, rulesTerms } from './terms.js';
import { madeByStandIn } from './standin.js';
import { refName } from './names.js';
import { profileHref } from './profilelink.js';
import { announce } from './ui.js';

const when = (iso) => (iso ? new Date(iso).toLocaleString() : '');

/** Won or lost: ``winner`` is the winning seat and ``seat`` the player's own (either may
 * be seat 0: a guest at a person's table sits in seat 1). A match the house AI played out
 * for two absent players is neither, as the totals above count it. */
function outcome(m) {
  if (m.status !== 'finished') return 'in progress';
  if (m.abandoned) return 'not counted: both players were away';
  if (m.watching) return m.winner === 0 ? 'first seat won' : 'second seat won';
  if (m.winner === null || m.winner === undefined) return 'over';
  return m.winner === m.seat ? 'won' : 'lost';
}

/** A match's opponent as a seat's reference (names.js's ``refName`` takes those). */
const opponentRef = (m) => ({ id: m.opponent, name: m.opponent_name || m.opponent, kind: m.opponent_kind });

/** The opponent as the list names it: a person or bot by name, the house AI by level;
 * with ``rows``, the list's matches, an opponent whose name passes for another's there
 * is told apart by the start of its id. */
export const opponentName = (m, rows = null) => {
  if (m.opponent_kind === 'ai') return displayName(m.opponent, null);
  return refName(opponentRef(m), rows && rows.filter((r) => !r.watching).map(opponentRef));
};

/** A row's match as its links name it ("the match against Ada, arcadia to 100, started
 * …"): a list of links all read "Replay" said nothing of which match each opens. The
 * opponent is named as the row names them (``rows``: an alike name gets its id tag; the
 * links had said "Ada" for two Adas the table told apart). The rules are a span of their
 * own: a custom set's is said in words once known (customRules). */
const theMatch = (m, rows) => [
  `${m.watching ? 'the match between two house AIs' : `the match against ${opponentName(m, rows)}`}, `,
  h('span', { 'data-rules': '' }, listedRules(m.rules)),
  `, started ${when(m.started_at)}`,
];

/** A player's totals in one line: History's own, and a profile's (``testid`` tells which). */
export function statsLine(s, testid = 'stats') {
  const item = (label, value, testid = null) => h('span', { class: 'stat' }, `${label} `, h('b', { 'data-testid': testid }, value));
  return h(
    'p',
    { class: 'stats', 'data-testid': testid },
    item('Matches', s.matches_played, 'stat-played'),
    item('won', s.matches_won, 'stat-won'),
    item('lost', s.matches_lost, 'stat-lost'),
    item('· Hands won', s.hands_won),
    item('lost', s.hands_lost),
    item('· Gins', s.gins),
    item('knocks', s.knocks),
    item('undercuts given', s.undercuts_given),
    item('· Points per hand', Number(s.average_points_per_hand).toFixed(1)),
    h('span', { class: 'hint', 'data-testid': 'stats-practice' }, ' · practice matches are not counted'),
  );
}

const noMatches = () => h('p', {}, 'No matches yet. ', h('a', { href: '#/' }, 'Start one.'));

/** One row of the list; ``rows``, the whole list, tells alike names apart. */
function historyRow(m, rows) {
  return h(
    'tr',
    { dataset: { matchId: m.match_id } },
    h('td', { dataset: { label: 'Started' } }, when(m.started_at)),
    h('td', { dataset: { label: 'Opponent' } }, m.watching ? 'two house AIs (watched)' : h('a', { href: profileHref(m.opponent), 'data-testid': 'opponent-link' }, opponentName(m, rows))),
    customRules(h('td', { dataset: { label: 'Rules' } }, listedRules(m.rules), m.practice ? practiceMark() : null), m),
    h('td', { dataset: { label: 'Score' } }, `${m.scores[0]} : ${m.scores[1]}`),
    h('td', { 'data-testid': 'history-result', dataset: { label: 'Result' } }, outcome(m)),
    h(
      'td',
      {},
      m.status === 'finished' && m.watching
        ? h('a', { class: 'button', href: `#/replay/${encodeURIComponent(m.match_id)}`, 'data-testid': 'replay-link' }, 'Replay', heard([' ', theMatch(m, rows)]))
        : m.watching
        ? h('a', { class: 'button', href: `#/watch/${encodeURIComponent(m.match_id)}` }, 'Watch', heard([' ', theMatch(m, rows)]))
        : m.status === 'finished'
        ? [h('a', { class: 'button', href: `#/replay/${encodeURIComponent(m.match_id)}`, 'data-testid': 'replay-link' }, 'Replay', heard([' ', theMatch(m, rows)])), ' ', verifyButton(m.match_id, [' ', theMatch(m, rows)])]
        : h('a', { class: 'button', href: `#/match/${encodeURIComponent(m.match_id)}` }, 'Resume', heard([' ', theMatch(m, rows)])),
    ),
  );
}

export async function showHistory(root, { onError }) {
  if (!savedPlayer()) {
    // Nobody signed in has played a match here (asked without a token, the page showed
    // the server's "Missing or invalid bearer token" and "Could not load your matches").
    fill(root, noMatches());
    return;
  }
  fill(root, h('p', {}, 'Loading your matches…'));
  try {
    const [active, finished] = await Promise.all([api.listMatches('active'), api.listMatches('finished')]);
    const rows = [...active.matches, ...finished.matches];
    const me = savedPlayer();
    const stats = me ? await api.stats(me.id).catch(() => null) : null;
    if (!rows.length) {
      fill(root, noMatches());
      return;
    }
    const list = { rows, finished: finished.matches.length, more: finished.more };
    // The server answers the newest 100 finished matches a page: a player with more saw
    // only those, with no word of the rest. "Show older matches" reads the next page.
    const older = async (button) => {
      button.disabled = true;
      try {
        const next = await api.listMatches('finished', list.finished);
        const known = new Set(list.rows.map((m) => m.match_id)); // one finished meanwhile moves the pages by one
        const added = next.matches.filter((m) => !known.has(m.match_id));
        list.rows = [...list.rows, ...added];
        list.finished += next.matches.length;
        list.more = next.more;
        draw();
        // The keyboard goes on where the list grew (the button is redrawn, or gone).
        const first = added.length && root.querySelector(`tr[data-match-id="${CSS.escape(added[0].match_id)}"] a`);
        (first || root.querySelector('[data-testid=history-older]') || root.querySelector('table')).focus();
        announce(added.length ? `${plural(added.length, 'older match', 'older matches')} shown.` : 'No older matches.');
      } catch (err) {
        button.disabled = false;
        onError(err);
      }
    };
    const draw = () =>
      fill(
        root,
        stats ? statsLine(stats) : null,
        h(
          'table',
          { class: 'history', 'data-testid': 'history', tabindex: '-1' },
          // The links' column is named for screen readers (an empty header read as nothing).
          h('thead', {}, h('tr', {}, ['Started', 'Opponent', 'Rules', 'Score', 'Result', heard('Open')].map((t) => h('th', { scope: 'col' }, t)))),
          h('tbody', {}, list.rows.map((m) => historyRow(m, list.rows))),
        ),
        list.more ? h('p', { class: 'pager' }, h('button', { type: 'button', 'data-testid': 'history-older', onclick: (event) => older(event.currentTarget) }, 'Show older matches')) : null,
      );
    draw();
  } catch (err) {
    fill(root, h('p', {}, 'Could not load your matches.'));
    onError(err);
  }
}

/** The list names a custom rule set only "arkadium+custom": its cell is filled in with what
 * the set changed, from the match itself (one request per custom match, none for presets),
 * in the lobby's words (terms.js), and so are the names its row's links are heard by. */
const practiceMark = () => h('span', { class: 'hint', 'data-testid': 'practice' }, ' (practice)');

export function customRules(cell, m) {
  if (typeof m.rules === 'string' && m.rules.includes('+')) {
    (m.watching ? api.spectate(m.match_id) : api.getMatch(m.match_id))
      .then((data) => {
        const line = rulesTerms(data.view.rules);
        fill(cell, line, m.practice ? practiceMark() : null);
        const row = cell.closest('tr'); // drawn by now: the answer comes after the list
        if (row) for (const named of row.querySelectorAll('[data-rules]')) named.textContent = line;
      })
      .catch(() => {});
  }
  return cell;
}

/** Steps through a finished match; `at` is the number of events applied (1…N). */
export async function showReplay(root, matchId, { onError }) {
  fill(root, h('p', {}, 'Loading the replay…'));
  let events;
  try {
    events = await allEvents(matchId);
  } catch (err) {
    fill(root, h('p', {}, 'This match cannot be replayed (is it finished?).'));
    onError(err);
    return;
  }
  if (!events.length) {
    fill(root, h('p', {}, 'No events.'));
    return;
  }
  const first = events[0].version;
  const last = events[events.length - 1].version;
  let at = Math.min(first + 1, last);
  const cache = new Map(); // version → the replay's answer there (a promise)
  const replayAt = async (n) => {
    if (!cache.has(n)) cache.set(n, api.replay(matchId, n));
    return cache.get(n);
  };
  // A seat reads its own match's events while it is played, but no replay (a 409): the
  // screen drew the controls and the deal, "Event 2 of 2", under a red error. The first
  // step's answer tells, and is kept for it.
  if (await stillPlayed(replayAt(at))) {
    fill(root, h('p', { 'data-testid': 'replay-not-finished' }, 'This match is still being played: a replay shows every hand, so it opens once the match is over. ', h('a', { href: `#/match/${encodeURIComponent(matchId)}` }, 'Back to the match'), '.'));
    return;
  }
  const started = events[0].event;
  // The log names seats by id: a person's name comes with the match's seats (a watched
  // house match has only house AIs, which need no lookup).
  const seats = started.players.some((p) => !p.startsWith('ai:')) ? await api.getMatch(matchId).then((d) => d.seats, () => null) : null;
  const players = started.players.map((p, i) => (p.startsWith('ai:') ? displayName(p, null) : (seats && seats[i] ? refName(seats[i]) : displayName(p, savedPlayer()))));
  const rules = started.rules;
  let token = 0;

  const controls = h(
    'div',
    { class: 'replay-controls', role: 'toolbar', 'aria-label': 'Replay controls' },
    h('button', { type: 'button', dataset: { step: 'first' }, 'aria-label': 'First event', 'aria-keyshortcuts': 'Home' }, '« First'),
    h('button', { type: 'button', dataset: { step: 'back' }, 'aria-label': 'Back one event', 'aria-keyshortcuts': 'ArrowLeft', 'data-testid': 'replay-back' }, '◀ Back'),
    h('span', { class: 'position', 'data-testid': 'replay-position' }),
    h('button', { type: 'button', dataset: { step: 'forward' }, 'aria-label': 'Forward one event', 'aria-keyshortcuts': 'ArrowRight', 'data-testid': 'replay-forward' }, 'Forward ▶'),
    h('button', { type: 'button', dataset: { step: 'last' }, 'aria-label': 'Last event', 'aria-keyshortcuts': 'End' }, 'Last »'),
  );
  const slider = h('input', { type: 'range', min: first, max: last, value: at, 'aria-label': 'Event number', class: 'slider' });
  // Not a live region: each step draws the whole board (both hands, the piles, the score),
  // and all of it was read out at every step. The step's event is announced alone.
  const board = h('div', { class: 'replay-board', 'data-testid': 'replay-board' });
  fill(root, h('h1', { 'data-testid': 'replay-title' }, `Replay: ${players[0]} against ${players[1]}`), h('p', { class: 'hint', 'data-testid': 'replay-rules' }, `Rules: ${rulesTerms(rules)}`), controls, slider, board);

  const go = async (n) => {
    at = Math.max(first, Math.min(last, n));
    slider.value = at;
    const mine = ++token;
    fill($('.position', root), `Event ${at} of ${last}`);
    root.dataset.at = String(at);
    let replay = { state: null, arrangements: null };
    try {
      replay = await replayAt(at);
    } catch (err) {
      onError(err);
    }
    if (mine !== token) return;
    fill(board, replayBoard(events.find((e) => e.version === at).event, replay, players, rules, events, at));
    root.dataset.shown = String(at);
    const said = $('[data-testid=replay-event]', board);
    if (said && document.body.dataset.screen === 'replay') announce([`Event ${at} of ${last}: `, ...said.cloneNode(true).childNodes]); // names stay isolated
  };

  controls.addEventListener('click', (e) => {
    const b = e.target.closest('[data-step]');
    if (!b) return;
    const step = b.dataset.step;
    go(step === 'first' ? first : step === 'last' ? last : step === 'back' ? at - 1 : at + 1);
  });
  slider.addEventListener('input', () => go(Number(slider.value)));
  const onKey = (e) => {
    if (document.body.dataset.screen !== 'replay') return document.removeEventListener('keydown', onKey);
    if (e.target.tagName === 'INPUT' && e.target !== slider) return;
    const moves = { ArrowLeft: at - 1, ArrowRight: at + 1, Home: first, End: last };
    if (e.key in moves && e.target !== slider) {
      e.preventDefault();
      go(moves[e.key]);
    }
  };
  document.addEventListener('keydown', onKey);
  await go(at);
}

/** Whether the server refused a replay (``asked``, its answer) as the match's not finished. */
const stillPlayed = (asked) =>
  asked.then(
    () => false,
    (err) => err instanceof ApiError && err.problem && err.problem.rule === 'match_not_finished',
  );

/** One seat's hand: its melds, then its deadwood, as the engine arranges them. A knocker's
 * row shows the melds it laid down (the defender's layoffs marked), so no card shows twice. */
function seatRow(name, cards, arrangement, knocked = null) {
  if (knocked) {
    const groups = knocked.melds.map((meld) => cardGroup(meld, { label: 'meld', classes: 'meld', mark: knocked.laid }));
    if (knocked.deadwood.length) groups.push(cardGroup(byRank(knocked.deadwood), { label: 'deadwood', classes: 'deadwood' }));
    return h(
      'div',
      { class: 'replay-seat', 'data-testid': 'replay-knocker' },
      h('div', { class: 'label' }, `${name} · knocked with these melds · deadwood ${knocked.points}`),
      h('div', { class: 'fan' }, groups),
    );
  }
  if (!arrangement) {
    return h(
      'div',
      { class: 'replay-seat' },
      h('div', { class: 'label' }, `${name} · ${cards.length} cards`),
      h('div', { class: 'fan' }, bySuit(cards).map((c) => cardFace(c))),
    );
  }
  const groups = arrangement.melds.map((meld) => cardGroup(meld, { label: 'meld', classes: 'meld' }));
  if (arrangement.deadwood.length) {
    groups.push(cardGroup(byRank(arrangement.deadwood), { label: 'deadwood', classes: 'deadwood' }));
  }
  return h(
    'div',
    { class: 'replay-seat' },
    h('div', { class: 'label' }, `${name} · ${cards.length} cards · deadwood ${arrangement.deadwood_points}`),
    h('div', { class: 'fan' }, groups),
  );
}

function replayBoard(event, { state, arrangements }, players, rules, events, at) {
  const standIn = madeByStandIn(events, events.findIndex((e) => e.version === at));
  const parts = [h('p', { class: 'narration', 'data-testid': 'replay-event' }, narrate(event, players, null, null, standIn))];
  const hand = state && state.hand;
  if (state) {
    parts.push(
      h('p', { class: 'replay-score', 'data-testid': 'replay-score' }, `${players[0]} ${state.scores[0]} (${plural(state.boxes[0], 'box', 'boxes')}) · ${players[1]} ${state.scores[1]} (${plural(state.boxes[1], 'box', 'boxes')})`),
    );
  }
  // A hand's end shows both hands in its result panel below: not a second time above it.
  const ending = event.type === 'hand_scored' || event.type === 'hand_washed';
  if (hand && !ending) {
    const top = hand.pile[hand.pile.length - 1];
    const knocked = hand.knock && hand.knock_melds && hand.knock_melds.length
      ? { melds: hand.knock_melds, deadwood: hand.knock.deadwood, points: hand.knock.deadwood_points, laid: new Set((hand.layoffs || []).map(([card]) => card)) }
      : null;
    const row = (seat) =>
      seatRow(players[seat], hand.hands[seat], arrangements && arrangements[seat], knocked && hand.knock.seat === seat ? knocked : null);
    parts.push(row(1));
    parts.push(
      h(
        'div',
        { class: 'replay-piles' },
        h('span', { class: 'pile-view' }, hand.stock.length ? cardBack() : null, h('span', { class: 'count' }, `stock ${hand.stock.length}`)),
        h('span', { class: 'pile-view' }, top ? cardFace(top) : null, h('span', { class: 'count' }, `pile ${hand.pile.length}`)),
      ),
    );
    parts.push(row(0));
  }
  const view = { players, rules };
  if (event.type === 'hand_scored' || event.type === 'hand_washed') {
    const knock = [...events].reverse().find((e) => e.version < at && e.event.type === 'knocked');
    parts.push(resultPanel(view, event, knock ? knock.event : null, null));
  }
  if (event.type === 'match_settled') {
    const claimed = events.find((e) => e.event.type === 'match_claimed');
    parts.push(settlementPanel(view, event, null, { claim: claimed ? claimed.event : null }));
  }
  if (event.type === 'knocked' && event.discard) parts.push(h('p', { class: 'hint' }, `Discard: ${cardName(event.discard)}`));
  return parts;
}
