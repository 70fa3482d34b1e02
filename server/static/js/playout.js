// The play-out of a match's events, one at a time: the WebSocket (when up) brings each
// event with the view after it, and an action's answer brings its events too; each is
// queued once, whichever channel brought it first, told in words, and shown after a
// pause (the opponent's moves one by one). Without the socket the answer alone is used
// (the moves are then told in words, the table jumps to the end).
import { $, sleep } from './dom.js';
import { ApiError } from './api.js';
import { chatFrame, renameChatSeats } from './chat.js';
import { savedOrder } from './arrange.js';
import { showClock } from './clock.js';
import { isMove } from './standin.js';
import { standInMoves } from './movelist.js';
import { problemText, toast } from './ui.js';
import { narrate } from './words.js';
import { game, remember, renameSeats, say, seatsRenamed } from './matchstate.js';
import { chooseSelection, draw, setBusy } from './matchdraw.js';
import { learnEnd, PRESENCE_FRAMES, presenceFrame, sayHowItEnded, watchClaim } from './claimwatch.js';
import { watchRematchOffer } from './rematch.js';

const params = new URLSearchParams(location.search);
/** Pause before each of the opponent's moves, in ms (`?delay=` shortens it, for tests). */
const DELAY = Math.max(0, Number(params.get('delay') ?? 650));

/** A frame of the match's socket (match.js opens it). */
export function onFrame(frame) {
  if (frame.type === 'snapshot') {
    remember(frame.view);
    if (!game.running && !game.inFlight && game.view && frame.view.version > game.view.version) {
      game.maxQueued = Math.max(game.maxQueued, frame.view.version);
      showView(frame.view, null);
      // Settled: how the match ended, not the last move told before the jump (a socket
      // back far behind is sent a snapshot, not the events it missed; socketless.js's too).
      if (frame.view.settlement) sayHowItEnded(frame.view);
    }
  } else if (frame.type === 'event') {
    remember(frame.view);
    offer(frame.version, frame.event);
  } else if (frame.type === 'chat') {
    chatFrame(frame);
  } else if (frame.type === 'seats') {
    // Sent as the socket starts too: the names the page has already change nothing.
    if (!seatsRenamed(frame.seats)) return;
    renameSeats(frame.seats);
    renameChatSeats(frame.seats);
    draw();
  } else if (PRESENCE_FRAMES.has(frame.type)) {
    presenceFrame(frame);
  } else if (frame.type === 'error' && frame.problem) {
    toast(problemText(new ApiError(frame.problem.status || 0, frame.problem, null, frame.retry_after ?? null)));
  }
}

/** Queue an event to be shown, once, whichever channel brought it first. */
export function offer(version, event) {
  if (version <= game.maxQueued) return;
  game.maxQueued = version;
  game.queue.push({ version, event });
  playOut();
}

const mine = (event) => event.seat !== undefined && game.view && event.seat === game.view.seat;

function flashFor(event, me) {
  const theirs = event.seat !== undefined && event.seat !== me;
  switch (event.type) {
    case 'discarded':
      return [theirs ? 'opp-discard' : 'my-discard', event.card];
    case 'drew':
      if (theirs) return [event.source === 'stock' ? 'opp-draw-stock' : 'opp-draw-pile', event.card];
      return ['my-draw', event.card];
    case 'up_card_taken':
      return [theirs ? 'opp-draw-pile' : 'my-draw', event.card];
    case 'knocked':
      return ['knock', null];
    default:
      return [null, null];
  }
}

// How long a step of the play-out waits for the socket to bring the view after it. An
// answer to our own move carries only the last view; the steps between (the AI's draw,
// then its discard) come with the socket's frames, which on a busy server can arrive
// after the answer. Without the wait such a step was skipped, not shown.
const VIEW_WAIT_MS = 1000;

/** The view after ``version``, from either channel; while the socket is up, wait a little for it. */
async function viewAt(version, open) {
  const until = Date.now() + VIEW_WAIT_MS;
  while (!game.views.has(version) && game.open === open && game.feed && game.feed.open && Date.now() < until) {
    await sleep(20);
  }
  return game.views.get(version);
}

async function playOut() {
  const open = game.open;
  if (game.running || !open) return;
  game.running = true;
  setBusy();
  try {
    while (game.queue.length) {
      const { version, event } = game.queue.shift();
      if (!mine(event)) await sleep(event.seat === undefined ? DELAY / 2 : DELAY);
      if (game.open !== open) return; // the page left this match while it slept
      if (!game.view) break;
      if (event.type === 'match_claimed') Object.assign(game.ui, { claimed: event, claimKnown: true });
      const standIn = game.standIn.made(event);
      say(narrate(event, game.view.players, game.view.seat, game.ui.claimed, standIn));
      const view = await viewAt(version, open);
      if (game.open !== open) return;
      if (view && view.version > game.view.version) showView(view, event, standIn && isMove(event));
    }
    if (game.latest && game.view && game.latest.version > game.view.version) showView(game.latest, null);
  } finally {
    if (game.open === open) {
      game.running = false;
      setBusy();
    }
  }
}

/** After an action's answer: the newest view known, unless a play-out is showing it. */
export function catchUp() {
  if (!game.running && game.latest && game.view && game.latest.version > game.view.version) showView(game.latest, null);
}

/** ``standIn``: ``event`` is a move the server made for a timed-out seat (the view's
 * newest move). */
export function showView(view, event, standIn = false) {
  const moved = !game.view || view.version !== game.view.version;
  game.view = view;
  noteStandIn(view, standIn);
  const hand = `${game.matchId}:${view.hand_number}`;
  if (game.ui.orderOf !== hand) {
    game.ui.order = savedOrder(hand);
    game.ui.orderOf = hand;
  }
  const [flash, card] = event ? flashFor(event, view.seat) : [null, null];
  game.ui.flash = flash;
  game.ui.flashCard = card;
  game.ui.fresh = flash === 'my-draw' ? card : null;
  chooseSelection(view);
  draw();
  if (view.phase === 'match_over') watchRematchOffer();
  if (moved) watchClaim(view);
  showClock('match', clockElement(), view, view.players, view.seat);
  if (view.settlement) learnEnd(view);
}

/** The moves of the hand on the table that the server made for a timed-out seat: the
 * view's clock lists them all; a view without one (an older event frame's) keeps those
 * known, and the move just shown if the stand-in made it. */
function noteStandIn(view, newest) {
  const hand = `${game.matchId}:${view.hand_number}`;
  if (game.standInOf !== hand || view.clock) game.ui.standIn = standInMoves(view);
  game.standInOf = hand;
  if (newest && view.moves.length) game.ui.standIn.add(view.moves.length - 1);
}

/** The countdown's line, made once above the table (a match without a clock hides it). */
function clockElement() {
  let el = $('#clock');
  if (!el) {
    el = document.createElement('p');
    Object.assign(el, { id: 'clock', className: 'clock', hidden: true });
    el.dataset.testid = 'clock';
    $('#scorebar').after(el);
  }
  return el;
}
