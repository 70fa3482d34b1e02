// The match screen's coordinator: opening a match on the table (its first view, its
// socket, its chat and watch link), leaving it, and the table's clicks, each handed to
// the module of its concept. The page's state of the match is matchstate.js's; the
// play-out of its events playout.js's; the player's actions moves.js's; the hand hand.js's
// and its keys tablekeys.js's; the claim claimwatch.js's; the rematch rematch.js's; the
// match while its socket is down socketless.js's.
import { $, fill } from './dom.js';
import { api, ApiError, forgetRefusedPlayer, savedPlayer, saveMatch } from './api.js';
import { LiveFeed, noteUnreachable } from './live.js';
import { closeChat, connectAfterHistory, openChat } from './chat.js';
import { describeMove } from './movelist.js';
import { StandIn } from './standin.js';
import { problemText, show, toast } from './ui.js';
import { forgetOrder } from './arrange.js';
import { setPref } from './prefs.js';
import { hideClock } from './clock.js';
import { rememberWatchCode, showWatchLink } from './share.js';
import { game, learnNames, remember, say } from './matchstate.js';
import { chooseSelection, draw, focusNextStep, setBusy } from './matchdraw.js';
import { onFrame, showView } from './playout.js';
import { claim, keepPlaying, resign, runAction } from './moves.js';
import { clickCard } from './hand.js';
import { chooseLayout } from './knocklayout.js';
import { askOnOpening, forgetPresence, sayHowItEnded, stopClaimWatch } from './claimwatch.js';
import { declineRematch, rematch, stopRematch } from './rematch.js';
import { followWithoutSocket } from './socketless.js';
import { forgetNotices } from './tablenotices.js';

export { onTableKey } from './tablekeys.js';
export { setUpHand } from './hand.js';

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
  game.ui.confirmDiscard = null;
  stopRematch();
  stopClaimWatch();
  forgetNotices();
  noteUnreachable(false);
  Object.assign(game.ui, { claim: null, claimed: null, claimKnown: false, rating: null });
  Object.assign(game, { rated: false, againstHouse: false, claimStatus: null, ended: null, standIn: new StandIn(), standInOf: null });
  game.ui.standIn = null;
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
    open.openedOver = Boolean(data.view.settlement); // its end was not seen here (rematchstream.js)
    open.finishedAtMs = data.finished_at_ms; // when it ended, if it had (rematchstream.js)
    game.maxQueued = data.view.version;
    showView(data.view, null);
    askOnOpening(data.view);
    const active = document.activeElement;
    if (!active || active === document.body || !active.offsetParent) {
      game.ui.onTable = true; // e.g. the start form's Enter: its field is gone, the table is here
      focusNextStep();
    }
    const moves = data.view.moves;
    const last = moves.length - 1;
    if (data.view.settlement) sayHowItEnded(data.view); // not its last hand's last move
    else say(moves.length ? describeMove(data.view, moves[last], game.ui.standIn.has(last)) : `Hand ${data.view.hand_number} is dealt.`);
    game.feed = new LiveFeed(id, player.token, (frame) => game.open === open && (wentBack(frame) ? readAgain(open) : onFrame(frame)));
    game.feed.lastVersion = data.view.version;
    game.feed.onOpen = () => {
      if (game.open !== open) return;
      forgetPresence();
      noteUnreachable(false);
    };
    // The chat's history first: the socket then asks for every message after it.
    const chatRead = openChat($('#screen-table'), { matchId: id, seat: data.seat, seats: data.seats });
    connectAfterHistory(game.feed, id, chatRead, () => game.open === open);
    followWithoutSocket(open);
    showWatchLink($('#share'), id, () => game.open === open);
  } catch (err) {
    if (game.open !== open) return;
    if (err instanceof ApiError && (err.status === 404 || err.status === 401 || err.status === 403)) {
      saveMatch(null);
      if (err.status === 401) forgetRefusedPlayer(err);
      if (err.problem.rule === 'not_your_match') {
        // Someone else's match (a link shared by a player): watched, as anyone may.
        toast('You hold no seat in this match: you are watching it.', 'info');
        location.hash = `#/watch/${encodeURIComponent(id)}`;
        return;
      }
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

/** The socket refused the version on screen as past the match's last: the store went
 * back (restored from a backup, say). The view on screen, and every event and view kept
 * after it, are of a future the store no longer has: a snapshot older than them was not
 * shown, and the moves made from the store's version on were dropped as already queued.
 * The match is read again, as it opens, and shown as the store has it (not the raw
 * refusal, "after: N is past…", which tells the player nothing they can act on). */
const wentBack = (frame) => frame.type === 'error' && Boolean(frame.problem) && frame.problem.rule === 'version_out_of_range';

function readAgain(open) {
  if (game.open !== open) return;
  closeMatch();
  openMatch(open.id);
}

export function onTableClick(event) {
  const nav = event.target.closest('[data-nav]');
  if (nav) {
    if (nav.getAttribute('aria-disabled') === 'true') return; // waiting, kept focusable
    if (nav.dataset.nav === 'new') location.hash = '#/';
    if (nav.dataset.nav === 'replay') location.hash = `#/replay/${encodeURIComponent(game.matchId)}`;
    if (nav.dataset.nav === 'resign') resign();
    if (nav.dataset.nav === 'resign-cancel') keepPlaying();
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
  if (layoutEl && chooseLayout(layoutEl)) return;
  const actionEl = event.target.closest('[data-action]');
  if (actionEl && !actionEl.disabled) return runAction(actionEl);
  const sortEl = event.target.closest('[data-sort]');
  if (sortEl) {
    game.ui.order = null; // a sort replaces the player's own order
    forgetOrder();
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
