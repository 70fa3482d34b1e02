// A short tour of the table on a person's first match: a few steps, each pointing at a part
// of the table. Dismissed once, it stays away (prefs.js keeps `tourSeen`); the rules screen
// can ask for it again.
import { $, $$, fill, h } from './dom.js';
import { pref, setPref } from './prefs.js';

const PENDING = 'ginrummy.tour-pending'; // this tab dealt a match, or asked for the tour again
const ASKED = 'asked'; // PENDING's value for the rules screen's "again"

/** The steps, for the match on the table: the knock limit is its hand's (a custom rule
 * set or Oklahoma's up-card may make it other than 10). */
function steps(view) {
  const limit = view ? view.knock_limit : null;
  const oklahoma = view && view.rules.oklahoma ? ' (under Oklahoma the up-card sets it each hand)' : '';
  const knock = limit === 0
    ? `Your buttons. Knock and Gin are always here, greyed until you may use them: this hand's knock limit is 0${oklahoma}, so only Gin goes out, with no deadwood at all.`
    : `Your buttons. Knock and Gin are always here, greyed until you may use them: Knock when a discard leaves ${limit === null ? 'no more deadwood than the knock limit' : `${limit} or less deadwood (this hand's knock limit${oklahoma})`}, Gin when it leaves none.`;
  return [
    ['#hand', 'Your hand. The page groups your melds and counts your deadwood below it. Choose a card, then discard it (click it again, press D, or drag it onto the pile).'],
    ['#piles', 'The stock (face down) and the discard pile (face up). Each turn, draw one card from either, then discard one.'],
    ['#actions', knock],
    ['#nav-rules', 'Melds, knocking, the undercut and the scoring are explained under "How to play", with examples. Enjoy the game!'],
  ];
}

/** The next table opened shows the tour (the rules screen's "again": asked for, so shown
 * even under a move clock). */
export function resetTour() {
  setPref('tourSeen', false);
  sessionStorage.setItem(PENDING, ASKED);
}

/** A match was just dealt: a first one shows the tour, unless it has a move clock (the
 * tour would spend a newcomer's time; it waits for a match without one). */
export function expectTour() {
  if (!pref('tourSeen') && !sessionStorage.getItem(PENDING)) sessionStorage.setItem(PENDING, '1');
}

const moveClock = (view) => Boolean(view && view.clock && (view.clock.per_move_ms !== null || view.clock.bank_ms !== null));

/** Shows the tour on the table if this person has not dismissed it and a match just opened
 * (``view``: its view, as openMatch resolves). */
export function maybeTour(view) {
  const pending = sessionStorage.getItem(PENDING);
  if (pref('tourSeen') || !pending || $('#tour')) return;
  if (document.body.dataset.screen !== 'table') return; // the opening was left for another screen
  if (pending !== ASKED && moveClock(view)) return; // still pending, for a match without a clock
  const box = h('aside', { id: 'tour', class: 'tour', role: 'dialog', 'aria-label': 'A tour of the table', 'aria-describedby': 'tour-text', 'data-testid': 'tour' });
  // A dialog takes the keyboard when it opens (it came unannounced, above the table, and a
  // keyboard player reached it only backwards); Escape or its last button give it back.
  const back = document.activeElement;
  box.addEventListener('keydown', (event) => {
    if (event.key !== 'Escape') return;
    event.stopPropagation();
    closeTour(box, back);
  });
  $('#screen-table').prepend(box);
  step(box, steps(view), 0, back);
}

function step(box, all, n, back) {
  unmark();
  const [target, text] = all[n];
  const el = $(target);
  const last = n === all.length - 1;
  fill(
    box,
    h('p', { id: 'tour-text', 'data-testid': 'tour-step', dataset: { step: String(n + 1) } }, h('b', {}, `${n + 1} of ${all.length}. `), text),
    h('div', { class: 'tour-buttons' },
      last ? null : h('button', { type: 'button', class: 'primary', 'data-testid': 'tour-next', onclick: () => step(box, all, n + 1, back) }, 'Next'),
      h('button', { type: 'button', 'data-testid': 'tour-close', onclick: () => closeTour(box, back) }, last ? 'Done' : 'Skip the tour')),
  );
  // The step's words are the dialog's description: focusing its first button says them.
  $('button', box).focus({ preventScroll: true });
  if (el) pointAt(el, box);
}

function unmark() {
  for (const el of $$('.tour-target')) {
    el.classList.remove('tour-target');
    el.style.scrollMarginTop = '';
  }
}

/** Marks the step's part of the table and brings it into sight below the tour, which stays
 * at the top of the screen: on a phone the hand was under the action bar, out of sight. */
function pointAt(el, box) {
  el.classList.add('tour-target');
  el.style.scrollMarginTop = `${box.offsetHeight + 8}px`;
  el.scrollIntoView({ block: 'nearest' });
}

/** Close the tour; the keyboard goes back where it was when the tour opened (if that is
 * still on the table), else to the turn line. */
function closeTour(box, back = null) {
  setPref('tourSeen', true);
  sessionStorage.removeItem(PENDING);
  unmark();
  const hadFocus = box.contains(document.activeElement);
  box.remove();
  if (!hadFocus) return;
  const table = $('#screen-table');
  if (back && back.isConnected && table.contains(back) && !back.disabled) back.focus();
  else if ($('#turn')) $('#turn').focus();
}
