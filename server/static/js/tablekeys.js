// The table's keys: ← and → choose a card (Shift moves it within the hand), a letter
// presses the action button that shows it (S, P, D, K, G, ...), and D, K or G that can do
// nothing say why; Escape answers "Really resign?" and "Really discard …?" no. Keys typed in a field, with a
// modifier, or while a question is open are not the table's.
import { $ } from './dom.js';
import { toast } from './ui.js';
import { game } from './matchstate.js';
import { moveSelection, shiftCard, whyNot } from './hand.js';
import { stepLayout } from './knocklayout.js';
import { keepPlaying, keepWayOut } from './moves.js';

export function onTableKey(event) {
  if (event.ctrlKey || event.metaKey || event.altKey) return;
  const tag = (event.target.tagName || '').toLowerCase();
  if (tag === 'input' || tag === 'select' || tag === 'textarea') return;
  if ($('[role=alertdialog]:not([hidden])')) return; // a question is open: it has the keyboard
  const screen = document.body.dataset.screen;
  if (screen === 'replay') return;
  if (screen !== 'table') return;
  if (event.key === 'Escape' && game.ui.confirmResign) {
    event.preventDefault();
    keepPlaying();
    return;
  }
  if (event.key === 'Escape' && keepWayOut()) {
    event.preventDefault(); // "Really discard …?" answered no
    return;
  }
  const radio = event.target.closest && event.target.closest('#actions [role=radio]');
  if (radio && ['ArrowLeft', 'ArrowRight', 'ArrowUp', 'ArrowDown'].includes(event.key)) {
    // The knock's layouts are radio buttons: the arrows choose among them (not a card).
    event.preventDefault();
    stepLayout(radio, event.key);
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
