// The player's hand on the table: choosing the card to discard (a click, the arrows),
// moving a card within the hand (a drag, Shift+arrow), and saying why a discard, a knock
// or gin did nothing rather than staying silent.
import { $, $$ } from './dom.js';
import { enableDrag, moveCard, saveOrder } from './arrange.js';
import { cardName } from './cards.js';
import { findLegal, forgoes } from './legal.js';
import { toast } from './ui.js';
import { game, say } from './matchstate.js';
import { draw } from './matchdraw.js';
import { act } from './moves.js';

function reorder(order) {
  game.ui.order = order;
  saveOrder(game.ui.orderOf, order);
}

/** Shift+arrow moves the focused card one place along the hand. */
export function shiftCard(card, step) {
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
export function whyNot(view, key) {
  const first = drawFirst(view);
  if (first) return first;
  if (view.phase !== 'discard' || !view.to_act.includes(view.seat)) return null;
  if (!game.ui.selected) return 'Choose a card to discard first: click it, or pick it with ← and →.';
  if (key === 'd') return 'That card cannot be discarded now.';
  if (key === 'k' && view.knock_limit === 0) return 'The knock limit is 0 in this hand: only gin goes out.';
  if (key === 'k') return `You cannot knock discarding ${cardName(game.ui.selected)}: a knock must leave ${view.knock_limit} or less deadwood.`;
  return `You cannot go gin discarding ${cardName(game.ui.selected)}: gin leaves no deadwood at all.`;
}

/** What a click on the card the hint chose says: it is chosen now, and how it goes. */
function chosenNow(view, card) {
  const name = cardName(card);
  const way = forgoes(view, card);
  if (way === 'big gin') return `${name} chosen. Big gin (B) goes out; tap or click ${name} again to discard it and play on.`;
  if (way === 'gin') return `${name} chosen. Gin with ${name} (G) goes out; tap or click it again to discard it and play on.`;
  if (way === 'knock') return `${name} chosen. Knock with ${name} (K) goes out; tap or click it again to discard it and play on.`;
  return `${name} chosen: tap or click it again to discard it.`;
}

/** First click chooses a card, a second click on it discards it. A card the hint chose
 * (``ui.suggested``) is not chosen by the player yet: the first click chooses it, and
 * says so; it counted as the second, so one tap threw away the gin or knock the hint
 * named. */
export function clickCard(card) {
  const view = game.view;
  if (!view) return;
  if (view.phase !== 'discard' || !view.to_act.includes(view.seat)) {
    const first = drawFirst(view);
    if (first) toast(first, 'info');
    return;
  }
  if (game.ui.selected === card && !game.ui.suggested && findLegal(view, 'discard', { card })) {
    act({ type: 'discard', card });
    return;
  }
  if (view.legal.some((c) => c.card === card)) {
    const hinted = game.ui.selected === card && game.ui.suggested;
    game.ui.selected = card;
    game.ui.suggested = false;
    draw();
    const el = $(`#hand [data-card="${card}"]`);
    if (el) el.focus();
    if (hinted) toast(chosenNow(view, card), 'info');
  } else {
    toast('That card was taken from the pile: it cannot go back this turn.', 'info');
  }
}

/** ← and →: the next card that may be discarded, or (not choosing a discard) the next card. */
export function moveSelection(step) {
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
  game.ui.suggested = false;
  draw();
  const el = $(`#hand [data-card="${cards[i]}"]`);
  if (el) el.focus();
}
