// The terms of a table or challenge opened from the lobby, beyond its rules: the move
// clock (none, a preset, or one of the player's own), whether the match is rated, and the
// engine's hints. POST /v1/tables and POST /v1/challenges take all three (docs/api.md,
// "Move clocks and claims"); the page checks a clock of the player's own against the
// bounds the server enforces before asking, and says the server's own words if it still
// refuses. The last choice is remembered (prefs.js), as the start page remembers its own.
import { $, fill, h } from './dom.js';
import { ApiError } from './api.js';
import { pref, setPref } from './prefs.js';
import { problemText } from './ui.js';
import { clockTerms } from './terms.js';
import { PRESETS } from './presets.js';

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

/** Why the server would not rate this match, in its own words (server/ratings.py
 * ``rated_for``, deciding by domain/rating_policy.py ``is_rated``), or null if it would.
 * Nothing here is a chosen seed, and every seat the lobby can name is an account, which
 * always has a rating record: what is left are the hints and the rules. */
export function unratable({ rules, hints }) {
  if (hints) return "a match with the engine's hints is never rated";
  if (typeof rules !== 'string' || !Object.hasOwn(PRESETS, rules)) return "only matches under a preset's rules, unchanged, can be rated";
  return null;
}

/** A number typed in ``unit`` (1000: seconds, 60000: minutes) as whole milliseconds,
 * or NaN for nothing typed or not a number. */
function typedMs(input, unit) {
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

/** The terms chosen in the ``prefix`` form, for POST /v1/tables or /v1/challenges (with
 * the rules from its ``#PREFIX-preset``); a ClockProblem for a clock the server would
 * refuse. ``rated`` is always said, so the page never leaves it to the server's default. */
export function chosenTerms(prefix) {
  const clock = chosenClock(prefix);
  const hints = $(`#${prefix}-hints`).checked;
  const rated = $(`#${prefix}-rated`);
  return { ...(clock ? { clock } : {}), ...(hints ? { hints } : {}), rated: !rated.disabled && rated.checked };
}

/** Remember the terms just used, for the next table or challenge from either form. */
export function rememberTerms(prefix) {
  setPref('clock', $(`#${prefix}-clock`).value);
  setPref('clockCustom', { perMove: $(`#${prefix}-per-move`).value, bank: $(`#${prefix}-bank`).value, increment: $(`#${prefix}-increment`).value });
  const rated = $(`#${prefix}-rated`);
  if (!rated.disabled) setPref('rated', rated.checked);
  // Asked for the engine's advice: shown at the table, as the start form's box does.
  if ($(`#${prefix}-hints`).checked) setPref('hints', true);
}

/** Show why the ``prefix`` form opened nothing: a clock the page refused (its field
 * marked and focused), or the server's refusal of the clock or the rating. Other
 * refusals are not about these terms: false, for the caller to tell as it always did. */
export function showProblem(prefix, err) {
  const box = $(`#${prefix}-problem`);
  if (err instanceof ClockProblem) {
    fill(box, err.message);
    box.hidden = false;
    err.field.setAttribute('aria-invalid', 'true');
    err.field.focus();
    return true;
  }
  if (err instanceof ApiError && ['invalid_clock', 'invalid_request', 'not_ratable'].includes(err.problem.rule)) {
    fill(box, `The server opened nothing. ${problemText(err)}`);
    box.hidden = false;
    return true;
  }
  return false;
}

/** Clear the ``prefix`` form's problem (the player changed something, or it worked). */
export function clearProblem(prefix) {
  const box = $(`#${prefix}-problem`);
  if (box) {
    box.hidden = true;
    fill(box);
  }
  for (const id of ['per-move', 'bank', 'increment']) {
    const input = $(`#${prefix}-${id}`);
    if (input) input.removeAttribute('aria-invalid');
  }
}

/** Show the custom fields that fit the chosen clock, what they read as now, and the
 * rated box as the server would take it. */
function update(prefix) {
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
  const rated = $(`#${prefix}-rated`);
  const why = unratable({ rules: $(`#${prefix}-preset`).value, hints: $(`#${prefix}-hints`).checked });
  const was = rated.disabled;
  rated.disabled = Boolean(why);
  if (why) rated.checked = false;
  else if (was) rated.checked = rated.dataset.wanted !== 'false'; // available again: as ticked before
  const note = $(`#${prefix}-rated-why`);
  fill(note, why ? `Unrated: ${why}.` : '');
  note.hidden = !why;
}

const number = (prefix, id, label, value, hint) =>
  h('label', {}, label, ' ', h('input', { id: `${prefix}-${id}`, 'data-testid': `${prefix}-${id}`, type: 'text', inputmode: 'decimal', autocomplete: 'off', size: '8', value, 'aria-describedby': `${prefix}-clock-reads` }), hint ? h('span', { class: 'hint' }, hint) : null);

/** The clock, hints and rated fields of a lobby form whose ids begin with ``prefix``
 * (its rules are its ``#PREFIX-preset``, whose changes it follows). */
export function termsFields(prefix) {
  const custom = pref('clockCustom') || {};
  const option = (key) => h('option', { value: key }, capital(clockTerms(CLOCKS[key])));
  const select = h(
    'select',
    { id: `${prefix}-clock`, 'data-testid': `${prefix}-clock` },
    option('none'),
    h('optgroup', { label: 'A time for each move' }, ['move-15', 'move-30', 'move-60'].map(option), h('option', { value: 'custom-move' }, 'Another time per move…')),
    h('optgroup', { label: 'A time bank for the match, topped up after each move' }, ['bank-3-2', 'bank-5-5', 'bank-15-10'].map(option), h('option', { value: 'custom-bank' }, 'Another bank and top-up…')),
  );
  select.value = CLOCK_CHOICES.includes(pref('clock')) ? pref('clock') : 'none';
  const rated = h('input', { id: `${prefix}-rated`, 'data-testid': `${prefix}-rated`, type: 'checkbox', checked: pref('rated'), 'aria-describedby': `${prefix}-rated-why` });
  rated.dataset.wanted = String(pref('rated'));
  const fields = [
    h('label', {}, 'Clock ', select),
    h('div', { id: `${prefix}-custom-move`, class: 'custom-clock', hidden: true }, number(prefix, 'per-move', 'Seconds a move', typeof custom.perMove === 'string' ? custom.perMove : '', 'from 1 s to a day')),
    h(
      'div',
      { id: `${prefix}-custom-bank`, class: 'custom-clock', hidden: true },
      number(prefix, 'bank', "Minutes in each player's bank", typeof custom.bank === 'string' ? custom.bank : '', 'from 1 s to a day'),
      number(prefix, 'increment', 'Seconds added after each move', typeof custom.increment === 'string' ? custom.increment : '', '0 for none'),
    ),
    h('p', { id: `${prefix}-clock-reads`, class: 'hint', 'data-testid': `${prefix}-clock-reads` }),
    h('label', { class: 'check' }, h('input', { id: `${prefix}-hints`, 'data-testid': `${prefix}-hints`, type: 'checkbox' }), ' Hints (the engine advises both players; unrated)'),
    h('label', { class: 'check' }, rated, ' Rated (the result moves both players\' ratings)'),
    h('p', { id: `${prefix}-rated-why`, class: 'hint', 'data-testid': `${prefix}-rated-why`, hidden: true }),
    h('p', { id: `${prefix}-problem`, class: 'form-problem', role: 'alert', 'data-testid': `${prefix}-problem`, hidden: true }),
  ];
  // The rated box keeps what the player ticked while the hints make it unavailable.
  rated.addEventListener('change', () => (rated.dataset.wanted = String(rated.checked)));
  return fields;
}

/** Wire a form built with ``termsFields(prefix)``: once it is in the page. */
export function followTerms(prefix) {
  const form = $(`#${prefix}-clock`).form;
  const changed = () => {
    clearProblem(prefix);
    update(prefix);
  };
  form.addEventListener('change', changed);
  form.addEventListener('input', changed);
  update(prefix);
}
