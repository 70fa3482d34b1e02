// The move clock chosen in a form: none, a preset, or one of the player's own (a time per
// move, or a bank topped up after each move). The lobby's table and challenge forms
// (timecontrol.js, with rated and hints) and the start form's match against the computer
// offer the same choices: POST /v1/tables, /v1/challenges and /v1/matches all take a
// ``clock`` (docs/api.md, "Move clocks and claims"). A clock of the player's own is
// checked against the bounds the server enforces before anything is sent.
import { $, fill, h } from './dom.js';
import { clockTerms } from './terms.js';

// domain/rules.py: MIN_CLOCK_MS (a move is a round trip to the server and a decision)
// and MAX_CLOCK_MS (a day), for a time per move and a bank alike; an increment is from
// 0 to a day, and belongs to a bank only. The server counts whole milliseconds.
// (tests/e2e/test_page_lobby_clock.py checks these are the domain's.)
export const MIN_CLOCK_MS = 1000;
export const MAX_CLOCK_MS = 24 * 3600 * 1000;

/** The clocks offered, by the key the drop-down (and the remembered choice) uses. */
export const CLOCKS = {
  none: null,
  'move-15': { per_move_ms: 15000 },
  'move-30': { per_move_ms: 30000 },
  'move-60': { per_move_ms: 60000 },
  'bank-3-2': { bank_ms: 180000, increment_ms: 2000 },
  'bank-5-5': { bank_ms: 300000, increment_ms: 5000 },
  'bank-15-10': { bank_ms: 900000, increment_ms: 10000 },
};
const CUSTOM = ['custom-move', 'custom-bank'];
export const CLOCK_CHOICES = [...Object.keys(CLOCKS), ...CUSTOM];

const capital = (text) => text.charAt(0).toUpperCase() + text.slice(1);

/** A clock the player asked for that the server would refuse: said in the page's words. */
export class ClockProblem extends Error {
  constructor(message, field) {
    super(message);
    this.field = field; // the input to fix
  }
}

/** A number typed in ``unit`` (1000: seconds, 60000: minutes) as whole milliseconds,
 * or NaN for nothing typed or not a number. A comma is a decimal point (2,5 min), so
 * "1,000" would read as one: such a number, a comma and three digits, is refused as
 * ambiguous rather than read one way (it read as 1 s). */
function typedMs(input, unit) {
  if (/^[1-9]\d{0,2}(,\d{3})+$/.test(input.value.trim())) { // "0,500" is plain: a half
    throw new ClockProblem('Type the number without a comma between its thousands (1000, not 1,000): a comma is read as a decimal point.', input);
  }
  const raw = input.value.trim().replace(',', '.');
  if (raw === '' || !/^\d*\.?\d+$/.test(raw)) return NaN;
  return Math.round(Number(raw) * unit);
}

/** The clock of the player's own typed in the ``prefix`` form, as the API takes it; a
 * ClockProblem if the server would refuse it (domain/rules.py ``validate_clock``). */
function customClock(prefix, kind) {
  if (kind === 'custom-move') {
    const input = $(`#${prefix}-per-move`);
    const ms = typedMs(input, 1000);
    if (Number.isNaN(ms)) throw new ClockProblem('Type the seconds each move may take (for example 45).', input);
    if (ms < MIN_CLOCK_MS || ms > MAX_CLOCK_MS) {
      throw new ClockProblem('A time per move must be at least 1 s (a move is a round trip to the server and a decision) and at most a day (86400 s).', input);
    }
    return { per_move_ms: ms };
  }
  const bankInput = $(`#${prefix}-bank`);
  const bank = typedMs(bankInput, 60000);
  if (Number.isNaN(bank)) throw new ClockProblem("Type the minutes in each player's bank (for example 5).", bankInput);
  if (bank < MIN_CLOCK_MS || bank > MAX_CLOCK_MS) {
    throw new ClockProblem('A time bank must be at least 1 s (a move is a round trip to the server and a decision) and at most a day (1440 min).', bankInput);
  }
  const incrementInput = $(`#${prefix}-increment`);
  const increment = incrementInput.value.trim() === '' ? 0 : typedMs(incrementInput, 1000);
  if (Number.isNaN(increment) || increment > MAX_CLOCK_MS) {
    throw new ClockProblem('The time added after each move must be from 0 s to a day (86400 s).', incrementInput);
  }
  return { bank_ms: bank, increment_ms: increment };
}

/** The clock chosen in the ``prefix`` form (null: none), or a ClockProblem. */
export function chosenClock(prefix) {
  const key = $(`#${prefix}-clock`).value;
  return CUSTOM.includes(key) ? customClock(prefix, key) : CLOCKS[key] || null;
}

/** The ``prefix`` form's clock as remembered: { clock: its key, custom: what was typed }. */
export function clockTyped(prefix) {
  return {
    clock: $(`#${prefix}-clock`).value,
    custom: { perMove: $(`#${prefix}-per-move`).value, bank: $(`#${prefix}-bank`).value, increment: $(`#${prefix}-increment`).value },
  };
}

/** Show the custom fields that fit the chosen clock, and what they read as now. */
export function showClock(prefix) {
  const key = $(`#${prefix}-clock`).value;
  $(`#${prefix}-custom-move`).hidden = key !== 'custom-move';
  $(`#${prefix}-custom-bank`).hidden = key !== 'custom-bank';
  let reads = '';
  if (CUSTOM.includes(key)) {
    try {
      reads = `Reads as: ${clockTerms(customClock(prefix, key))}.`;
    } catch {
      reads = '';
    }
  }
  fill($(`#${prefix}-clock-reads`), reads);
}

/** Unmark the ``prefix`` form's clock fields (the player changed something). */
export function clearClockMarks(prefix) {
  for (const id of ['per-move', 'bank', 'increment']) {
    const input = $(`#${prefix}-${id}`);
    if (input) input.removeAttribute('aria-invalid');
  }
}

const number = (prefix, id, label, value, hint) =>
  h('label', {}, label, ' ', h('input', { id: `${prefix}-${id}`, 'data-testid': `${prefix}-${id}`, type: 'text', inputmode: 'decimal', autocomplete: 'off', size: '8', value, 'aria-describedby': `${prefix}-clock-reads` }), hint ? h('span', { class: 'hint' }, hint) : null);

/** The clock fields of a form whose ids begin with ``prefix``, set to ``remembered``
 * (a key of CLOCK_CHOICES, else none) and the custom times last typed. */
export function clockFields(prefix, remembered, custom) {
  const typed = custom || {};
  const option = (key) => h('option', { value: key }, capital(clockTerms(CLOCKS[key])));
  const select = h(
    'select',
    { id: `${prefix}-clock`, 'data-testid': `${prefix}-clock` },
    option('none'),
    h('optgroup', { label: 'A time for each move' }, ['move-15', 'move-30', 'move-60'].map(option), h('option', { value: 'custom-move' }, 'Another time per move…')),
    h('optgroup', { label: 'A time bank for the match, topped up after each move' }, ['bank-3-2', 'bank-5-5', 'bank-15-10'].map(option), h('option', { value: 'custom-bank' }, 'Another bank and top-up…')),
  );
  select.value = CLOCK_CHOICES.includes(remembered) ? remembered : 'none';
  return [
    h('label', {}, 'Clock ', select),
    h('div', { id: `${prefix}-custom-move`, class: 'custom-clock', hidden: true }, number(prefix, 'per-move', 'Seconds a move', typeof typed.perMove === 'string' ? typed.perMove : '', 'from 1 s to a day')),
    h(
      'div',
      { id: `${prefix}-custom-bank`, class: 'custom-clock', hidden: true },
      number(prefix, 'bank', "Minutes in each player's bank", typeof typed.bank === 'string' ? typed.bank : '', 'from 1 s to a day'),
      number(prefix, 'increment', 'Seconds added after each move', typeof typed.increment === 'string' ? typed.increment : '', '0 for none'),
    ),
    h('p', { id: `${prefix}-clock-reads`, class: 'hint', 'data-testid': `${prefix}-clock-reads` }),
  ];
}
