// Watching a match: the spectator's socket (WS …/watch), no token needed. The page shows
// only what the server sends a spectator: the public cards, never a hidden one.
import { fill, h, plural } from './dom.js';
import { api } from './api.js';
import { cardFace, cardName } from './cards.js';
import { LiveFeed, noteUnreachable, unreachable, whileSocketDown } from './live.js';
import { chatCatchUp, chatFrame, closeChat, connectAfterHistory, openChat, renameChatSeats } from './chat.js';
import { KIND, narrate } from './words.js';
import { StandIn } from './standin.js';
import { refName } from './names.js';
import { hideClock, showClock } from './clock.js';
import { announce, problemText } from './ui.js';
import { handIsOver, handJustEnded, resultPanel } from './results.js';
import { pollWhileVisible } from './poll.js';
import { lookUpClaim, settledWords } from './claim.js';

const watching = { feed: null, count: null, names: null, seats: [], standIn: new StandIn(), version: 0, view: null, shown: null, claim: null, end: null, opened: null, rematch: null, asking: null };

// A settled match is asked for its rematch this often, for as long as an offer may stand
// (the socket cannot say: the rematch starts on a table, not on this match).
const REMATCH_EVERY_MS = 5000;
const REMATCH_ASKS = 120;
// Spectators come and go on every server process, and no frame says so: the count read as
// the page opened stood for ever ("1 spectator watching" with two there). Asked this often.
const SPECTATORS_EVERY_MS = 10000;
const WATCH_NOTE = '#watch-connection-note';

export function closeWatch() {
  watching.shown = null;
  watching.view = null;
  if (watching.asking) watching.asking.stop();
  watching.asking = null;
  if (watching.feed) closeChat();
  if (watching.feed) watching.feed.close();
  watching.feed = null;
  noteUnreachable(false, WATCH_NOTE);
  hideClock('watch');
}

export async function showWatch(root, matchId, code) {
  closeWatch();
  const shown = (watching.shown = {}); // this showing's mark: the screen may be left meanwhile
  watching.standIn = new StandIn();
  watching.claim = null;
  watching.end = null;
  watching.opened = { matchId, code, shown };
  watching.rematch = null;
  fill(root, h('p', {}, 'Connecting…'));
  try {
    const first = await api.spectate(matchId, code);
    if (watching.shown !== shown) return; // left (or shown again): no socket, no asking
    watching.count = first.spectators;
    learnSeats(first.seats);
    watching.rematch = first.rematch;
    render(root, first.view, null);
    if (first.view.settlement) askForRematch(root, matchId, code, shown);
  } catch (err) {
    if (watching.shown !== shown) return;
    fill(root, h('p', { 'data-testid': 'watch-error' }, watchError(err, code)));
    return;
  }
  const query = code ? `?watch_code=${encodeURIComponent(code)}` : '';
  const path = `/v1/matches/${encodeURIComponent(matchId)}/watch${query}`;
  watching.feed = new LiveFeed(matchId, null, (frame) => {
    chatFrame(frame);
    if ((frame.type === 'snapshot' || frame.type === 'event') && frame.view) {
      render(root, frame.view, frame.type === 'event' ? frame.event : null);
      if (frame.view.settlement) askForRematch(root, matchId, code, shown);
    }
    // A seat's player renamed: the screen and the chat name them anew, no reload. The
    // socket sends the seats as it starts too: the names shown already change nothing.
    if (frame.type === 'seats') renamedInAnswer(root, frame.seats);
    if (frame.type === 'snapshot') {
      // Now this page counts too: ask how many watch, on every server process. Its names
      // are not taken while the socket is open (its seats frames are newer news): an
      // answer read before a rename could land after the rename's frame and undo it.
      api.spectate(matchId, code).then((now) => {
        if (watching.feed !== feed) return;
        showCount(root, now.spectators);
      }).catch(() => {});
    }
  }, path);
  const feed = watching.feed;
  pollWhileVisible(async () => {
    const now = await api.spectate(matchId, code);
    if (watching.feed !== feed) return;
    showCount(root, now.spectators);
    if (!feed.open) renamedInAnswer(root, now.seats); // no socket to send a seats frame
  }, { every: SPECTATORS_EVERY_MS, first: SPECTATORS_EVERY_MS, alive: () => watching.feed === feed });
  // The chat's history first: the socket then asks for every message after it.
  const chatRead = openChat(root.parentElement, { matchId, seats: watching.seats, watchCode: code });
  connectAfterHistory(feed, matchId, chatRead, () => watching.feed === feed);
  // Without the socket (a proxy may refuse it) the match is asked for instead.
  feed.onOpen = () => watching.feed === feed && noteUnreachable(false, WATCH_NOTE);
  whileSocketDown(feed, async () => {
    let now;
    try {
      now = await api.spectate(matchId, code);
    } catch (err) {
      if (unreachable(err) && watching.feed === feed && !feed.open) noteUnreachable(true, WATCH_NOTE);
      throw err;
    }
    if (watching.feed === feed) noteUnreachable(false, WATCH_NOTE);
    if (watching.feed !== feed || feed.open) return;
    renamedInAnswer(root, now.seats);
    chatCatchUp();
    if (now.view.version > watching.version) render(root, now.view, null);
  }, () => watching.feed === feed);
}

/** Who sits where (the answer's ``seats``, or a ``seats`` frame after a rename). */
function learnSeats(seats) {
  watching.seats = seats;
  watching.names = seats.map((ref) => refName(ref, seats));
}

/** A ``seats`` frame, or a later answer's ``seats`` while the socket is down (a rename
 * whose frame this page missed is shown all the same; the socket sends the seats again as
 * it reconnects): the screen and the chat are named anew only if a name changed. */
function renamedInAnswer(root, seats) {
  if (!Array.isArray(seats) || !watching.names) return;
  if (seats.every((ref, i) => refName(ref, seats) === watching.names[i])) return;
  learnSeats(seats);
  renameChatSeats(seats);
  if (watching.view) render(root, watching.view, null);
}

/** How many watch now (this page too), on the screen as it is drawn. */
function showCount(root, count) {
  watching.count = count;
  const el = root.querySelector('[data-testid=spectators]');
  if (el) fill(el, `${plural(count, 'spectator')} watching`);
}

/** Once the match is settled, ask (while the screen shows it) whether its players
 * started a rematch anyone may watch, and link to it when they have. */
function askForRematch(root, matchId, code, shown) {
  if (watching.asking || watching.rematch) return;
  let asked = 0;
  watching.asking = pollWhileVisible(async (handle) => {
    const now = await api.spectate(matchId, code);
    if (++asked >= REMATCH_ASKS) handle.stop();
    if (!now.rematch) return;
    handle.stop();
    watching.rematch = now.rematch;
    const el = root.querySelector('[data-testid=watch-rematch]');
    if (!el) root.append(rematchLink());
  }, { every: REMATCH_EVERY_MS, first: REMATCH_EVERY_MS, alive: () => watching.shown === shown });
}

const rematchLink = () => h(
  'p',
  { 'data-testid': 'watch-rematch' },
  'They are playing again: ',
  h('a', { href: `#/watch/${encodeURIComponent(watching.rematch)}` }, 'watch the rematch'),
  '.',
);

/** Why the match cannot be watched; a private match's refusal in the page's own words
 * (the problem's title and detail say the same thing twice). */
function watchError(err, code) {
  if (!(err && err.problem && err.problem.rule === 'watch_code_required')) return problemText(err);
  return code
    ? 'This link\'s watch code is not this match\'s: ask one of its players for the watch link again.'
    : 'This match is private: it is watched only with the watch link one of its players shares (the link ends with its watch code).';
}

function seatLabel(view, seat) {
  if (watching.names) return watching.names[seat];
  const raw = view.players[seat];
  return raw.startsWith('ai:') ? `Computer (${raw.slice(3)})` : `Seat ${seat + 1}`;
}

/** A seat's name with its score: a spectator cannot tell "12 : 30" apart by seat. */
const seatScore = (names, view, seat) => h('span', { 'data-testid': `watch-score-${seat}` }, names[seat], ' ', h('b', {}, view.scores[seat]));

const melds = (list) => list.map((m) => m.map(cardName).join(' ')).join(' · ');

/** The knocker's melds as knocked (the knock event's), its deadwood (public once
 * knocked: the spectator was told "knocked with 10 deadwood" and never shown which), and
 * the defender's layoffs apart: ``knock_melds`` grows with each layoff, so it showed the
 * defender's cards as the knocker's. */
function knockLines(view, names) {
  const knocker = view.knock.seat;
  const deadwood = view.knock.deadwood;
  return [
    h('p', { 'data-testid': 'watch-knock' }, `${names[knocker]} ${KIND[view.knock.kind]}: ${melds(view.knock.melds)}`),
    deadwood.length
      ? h('p', { 'data-testid': 'watch-knock-deadwood' }, `${names[knocker]}'s deadwood (${view.knock.deadwood_points}): ${deadwood.map(cardName).join(' ')}`)
      : null,
    view.layoffs.length
      ? h('p', { 'data-testid': 'watch-layoffs' }, `Laid off by ${names[1 - knocker]}: ${view.layoffs.map(([card]) => cardName(card)).join(' ')}`)
      : null,
  ];
}

/** How the match ended, first shown with ``event`` (null: not seen live). A claim settles
 * as the absent seat's resignation, and only the log says it was one: seen live, its
 * ``match_claimed`` frame came just before (``watching.claim``); otherwise (the match opened
 * over, or ended while the socket was down) the log's last events are looked up, the
 * watch-over line said anew once they are known. */
function learnEnd(root, view, event) {
  const s = view.settlement;
  const early = s.resigned !== null && s.resigned !== undefined;
  if (!early || event || watching.claim) {
    watching.end = { claim: watching.claim, known: true };
    return;
  }
  const end = (watching.end = { claim: null, known: false });
  const { matchId, code, shown } = watching.opened;
  lookUpClaim(matchId, view, code).then((found) => {
    if (watching.shown !== shown || watching.end !== end || !found.known) return; // unknown: as it is
    Object.assign(end, found);
    const el = root.querySelector('[data-testid=watch-over]');
    if (el && watching.view) fill(el, overText(watching.view, [seatLabel(watching.view, 0), seatLabel(watching.view, 1)]));
  });
}

/** The watch-over line: who won and the score, with who resigned or was claimed from once
 * known (while the claim is looked up, or if that failed, neither: never a claim told as
 * a resignation). */
function overText(view, names) {
  const end = watching.end || { claim: null, known: false };
  return settledWords(view.settlement, names, null, { claim: watching.claim || end.claim, known: end.known });
}

function render(root, view, event) {
  const spectators = watching.count;
  watching.version = view.version;
  watching.view = view;
  document.body.dataset.version = String(view.version);
  document.body.dataset.phase = view.phase;
  const names = [seatLabel(view, 0), seatLabel(view, 1)];
  const top = view.discard_pile[view.discard_pile.length - 1];
  // Between hands the seats are to say "ready", not to play, and the hand just ended is
  // shown as its players see it: both hands, the layoffs and the count (all public now).
  const over = handIsOver(view);
  const ended = handJustEnded(view);
  // The screen is drawn anew at each event: its move is told to screen readers apart.
  if (event && event.type === 'match_claimed') watching.claim = event; // its resignation is a claim
  if (view.settlement && !watching.end) learnEnd(root, view, event);
  const said = event ? narrate(event, names, null, watching.claim, watching.standIn.made(event)) : null;
  if (said) announce(said);
  fill(
    root,
    h('h1', {}, `Watching: ${names[0]} against ${names[1]}`),
    spectators !== null ? h('p', { class: 'hint', 'data-testid': 'spectators' }, `${plural(spectators, 'spectator')} watching`) : null,
    h(
      'p',
      { 'data-testid': 'watch-score' },
      'Score: ',
      seatScore(names, view, 0),
      ' · ',
      seatScore(names, view, 1),
      ` · hand ${view.hand_number}`,
    ),
    h(
      'ul',
      { 'data-testid': 'watch-seats' },
      [0, 1].map((seat) =>
        h(
          'li',
          { class: view.to_act.includes(seat) ? 'acting' : '' },
          `${names[seat]}: ${plural(view.card_counts[seat], 'card')}`,
          view.to_act.includes(seat) && !over ? ' · to play' : '', // said, not only a class no style showed
          view.known[seat].length ? ` (shown: ${view.known[seat].map(cardName).join(' ')})` : '',
        ),
      ),
    ),
    h('div', { class: 'piles' }, h('span', {}, `Stock ${view.stock_size}`), top ? cardFace(top) : h('span', {}, 'empty pile')),
    view.knock && !ended ? knockLines(view, names) : null, // the result shows them once the hand ends
    // The match's end is said once, in watch-over, not again as the last move's words.
    event && !(view.settlement && event.type === 'match_settled') ? h('p', { class: 'narration', 'data-testid': 'watch-narration' }, said) : null,
    ended ? resultPanel({ ...view, players: names }, ended, view.knock, null, { showScores: false }) : null,
    view.settlement ? h('p', { 'data-testid': 'watch-over' }, overText(view, names)) : null,
    view.settlement && watching.rematch ? rematchLink() : null,
  );
  showClock('watch', root.appendChild(h('p', { class: 'clock', 'data-testid': 'watch-clock' })), view, names);
}
