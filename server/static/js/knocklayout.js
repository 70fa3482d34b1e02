// Choosing which melds a knock lays down, when several layouts leave the least deadwood
// (actionbar.js draws them as radio buttons): a click, or the arrows among them (one Tab
// stop for the group). The choice belongs to the card chosen and the view it was made on.
import { $$ } from './dom.js';
import { game } from './matchstate.js';
import { draw } from './matchdraw.js';

/** The layout ``el`` (a ``[data-layout]``) is chosen for the card chosen; false without one. */
export function chooseLayout(el) {
  if (!game.ui.selected) return false;
  game.ui.layout = { card: game.ui.selected, index: Number(el.dataset.layout), version: game.view.version };
  draw();
  return true;
}

/** An arrow key on a layout's radio button chooses the previous or the next one (not a card). */
export function stepLayout(radio, key) {
  const all = $$('#actions [role=radio]');
  const step = key === 'ArrowLeft' || key === 'ArrowUp' ? -1 : 1;
  all[(all.indexOf(radio) + step + all.length) % all.length].click();
}
