// Arranging the hand: the order it is shown in (the engine's melds, by rank, by suit, or
// the player's own after a drag), and dragging a card with a mouse, a finger or a pen
// (Pointer Events: HTML5 drag-and-drop alone ignores touch). Display only: the order
// never reaches the server.
import { byRank, bySuit } from './cards.js';

/**
 * The hand as groups of cards to draw: [{ kind: 'meld' | 'deadwood' | 'hand', cards }].
 * ``order`` is the player's own order (a drag or a keyboard move): cards no longer held
 * drop out of it, cards new to the hand (a draw) go at its end.
 */
export function handGroups(view, sort, order) {
  const hand = view.hand;
  if (order) {
    const held = new Set(hand);
    const kept = order.filter((c) => held.has(c));
    const known = new Set(kept);
    return [{ kind: 'hand', cards: [...kept, ...hand.filter((c) => !known.has(c))] }];
  }
  if (sort === 'rank') return [{ kind: 'hand', cards: byRank(hand) }];
  if (sort === 'suit') return [{ kind: 'hand', cards: bySuit(hand) }];
  const groups = view.arrangement.melds.map((meld) => ({ kind: 'meld', cards: [...meld] }));
  const loose = byRank(view.arrangement.deadwood);
  if (loose.length) groups.push({ kind: 'deadwood', cards: loose });
  return groups;
}

/** ``order`` with ``card`` moved ``step`` places (-1 left, +1 right), kept inside the hand. */
export function moveCard(order, card, step) {
  const from = order.indexOf(card);
  if (from < 0) return order;
  const to = Math.max(0, Math.min(order.length - 1, from + step));
  const out = order.filter((c) => c !== card);
  out.splice(to, 0, card);
  return out;
}

/** ``order`` with ``card`` put just before ``before`` (null: at the end). */
export function placeCard(order, card, before) {
  const out = order.filter((c) => c !== card);
  const at = before === null ? out.length : out.indexOf(before);
  out.splice(at < 0 ? out.length : at, 0, card);
  return out;
}

/** The player's own order for this hand, kept for this tab (a reload keeps it). */
const ORDER_KEY = 'ginrummy.order';
export function savedOrder(hand) {
  try {
    const saved = JSON.parse(sessionStorage.getItem(ORDER_KEY) || 'null');
    return saved && saved.hand === hand ? saved.order : null;
  } catch {
    return null;
  }
}

export function saveOrder(hand, order) {
  sessionStorage.setItem(ORDER_KEY, JSON.stringify({ hand, order }));
}

/** A sort replaces the player's own order. */
export function forgetOrder() {
  sessionStorage.removeItem(ORDER_KEY);
}

const THRESHOLD = 6; // px a pointer moves before a press becomes a drag (a tap stays a click)
let drag = null;
let swallowClick = false;

export const dragging = () => drag !== null && drag.moved;

/** The card the pointer is before, in reading order (rows on a phone): null at the end. */
function cardBefore(hand, x, y, card) {
  for (const el of hand.querySelectorAll('[data-card]')) {
    if (el.dataset.card === card) continue;
    const r = el.getBoundingClientRect();
    if (y < r.top || (y <= r.bottom && x < r.left + r.width / 2)) return el.dataset.card;
  }
  return null;
}

function marker(hand, before) {
  for (const el of hand.querySelectorAll('.drop-before')) el.classList.remove('drop-before');
  hand.classList.toggle('drop-end', before === null);
  if (before !== null) {
    const el = hand.querySelector(`[data-card="${before}"]`);
    if (el) el.classList.add('drop-before');
  }
}

const inside = (el, x, y) => {
  if (!el) return false;
  const r = el.getBoundingClientRect();
  return x >= r.left && x <= r.right && y >= r.top && y <= r.bottom;
};

/**
 * Dragging the cards of ``hand``: dropped on ``pile()`` a card is offered to ``onDiscard``,
 * dropped among the cards it takes that place (``onReorder`` gets the new order).
 * ``onEnd`` runs after every drag, so a redraw held back meanwhile can happen.
 */
export function enableDrag(hand, { pile, onReorder, onDiscard, onEnd }) {
  hand.addEventListener('pointerdown', (event) => {
    const el = event.target.closest('[data-card]');
    if (!el || (event.pointerType === 'mouse' && event.button !== 0)) return;
    drag = { el, card: el.dataset.card, id: event.pointerId, x: event.clientX, y: event.clientY, moved: false, before: null };
  });
  // Moves and the release are heard on the document: a quick drag leaves the hand before
  // the first move is reported (and only then is the pointer captured).
  document.addEventListener('pointermove', (event) => {
    if (!drag || event.pointerId !== drag.id) return;
    const dx = event.clientX - drag.x;
    const dy = event.clientY - drag.y;
    if (!drag.moved) {
      if (Math.hypot(dx, dy) < THRESHOLD) return;
      drag.moved = true;
      drag.el.setPointerCapture(event.pointerId);
      drag.el.classList.add('dragging');
      hand.classList.add('arranging');
    }
    event.preventDefault();
    drag.el.style.transform = `translate(${dx}px, ${dy}px)`;
    const overPile = inside(pile(), event.clientX, event.clientY);
    drag.before = overPile ? undefined : cardBefore(hand, event.clientX, event.clientY, drag.card);
    if (overPile) marker(hand, '');
    else marker(hand, drag.before);
    const target = pile();
    if (target) target.classList.toggle('drop-target', overPile);
  });
  const finish = (event, cancelled) => {
    if (!drag || event.pointerId !== drag.id) return;
    const done = drag;
    drag = null;
    if (!done.moved) return;
    swallowClick = true; // the click that ends a drag is not a choice of card
    setTimeout(() => (swallowClick = false), 0);
    done.el.classList.remove('dragging');
    done.el.style.transform = '';
    hand.classList.remove('arranging', 'drop-end');
    marker(hand, '');
    const target = pile();
    if (target) target.classList.remove('drop-target');
    if (!cancelled) {
      if (inside(target, event.clientX, event.clientY)) onDiscard(done.card);
      else {
        const order = [...hand.querySelectorAll('[data-card]')].map((el) => el.dataset.card);
        onReorder(placeCard(order, done.card, cardBefore(hand, event.clientX, event.clientY, done.card)));
      }
    }
    onEnd();
  };
  document.addEventListener('pointerup', (event) => finish(event, false));
  document.addEventListener('pointercancel', (event) => finish(event, true));
  document.addEventListener(
    'click',
    (event) => {
      if (swallowClick) {
        swallowClick = false;
        event.stopPropagation();
        event.preventDefault();
      }
    },
    true,
  );
}
