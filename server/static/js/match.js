// The match on the table: its views, the play-out of events one at a time, and the
// player's actions. Actions go over HTTP; the WebSocket (when up) brings each event with
// the view after it, so the opponent's moves are shown one by one. Without it the HTTP
// answer alone is used (the moves are then told in words, the table jumps to the end).
import { $, $$, fill, sleep } from './dom.js';
import { api, ApiError, forgetPlayer, savedPlayer, saveMatch } from './api.js';
import { LiveFeed } from './live.js';
import { chatFrame, closeChat, openChat } from './chat.js';
import { describeMove, findLegal, renderTable, standInMoves } from './table.js';
import { StandIn, isMove } from './standin.js';
import { cardName } from './cards.js';
import { displayName, narrate } from './words.js';
import { problemText, show, toast } from './ui.js';
import { dragging, enableDrag, moveCard } from './arrange.js';
import { pref, setPref } from './prefs.js';

import { hideClock, showClock } from './clock.js';
import { rememberTable, rememberWatchCode, showWatchLink } from './share.js';
import { askAgainIn, askClaim, claimOffer, findClaim, opponentToAct } from './claim.js';
import { ratingChange, ratingChangeText } from './ratingchange.js';
import { isolate, refName } from './names.js';

const params = new URLSearchParams(location.search);
/** Pause before each of the opponent's moves, in ms (`?delay=` shortens it, for tests). */
const DELAY = Math.max(0, Number(params.get('delay') ?? 650));

const game = {
  matchId: null,
  view: null, // the view on screen
  latest: null, // the newest view known from any source
  views: new Map(), // version → view, from the WebSocket
  queue: [], // events still to show
  maxQueued: 0,
  running: false,
  inFlight: false,
  // The match on the table: a token made by each openMatch and dropped by closeMatch.
  // Whatever belongs to a match the page has left (an answer, a play-out still sleeping, a
  // socket frame) compares it and changes nothing. ``loading``: its first view is not drawn.
  open: null,
  feed: null,
  // ``order``: the player's own order of the hand after a drag (null: the chosen sort);
  // ``orderOf``: the match and hand that order belongs to (a new deal starts afresh).
  ui: { selected: null, layout: null, busy: false, flash: null, flashCard: null, fresh: null, onTable: false, confirmResign: false, rematch: null, order: null, orderOf: null, claim: null, claimed: null, rating: null },
  // The answer's ``rated`` and whether a house AI sits (it cannot be claimed from), and the
  // server's latest word on a claim (claim.js; null while nobody keeps us waiting).
  rated: false,
  againstHouse: false,
  claimStatus: null,
  ended: null, // the match whose end (claim, rating change) was looked up
  standIn: new StandIn(), // which events the server made for a timed-out seat
  standInOf: null, // the match and hand ``ui.standIn`` (those moves' indices) belongs to
  names: new Map(), // player id → the name shown (people's names; bots and the computer marked)
};

/** The names of the seats, from the answer's ``seats``: bots and the house AI marked. */
function learnNames(seats) {
  for (const ref of seats || []) game.names.set(ref.id, refName(ref));
}


/** The answer of POST /v1/matches, so opening the new match needs no second request. */
export function expectMatch(started) {
  game.pending = started;
}

/** Leave the table: the match's socket, play-out, clock and pending answers stop here, so
 * nothing redraws the hidden table (its Verify button, shared with the history row, would
 * be taken from the screen shown) and the page is not busy with a match it left. */
export function closeMatch() {
  if (game.matchId) closeChat();
  if (game.feed) game.feed.close();
  game.feed = null;
  fill($('#share'));
  game.matchId = null;
  game.open = null;
  game.view = null;
  game.latest = null;
  game.running = false; // a play-out or an action still on its way ends at its next step
  game.inFlight = false;
  hideClock('match');
  setBusy();
  game.queue = [];
  game.views.clear();
  game.ui.confirmResign = false;
  game.ui.rematch = null;
  clearTimeout(game.rematchTimer);
  clearTimeout(game.claimTimer);
  Object.assign(game.ui, { claim: null, claimed: null, rating: null });
  Object.assign(game, { rated: false, againstHouse: false, claimStatus: null, ended: null, standIn: new StandIn(), standInOf: null });
  game.ui.standIn = null;
  clearTimeout(game.offerTimer);
  game.offerWatch = null;
}

/** Open match ``id`` on the table. Until its first view is drawn the page says it is
 * busy (``data-busy``): the table screen shows at once, and whoever waits for the page to
 * settle (a test, an assistive tool) must not read the empty or previous table. An answer
 * that comes back after the page moved on (another screen, another match) is dropped. */
export async function openMatch(id) {
  if (game.open && game.open.id === id && (game.view || game.open.loading)) {
    show('table');
    return game.view;
  }
  closeMatch();
  const player = savedPlayer();
  if (!player) {
    location.hash = '#/';
    return;
  }
  game.matchId = id;
  const open = (game.open = { id, loading: true });
  setBusy();
  show('table');
  try {
    const data = game.pending && game.pending.match_id === id ? game.pending : await api.getMatch(id);
    if (game.open !== open) return; // left for another screen or match meanwhile
    game.pending = null;
    learnNames(data.seats);
    rememberWatchCode(id, data.watch_code);
    game.rated = Boolean(data.rated);
    game.againstHouse = (data.seats || []).some((ref) => ref.kind === 'ai');
    saveMatch(id);
    remember(data.view);
    game.maxQueued = data.view.version;
    showView(data.view, null);
    const active = document.activeElement;
    if (!active || active === document.body || !active.offsetParent) {
      game.ui.onTable = true; // e.g. the start form's Enter: its field is gone, the table is here
      focusNextStep();
    }
    const moves = data.view.moves;
    const last = moves.length - 1;
    say(moves.length ? describeMove(data.view, moves[last], game.ui.standIn.has(last)) : `Hand ${data.view.hand_number} is dealt.`);
    game.feed = new LiveFeed(id, player.token, (frame) => game.open === open && onFrame(frame));
    game.feed.lastVersion = data.view.version;
    game.feed.connect();
    showWatchLink($('#share'), id, () => game.open === open);
    if ((data.seats || []).every((ref) => ref.kind !== 'ai')) openChat($('#screen-table'), { matchId: id, seat: data.seat, seats: data.seats });
  } catch (err) {
    if (game.open !== open) return;
    if (err instanceof ApiError && (err.status === 404 || err.status === 401 || err.status === 403)) {
      saveMatch(null);
      if (err.status === 401) forgetPlayer();
      toast(problemText(err));
      location.hash = '#/';
      return;
    }
    toast(problemText(err));
  } finally {
    if (game.open === open) {
      open.loading = false;
      setBusy();
    }
  }
  return game.open === open ? game.view : null;
}

function remember(view) {
  if (!view) return;
  const me = savedPlayer();
  view.players = view.players.map((p) => (me && p === me.id ? isolate(me.name) : game.names.get(p) || displayName(p, me)));
  game.views.set(view.version, view);
  if (!game.latest || view.version > game.latest.version) game.latest = view;
}

function onFrame(frame) {
  if (frame.type === 'snapshot') {
    remember(frame.view);
    if (!game.running && !game.inFlight && game.view && frame.view.version > game.view.version) {
      game.maxQueued = Math.max(game.maxQueued, frame.view.version);
      showView(frame.view, null);
    }
  } else if (frame.type === 'event') {
    remember(frame.view);
    offer(frame.version, frame.event);
  } else if (frame.type === 'chat') {
    chatFrame(frame);
  } else if (frame.type === 'error' && frame.problem) {
    toast(problemText(new ApiError(frame.problem.status || 0, frame.problem)));
  }
}

/** Queue an event to be shown, once, whichever channel brought it first. */
function offer(version, event) {
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
      if (event.type === 'match_claimed') game.ui.claimed = event;
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

function say(text) {
  fill($('#narration'), text);
}

function setBusy() {
  const busy = game.running || game.inFlight || Boolean(game.open && game.open.loading);
  document.body.dataset.busy = String(busy);
  if (game.ui.busy !== busy && game.view) {
    game.ui.busy = busy;
    draw();
  }
  game.ui.busy = busy;
}

/** ``standIn``: ``event`` is a move the server made for a timed-out seat (the view's
 * newest move). */
function showView(view, event, standIn = false) {
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

/** While the opponent keeps the table waiting (never the house AI), ask the server
 * whether it would accept a claim: at each new view, again and again while it waits
 * (the opponent may leave or come back), and at the moment the server said a claim by
 * absence would be accepted. A tab nobody looks at asks nothing until it is looked at. */
function watchClaim(view) {
  clearTimeout(game.claimTimer);
  game.claimStatus = null;
  if (game.againstHouse || !opponentToAct(view)) return;
  followClaim(game.open, view.version);
}

async function followClaim(open, version) {
  const current = () => game.open === open && game.view && game.view.version === version;
  if (!current()) return;
  if (!document.hidden) {
    const status = await askClaim(open.id, version).catch(() => null);
    if (!current()) return; // a newer view asks for itself
    game.claimStatus = status;
    if (claimOffer(game.view, { againstHouse: game.againstHouse, status }) !== game.ui.claim) draw();
  }
  clearTimeout(game.claimTimer);
  game.claimTimer = setTimeout(() => followClaim(open, version), askAgainIn(game.claimStatus));
}

document.addEventListener('visibilitychange', () => {
  if (!document.hidden && game.open && game.view && !game.againstHouse && opponentToAct(game.view)) {
    clearTimeout(game.claimTimer);
    followClaim(game.open, game.view.version);
  }
});

/** Once a match is over: whether it was claimed, and the viewer's rating change in a rated
 * one (the header's rating is redrawn too). Looked up once per match; drawn when known. */
async function learnEnd(view) {
  const open = game.open;
  if (!open || game.ended === open) return;
  game.ended = open;
  const me = savedPlayer();
  const [claimed, change] = await Promise.all([
    game.ui.claimed ? game.ui.claimed : findClaim(open.id, view).catch(() => null),
    game.rated && me ? ratingChange(me.id, open.id).catch(() => null) : null,
  ]);
  if (game.open !== open) return;
  game.ui.claimed = claimed;
  game.ui.rating = change ? ratingChangeText(change) : null;
  draw();
  if (change) document.dispatchEvent(new CustomEvent('ginrummy:rating-changed'));
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

/** Keep the chosen card if it can still be discarded; with hints on, suggest the engine's
 * best discard (when the server sent one); otherwise the player chooses. */
function chooseSelection(view) {
  const discards = view.legal.filter((c) => c.type === 'discard').map((c) => c.card);
  if (!discards.length) {
    game.ui.selected = null;
    return;
  }
  if (discards.includes(game.ui.selected)) return;
  const best = pref('hints') && view.best_discard ? view.best_discard[0] : null;
  game.ui.selected = discards.includes(best) ? best : null;
}

function draw() {
  if (!game.view) return;
  if (dragging()) return; // redrawn when the card is put down
  game.ui.claim = claimOffer(game.view, { againstHouse: game.againstHouse, status: game.claimStatus });
  const active = document.activeElement;
  const focused = active && active.dataset ? active.dataset.card : null;
  const control = focused ? null : controlKey(active);
  // Redrawing replaces the buttons: a keyboard player on the table keeps a place there.
  if (active && active !== document.body) game.ui.onTable = $('#screen-table').contains(active);
  if (game.view.phase === 'match_over') watchRematchOffer();
  renderTable(game.view, game.ui);
  // An animation plays once, when its event is shown, not again on the next redraw.
  game.ui.flash = null;
  game.ui.fresh = null;
  const again =
    (focused && $(`#hand [data-card="${focused}"]:not([disabled])`)) ||
    (control && $(`#screen-table ${control}:not([disabled])`));
  if (again) again.focus();
  else if (game.ui.onTable && (document.activeElement === $('#turn') || !$('#screen-table').contains(document.activeElement))) {
    focusNextStep();
  }
}

/** The control a redraw replaces, found again in the new table: a Sort button, a tick
 * box, the layout chosen, Resign (and its "Really?"), a rematch button. Focus went to a
 * card instead, and a keyboard player had to find their place again. Null for the
 * actions of a turn: once used, the next step is focused (focusNextStep). */
function controlKey(el) {
  if (!el || !el.dataset || !$('#screen-table').contains(el)) return null;
  const d = el.dataset;
  if (d.sort) return `[data-sort="${d.sort}"]`;
  if (d.pref) return `[data-pref="${d.pref}"]`;
  if (d.layout) return '[data-layout][aria-checked=true]';
  if (d.nav) return `[data-nav="${d.nav}"]`;
  return null;
}

/** Focus what the player does next: the chosen card, else the first action, else the turn line. */
function focusNextStep() {
  const target =
    $(`#hand [data-card="${game.ui.selected}"]:not([disabled])`) ||
    $('#hand .card.playable') ||
    $('#actions button:not([disabled])') ||
    $('#turn');
  target.focus({ preventScroll: true });
}

async function act(action) {
  const open = game.open;
  if (game.inFlight || game.running || !game.view || !open) return false;
  game.inFlight = true;
  setBusy();
  const base = game.latest || game.view;
  try {
    const answer = await api.act(open.id, action, base.version);
    if (game.open !== open) return false; // the answer of a match the page has left
    remember(answer.view);
    for (const item of answer.events) offer(item.version, item.event);
    return true;
  } catch (err) {
    if (game.open !== open) return false;
    toast(problemText(err));
    if (err instanceof ApiError && err.status === 409) {
      const fresh = await api.getMatch(open.id).catch(() => null);
      if (fresh && game.open === open) {
        remember(fresh.view);
        game.maxQueued = Math.max(game.maxQueued, fresh.view.version);
        showView(fresh.view, null);
      }
    }
    return false;
  } finally {
    if (game.open === open) {
      game.inFlight = false;
      setBusy();
      if (!game.running && game.latest && game.view && game.latest.version > game.view.version) showView(game.latest, null);
    }
  }
}

const settled = async () => {
  while (game.running || game.inFlight) await sleep(20);
};

/** "Lay off the best": the engine's suggested layoffs one by one, then finish. */
async function layOffBest() {
  for (let guard = 0; guard < 12; guard++) {
    await settled();
    const view = game.latest;
    if (!view || view.phase !== 'layoff' || !view.to_act.includes(view.seat)) return;
    const plan = view.suggested_layoffs;
    const next = plan && plan.layoffs.find(([card, meld]) => findLegal(view, 'lay_off', { card, meld }));
    const ok = next
      ? await act({ type: 'lay_off', card: next[0], meld: next[1] })
      : await act({ type: 'finish_layoffs' });
    if (!ok || !next) return;
  }
}

function runAction(el) {
  const action = JSON.parse(el.dataset.action);
  if (action === 'layoff-best') return layOffBest();
  return act(action);
}

export function onTableClick(event) {
  const nav = event.target.closest('[data-nav]');
  if (nav) {
    if (nav.dataset.nav === 'new') location.hash = '#/';
    if (nav.dataset.nav === 'replay') location.hash = `#/replay/${encodeURIComponent(game.matchId)}`;
    if (nav.dataset.nav === 'resign') resign();
    if (nav.dataset.nav === 'rematch') rematch();
    if (nav.dataset.nav === 'claim') claim();
    if (nav.dataset.nav === 'rematch-decline') declineRematch();
    return;
  }
  if (game.ui.confirmResign) {
    game.ui.confirmResign = false; // a click elsewhere calls the resignation off
    draw();
  }
  const layoutEl = event.target.closest('[data-layout]');
  if (layoutEl && game.ui.selected) {
    game.ui.layout = { card: game.ui.selected, index: Number(layoutEl.dataset.layout), version: game.view.version };
    draw();
    return;
  }
  const actionEl = event.target.closest('[data-action]');
  if (actionEl && !actionEl.disabled) return runAction(actionEl);
  const sortEl = event.target.closest('[data-sort]');
  if (sortEl) {
    game.ui.order = null; // a sort replaces the player's own order
    sessionStorage.removeItem(ORDER_KEY);
    setPref('sort', sortEl.dataset.sort);
    draw();
    return;
  }
  const prefEl = event.target.closest('input[data-pref]');
  if (prefEl) {
    setPref(prefEl.dataset.pref, prefEl.checked);
    if (game.view) chooseSelection(game.view);
    draw();
    return;
  }
  const cardEl = event.target.closest('#hand [data-card]');
  if (cardEl) clickCard(cardEl.dataset.card);
}

/** The player's own order for this hand, kept for this tab (a reload keeps it). */
const ORDER_KEY = 'ginrummy.order';
function savedOrder(hand) {
  try {
    const saved = JSON.parse(sessionStorage.getItem(ORDER_KEY) || 'null');
    return saved && saved.hand === hand ? saved.order : null;
  } catch {
    return null;
  }
}

function reorder(order) {
  game.ui.order = order;
  sessionStorage.setItem(ORDER_KEY, JSON.stringify({ hand: game.ui.orderOf, order }));
}

/** Shift+arrow moves the focused card one place along the hand. */
function shiftCard(card, step) {
  const shown = $$('#hand [data-card]').map((el) => el.dataset.card);
  reorder(moveCard(shown, card, step));
  draw();
  const el = $(`#hand [data-card="${card}"]`);
  if (el) el.focus();
  say(`Moved ${el ? el.getAttribute('aria-label') : card} to place ${game.ui.order.indexOf(card) + 1} of ${shown.length}.`);
}

/** Cards are dragged with Pointer Events (mouse, touch, pen): onto the pile to discard,
 * among the other cards to reorder the hand. */
export function setUpHand() {
  enableDrag($('#hand'), {
    pile: () => $('#piles [data-testid=pile]'),
    onReorder: reorder,
    onDiscard: (card) => {
      if (game.view && findLegal(game.view, 'discard', { card })) act({ type: 'discard', card });
      else if (game.view && game.view.phase === 'discard' && game.view.to_act.includes(game.view.seat)) {
        toast('That card was taken from the pile: it cannot go back this turn.', 'info');
      }
    },
    onEnd: () => draw(),
  });
}

/** What to do before a card can go, on the player's up-card or draw turn (null on any
 * other: between turns a card is only chosen to be moved within the hand). */
function drawFirst(view) {
  if (!view.to_act.includes(view.seat)) return null;
  if (view.phase === 'up_card') return 'Take the up-card (T) or pass (X) first.';
  if (view.phase !== 'draw') return null;
  return findLegal(view, 'draw_discard') ? 'Draw first: stock (S) or pile (P).' : 'Draw first: stock (S).';
}

/** Why D, K or G did nothing: said, not silent. */
function whyNot(view, key) {
  const first = drawFirst(view);
  if (first) return first;
  if (view.phase !== 'discard' || !view.to_act.includes(view.seat)) return null;
  if (!game.ui.selected) return 'Choose a card to discard first: click it, or pick it with ← and →.';
  if (key === 'd') return 'That card cannot be discarded now.';
  if (key === 'k' && view.knock_limit === 0) return 'The knock limit is 0 in this hand: only gin goes out.';
  if (key === 'k') return `You cannot knock discarding ${cardName(game.ui.selected)}: a knock must leave ${view.knock_limit} or less deadwood.`;
  return `You cannot go gin discarding ${cardName(game.ui.selected)}: gin leaves no deadwood at all.`;
}

/** First click chooses a card, a second click on it discards it. */
function clickCard(card) {
  const view = game.view;
  if (!view) return;
  if (view.phase !== 'discard' || !view.to_act.includes(view.seat)) {
    const first = drawFirst(view);
    if (first) toast(first, 'info');
    return;
  }
  if (game.ui.selected === card && findLegal(view, 'discard', { card })) {
    act({ type: 'discard', card });
    return;
  }
  if (view.legal.some((c) => c.card === card)) {
    game.ui.selected = card;
    draw();
    const el = $(`#hand [data-card="${card}"]`);
    if (el) el.focus();
  } else {
    toast('That card was taken from the pile: it cannot go back this turn.', 'info');
  }
}

function moveSelection(step) {
  const view = game.view;
  const cards = $$('#hand [data-card]').map((el) => el.dataset.card);
  if (!view || view.phase !== 'discard' || !view.to_act.includes(view.seat)) {
    // Not choosing a discard: the arrows walk the hand (to pick a card to move).
    const at = cards.indexOf(document.activeElement && document.activeElement.dataset ? document.activeElement.dataset.card : null);
    const el = cards.length ? $(`#hand [data-card="${cards[(at + step + cards.length) % cards.length]}"]`) : null;
    if (el) el.focus();
    return;
  }
  const discards = new Set(view.legal.filter((c) => c.type === 'discard').map((c) => c.card));
  let i = cards.indexOf(game.ui.selected);
  for (let n = 0; n < cards.length; n++) {
    i = (i + step + cards.length) % cards.length;
    if (discards.has(cards[i])) break;
  }
  game.ui.selected = cards[i];
  draw();
  const el = $(`#hand [data-card="${cards[i]}"]`);
  if (el) el.focus();
}

export function onTableKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const tag = (event.target.tagName || '').toLowerCase();
  if (tag === 'input' || tag === 'select' || tag === 'textarea') return;
  if ($('[role=alertdialog]:not([hidden])')) return; // a question is open: it has the keyboard
  const screen = document.body.dataset.screen;
  if (screen === 'replay') return;
  if (screen !== 'table') return;
  const radio = event.target.closest && event.target.closest('#actions [role=radio]');
  if (radio && ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].includes(event.key)) {
    // The knock's layouts are radio buttons: the arrows choose among them (not a card).
    event.preventDefault();
    const all = $$('#actions [role=radio]');
    const step = event.key === 'ArrowLeft' || event.key === 'ArrowUp' ? -1 : 1;
    all[(all.indexOf(radio) + step + all.length) % all.length].click();
    return;
  }
  if (event.key === 'ArrowLeft' || event.key === 'ArrowRight') {
    event.preventDefault();
    const step = event.key === 'ArrowLeft' ? -1 : 1;
    const card = event.target.closest && event.target.closest('#hand [data-card]');
    if (event.shiftKey && card) shiftCard(card.dataset.card, step);
    else moveSelection(step);
    return;
  }
  const key = event.key.length === 1 ? event.key.toLowerCase() : null;
  if (!key) return;
  const button = $(`#screen-table [data-key="${key}"]:not([disabled])`);
  if (button) {
    event.preventDefault();
    button.click();
  } else if (['d', 'k', 'g'].includes(key) && game.view && !game.ui.busy) {
    const why = whyNot(game.view, key);
    if (why) toast(why, 'info');
  }
}

/** Resigning loses the match at once, so the first click only asks. */
async function resign() {
  if (!game.ui.confirmResign) {
    game.ui.confirmResign = true;
    draw();
    return;
  }
  game.ui.confirmResign = false;
  await act({ type: 'resign' });
}

/** Claim the match from an opponent who is not playing it. The answer is the settled view;
 * the socket brings the claim's events. Too early is the server's 409, whose detail says why. */
async function claim() {
  const open = game.open;
  if (game.inFlight || !open) return;
  game.inFlight = true;
  setBusy();
  try {
    const answer = await api.claim(open.id);
    if (game.open !== open) return;
    remember(answer.view);
  } catch (err) {
    if (game.open === open) toast(problemText(err));
  } finally {
    if (game.open === open) {
      game.inFlight = false;
      setBusy();
      if (!game.running && game.latest && game.view && game.latest.version > game.view.version) showView(game.latest, null);
    }
  }
}

/** Offer a rematch (or accept the opponent's); the new match opens once both agree. */
async function rematch() {
  const old = game.matchId;
  try {
    const offer = await api.rematch(old);
    rememberTable(offer); // a private match's rematch is private too, with a code of its own
    if (game.matchId !== old) return; // the page left the match meanwhile
    if (offer.status === 'started') {
      location.hash = `#/match/${encodeURIComponent(offer.match_id)}`;
      return;
    }
    game.ui.rematch = 'offered';
    draw();
    say(`Rematch offered: waiting for ${game.view.players[1 - game.view.seat]} to accept.`);
    const poll = async () => {
      if (game.matchId !== old) return;
      const latest = await api.getRematch(old).catch(() => null);
      rememberTable(latest);
      if (latest && latest.status === 'started') {
        location.hash = `#/match/${encodeURIComponent(latest.match_id)}`;
        return;
      }
      if (latest && latest.status !== 'open') {
        game.ui.rematch = null;
        draw();
        say(`The rematch was ${latest.status}.`);
        return;
      }
      game.rematchTimer = setTimeout(poll, 1000);
    };
    game.rematchTimer = setTimeout(poll, 1000);
  } catch (err) {
    toast(problemText(err));
  }
}

/** At match over, the opponent's rematch offer (GET /v1/matches/ID/rematch), asked for
 * now and every few seconds while the match stays on the table: the offer is shown
 * here, with Accept and Decline, not only in the lobby. */
function watchRematchOffer() {
  const id = game.matchId;
  if (!id || game.offerWatch === id) return;
  game.offerWatch = id;
  const me = (savedPlayer() || {}).id;
  if (game.againstHouse) return; // the house AI offers no rematch: nothing to ask for
  const poll = async () => {
    if (game.matchId !== id) return;
    if (document.hidden) {
      game.offerTimer = setTimeout(poll, 2000); // a tab nobody looks at asks nothing
      return;
    }
    const offer = await api.getRematch(id).catch(() => null);
    if (game.matchId !== id) return;
    const theirs = offer && offer.status === 'open' && offer.host && offer.host.id !== me ? offer : null;
    const shown = game.ui.rematch && game.ui.rematch.offer ? game.ui.rematch.offer.table_id : null;
    if (theirs && shown !== theirs.table_id && game.ui.rematch !== 'offered') {
      game.ui.rematch = { offer: theirs };
      draw();
      say(`${game.view.players[1 - game.view.seat]} offers a rematch.`);
    } else if (!theirs && shown) {
      game.ui.rematch = null; // withdrawn, or expired
      draw();
    }
    game.offerTimer = setTimeout(poll, 2000);
  };
  poll();
}

async function declineRematch() {
  const offer = game.ui.rematch && game.ui.rematch.offer;
  if (!offer) return;
  try {
    await api.declineChallenge(offer.table_id);
    game.ui.rematch = null;
    draw();
    say('You declined the rematch.');
  } catch (err) {
    toast(problemText(err));
  }
}
