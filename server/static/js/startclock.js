// The start form's move clock for a match against the computer: POST /v1/matches takes a
// ``clock`` as the lobby's tables and challenges do (none unless asked), so the form
// offers the lobby's choices (clockchoice.js). Its choice is remembered apart from the
// lobby's: a clock wanted against people need not be wanted against the computer.
import { $, fill } from './dom.js';
import { CLOCK_CHOICES, chosenClock, clockFields, clockTyped, showClock } from './clockchoice.js';
import { clearProblem } from './timecontrol.js';
import { pref, setPref } from './prefs.js';

const PREFIX = 'start';

/** Put the clock fields in the start form's slot, set as last time, and follow them. */
export function setUpStartClock() {
  fill($('#start-clock-fields'), clockFields(PREFIX, pref('startClock'), pref('startClockCustom')));
  const changed = () => {
    clearProblem(PREFIX);
    showClock(PREFIX);
  };
  $('#start-form').addEventListener('change', changed);
  $('#start-form').addEventListener('input', changed);
  showClock(PREFIX);
}

/** The drop-down as remembered (the start screen shows it again after a match). */
export function resetStartClock() {
  $(`#${PREFIX}-clock`).value = CLOCK_CHOICES.includes(pref('startClock')) ? pref('startClock') : 'none';
  clearProblem(PREFIX);
  showClock(PREFIX);
}

/** The clock chosen, as POST /v1/matches takes it ({} for none); a ClockProblem for one
 * the server would refuse. */
export function startClock() {
  const clock = chosenClock(PREFIX);
  return clock ? { clock } : {};
}

/** Remember the clock just used, for the next deal. */
export function rememberStartClock() {
  const { clock, custom } = clockTyped(PREFIX);
  setPref('startClock', clock);
  setPref('startClockCustom', custom);
}
