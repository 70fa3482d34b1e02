// The rules of a table opened from the lobby: its preset, or, under "Advanced", the
// preset with a target or a knock limit of the player's own (a custom rule set,
// docs/rules.md "Custom rule sets", which POST /v1/tables takes). Each is checked against
// the bounds the server enforces before anything is sent; the server rates presets only,
// so such a table is unrated (timecontrol.js greys out its rated box and says why).
import { $, h } from './dom.js';

// domain/rules.py _BOUNDS for the fields offered (tests/e2e/test_page_lobby_custom_rules.py
// checks they are the domain's).
export const RULE_BOUNDS = { target: [1, 10000], knock_limit: [0, 10] };

// [API field, id suffix, label, hint, the refusal when out of bounds]
const FIELDS = [
  ['target', 'target', 'Play to', 'points, from 1 to 10000', 'The target must be a whole number of points from 1 to 10000.'],
  ['knock_limit', 'knock-limit', 'Knock with at most', 'deadwood, from 0 (gin only) to 10', 'The knock limit must be a whole number from 0 (gin only) to 10.'],
];

/** A rule the player typed that the server would refuse: said in the page's words. */
export class RulesProblem extends Error {
  constructor(message, field) {
    super(message);
    this.field = field; // the input to fix
  }
}

/** The "Advanced" disclosure of a form whose ids begin with ``prefix`` (blank: the preset's). */
export function customRulesFields(prefix) {
  return h(
    'details',
    { id: `${prefix}-advanced`, class: 'custom-rules', 'data-testid': `${prefix}-advanced` },
    h('summary', {}, "Advanced: your own target or knock limit (blank keeps the preset's; unrated)"),
    FIELDS.map(([, id, label, hint]) =>
      h('label', {}, label, ' ', h('input', { id: `${prefix}-${id}`, 'data-testid': `${prefix}-${id}`, type: 'text', inputmode: 'numeric', autocomplete: 'off', size: '6' }), h('span', { class: 'hint' }, hint)),
    ),
  );
}

/** The rules of the ``prefix`` form as POST /v1/tables takes them: the preset's name, or
 * { preset, target, knock_limit } with the fields typed. A RulesProblem for a value the
 * server would refuse; with ``check`` false, whatever is typed counts (a custom rule set
 * however wrong, for the rated box). A form with no such fields gives its preset. */
export function chosenRules(prefix, check = true) {
  const preset = $(`#${prefix}-preset`).value;
  const changed = {};
  for (const [field, id, , , refusal] of FIELDS) {
    const input = $(`#${prefix}-${id}`);
    const raw = input ? input.value.trim() : '';
    if (raw === '') continue;
    const [low, high] = RULE_BOUNDS[field];
    const value = /^\d+$/.test(raw) ? Number(raw) : NaN;
    if (check && !(value >= low && value <= high)) throw new RulesProblem(refusal, input);
    changed[field] = value;
  }
  return Object.keys(changed).length ? { preset, ...changed } : preset;
}

/** Unmark the ``prefix`` form's rule fields (the player changed something). */
export function clearRulesMarks(prefix) {
  for (const [, id] of FIELDS) {
    const input = $(`#${prefix}-${id}`);
    if (input) input.removeAttribute('aria-invalid');
  }
}
