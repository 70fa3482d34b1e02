// The terms of a table or challenge opened from the lobby, beyond its rules: the move
// clock (none, a preset, or one of the player's own), whether the match is rated, and the
// engine's hints. POST /v1/tables and POST /v1/challenges take all three (docs/api.md,
// "Move clocks and claims"); the clock is clockchoice.js's, checked before asking, and
// the server's own words are said if it still refuses (the start form's clock too,
// startclock.js). The last choice is remembered (prefs.js), as the start page remembers
// its own.
import { $, fill, h } from './dom.js';
import { ApiError } from './api.js';
import { pref, setPref } from './prefs.js';
import { problemText } from './ui.js';
import { PRESETS } from './presets.js';
import { ClockProblem, chosenClock, clearClockMarks, clockFields, clockTyped, showClock } from './clockchoice.js';
import { RulesProblem, chosenRules, clearRulesMarks } from './customrules.js';

/** Why the server would not rate this match, in its own words (server/ratings.py
 * ``rated_for``, deciding by domain/rating_policy.py ``is_rated``), or null if it would.
 * Nothing here is a chosen seed, and every seat the lobby can name is an account, which
 * always has a rating record: what is left are the hints and the rules. */
export function unratable({ rules, hints }) {
  if (hints) return "a match with the engine's hints is never rated";
  if (typeof rules !== 'string' || !Object.hasOwn(PRESETS, rules)) return "only matches under a preset's rules, unchanged, can be rated";
  return null;
}

/** The terms chosen in the ``prefix`` form, for POST /v1/tables or /v1/challenges (with
 * the rules of customrules.js chosenRules); a ClockProblem for a clock the server would
 * refuse. ``rated`` is always said, so the page never leaves it to the server's default. */
export function chosenTerms(prefix) {
  const clock = chosenClock(prefix);
  const hints = $(`#${prefix}-hints`).checked;
  const rated = $(`#${prefix}-rated`);
  return { ...(clock ? { clock } : {}), ...(hints ? { hints } : {}), rated: !rated.disabled && rated.checked };
}

/** Remember the terms just used, for the next table or challenge from either form. */
export function rememberTerms(prefix) {
  const { clock, custom } = clockTyped(prefix);
  setPref('clock', clock);
  setPref('clockCustom', custom);
  const rated = $(`#${prefix}-rated`);
  if (!rated.disabled) setPref('rated', rated.checked);
  // Asked for the engine's advice: shown at the table, as the start form's box does.
  if ($(`#${prefix}-hints`).checked) setPref('hints', true);
}

/** Show why the ``prefix`` form opened nothing: a clock or a rule the page refused (its
 * field marked and focused), or the server's refusal of the clock, the rules or the
 * rating. Other
 * refusals are not about these terms: false, for the caller to tell as it always did. */
export function showProblem(prefix, err) {
  const box = $(`#${prefix}-problem`);
  if (err instanceof ClockProblem || err instanceof RulesProblem) {
    fill(box, err.message);
    box.hidden = false;
    err.field.setAttribute('aria-invalid', 'true');
    err.field.focus();
    return true;
  }
  if (err instanceof ApiError && ['invalid_clock', 'invalid_request', 'not_ratable'].includes(err.problem.rule)) {
    fill(box, `The server opened nothing. ${problemText(err)}`);
    box.hidden = false;
    if (err.field) err.field.focus(); // the field refused (the name), as for the clock's
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
  clearClockMarks(prefix);
  clearRulesMarks(prefix);
}

/** Show the clock's own fields, and the rated box as the server would take it. */
function update(prefix) {
  showClock(prefix);
  const rated = $(`#${prefix}-rated`);
  const why = unratable({ rules: chosenRules(prefix, false), hints: $(`#${prefix}-hints`).checked });
  const was = rated.disabled;
  rated.disabled = Boolean(why);
  if (why) rated.checked = false;
  else if (was) rated.checked = rated.dataset.wanted !== 'false'; // available again: as ticked before
  const note = $(`#${prefix}-rated-why`);
  fill(note, why ? `Unrated: ${why}.` : '');
  note.hidden = !why;
}

/** The clock, hints and rated fields of a lobby form whose ids begin with ``prefix``
 * (its rules are its ``#PREFIX-preset``, whose changes it follows). */
export function termsFields(prefix) {
  const rated = h('input', { id: `${prefix}-rated`, 'data-testid': `${prefix}-rated`, type: 'checkbox', checked: pref('rated'), 'aria-describedby': `${prefix}-rated-why` });
  rated.dataset.wanted = String(pref('rated'));
  const fields = [
    ...clockFields(prefix, pref('clock'), pref('clockCustom')),
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
