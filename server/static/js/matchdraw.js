// Drawing the match's table from the page's state (matchstate.js), keeping a keyboard
// player's place: every redraw replaces the table's buttons and cards, so the focused one
// is found again in the new table, or the player's next step is focused.
import { $ } from './dom.js';
import { dragging } from './arrange.js';
import { awayNote, claimOffer } from './claim.js';
import { pref } from './prefs.js';
import { renderTable } from './table.js';
import { game } from './matchstate.js';
import { noticeAway, noticeClaim, noticeProgress } from './tablenotices.js';

/** Keep the chosen card if it can still be discarded; with hints on, suggest the engine's
 * best discard (when the server sent one); otherwise the player chooses. A suggested card
 * is marked (``ui.suggested``): the page chose it, not the player, so a click on it only
 * chooses it (hand.js), where it counted as the first of the two clicks that discard and
 * one tap threw away the gin or knock the hint named. */
export function chooseSelection(view) {
  const discards = view.legal.filter((c) => c.type === 'discard').map((c) => c.card);
  if (!discards.length) {
    game.ui.selected = null;
    game.ui.suggested = false;
    return;
  }
  if (discards.includes(game.ui.selected)) return;
  const best = pref('hints') && view.best_discard ? view.best_discard[0] : null;
  game.ui.selected = discards.includes(best) ? best : null;
  game.ui.suggested = game.ui.selected !== null;
}

export function draw() {
  if (!game.view) return;
  if (dragging()) return; // redrawn when the card is put down
  game.ui.claim = claimOffer(game.view, { againstHouse: game.againstHouse, status: game.claimStatus });
  game.ui.away = game.ui.claim ? null : awayNote(game.view, { againstHouse: game.againstHouse, status: game.claimStatus });
  noticeClaim(game.ui.claim);
  noticeAway(game.ui.away);
  noticeProgress(game.matchId, game.view);
  const active = document.activeElement;
  const focused = active && active.dataset ? active.dataset.card : null;
  const control = focused ? null : controlKey(active);
  // Redrawing replaces the buttons: a keyboard player on the table keeps a place there.
  if (active && active !== document.body) game.ui.onTable = $('#screen-table').contains(active);
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

/** Whether the page is busy with the match (a play-out, an action on its way, its first
 * view not drawn), told in ``data-busy`` for whoever waits for it to settle; the table's
 * buttons are redrawn disabled while it is. */
export function setBusy() {
  const busy = game.running || game.inFlight || Boolean(game.open && game.open.loading);
  document.body.dataset.busy = String(busy);
  if (game.ui.busy !== busy && game.view) {
    game.ui.busy = busy;
    draw();
  }
  game.ui.busy = busy;
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

/** Focus what the player does next: the chosen card, else the first action, else the turn
 * line. Resign is never a next step: while the opponent played it was the only button
 * enabled, so a keyboard player waited on it (one Enter from resigning), and a redraw
 * keeps a focused Resign, so the turn that came never took the focus to its actions. */
export function focusNextStep() {
  const target =
    $(`#hand [data-card="${game.ui.selected}"]:not([disabled])`) ||
    $('#hand .card.playable') ||
    $('#actions button:not([disabled]):not([data-nav=resign])') ||
    $('#turn');
  target.focus({ preventScroll: true });
}
