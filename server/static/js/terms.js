// A table's (or a challenge's) terms in words, as the lobby lists them: the rules and
// their target, whether the result moves ratings, and the move clock. A player choosing
// a table needs all of them before sitting down: a rated match under a short clock is
// not the one they may have expected from "Arcadia to 100".
import { PRESETS, ruleChanges, rulesLine } from './presets.js';

/** A length of time in words: "45 s", "2 min", "1 min 30 s", "1 h 30 min". */
export function duration(ms) {
  const total = Math.round(ms / 100) / 10; // tenths of a second at most (1.5 s)
  if (total < 60) return `${total} s`;
  const s = Math.round(total);
  const hours = Math.floor(s / 3600);
  const minutes = Math.floor((s % 3600) / 60);
  const seconds = s % 60;
  return [hours ? `${hours} h` : '', minutes ? `${minutes} min` : '', seconds ? `${seconds} s` : ''].filter(Boolean).join(' ');
}

/** The move clock a table's match will have (its ``clock``, null: none). */
export function clockTerms(clock) {
  if (!clock) return 'no clock';
  if (clock.per_move_ms !== null && clock.per_move_ms !== undefined) return `${duration(clock.per_move_ms)} a move`;
  // A bank: each seat's time for the whole match, topped up after each move.
  const increment = clock.increment_ms ? ` + ${duration(clock.increment_ms)} a move` : '';
  return `${duration(clock.bank_ms)} each${increment}`;
}

/** The rules in words: "arcadia to 100", or for a custom rule set what it changes
 * ("arkadium, changed: knock ≤ 5 (was knock ≤ 10)"): "arkadium+custom to 100" hid a
 * knock limit the player joining would meet only at the table. */
export const rulesTerms = (rules) => (ruleChanges(rules).length ? rulesLine(rules) : `${rules.name} to ${rules.target}`);

/** The rules as a list of matches names them (a preset's name, or "arkadium+custom"), in
 * the same words: "arcadia to 100". History said "arcadia" where the lobby had said
 * "arcadia to 100"; a custom set's name stays as it is until its rules are read. */
export function listedRules(rules) {
  if (rules && typeof rules === 'object') return rulesTerms(rules);
  const name = String(rules || '');
  return PRESETS[name] ? rulesTerms(PRESETS[name]) : name;
}

/** "Arcadia to 100 · rated · 30 s a move": what the table's match will be. */
export function tableTerms(table) {
  return [
    rulesTerms(table.rules),
    table.rated ? 'rated' : 'unrated',
    clockTerms(table.clock),
    table.hints ? 'with hints' : null,
  ].filter(Boolean).join(' · ');
}
