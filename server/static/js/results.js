// The end of a hand and of a match, in cards, words and numbers. Shared by the table
// and the replay viewer; every number shown comes from the server's HandScored/MatchSettled.
import { h, plural } from './dom.js';
import { byRank, cardGroup, cardName } from './cards.js';
import { BONUS_KIND, NOT_RATED_AWAY, explain, headline, seatName } from './words.js';

function handLine(label, melds, deadwood, laid, deadwoodPoints) {
  return h(
    'div',
    { class: 'result-hand' },
    h('div', { class: 'label' }, label, h('span', { class: 'hint' }, ` · deadwood ${deadwoodPoints}`)),
    h(
      'div',
      { class: 'melds' },
      melds.map((m) => cardGroup(m, { classes: 'meld', mark: laid })),
      deadwood.length
        ? h('span', { class: 'captioned' }, cardGroup(byRank(deadwood), { classes: 'deadwood', label: 'deadwood' }), h('small', {}, 'deadwood'))
        : null,
    ),
  );
}

/** The hand that has just ended, if the one in play has (null once the next is dealt, and
 * for a match resigned, claimed or timed out mid-hand: ``last_result`` is then an earlier
 * hand's, and the knock shown beside it is not that hand's). */
export const handJustEnded = (view) =>
  handIsOver(view) && view.last_result && view.last_result.hand_number === view.hand_number ? view.last_result : null;

/** Between hands, or after the last: nobody is to play. */
export const handIsOver = (view) => view.phase === 'hand_over' || view.phase === 'match_over';

/** The end of a hand: both hands in melds, the layoffs, and the count in words and numbers. */
export function resultPanel(view, result, knock, me, { showScores = true } = {}) {
  const players = view.players;
  const who = (seat) => seatName(players, seat, me);
  if (result.type === 'hand_washed') {
    return h(
      'div',
      { class: 'result', 'data-testid': 'hand-result' },
      h('h2', {}, `Hand ${result.hand_number} is washed`),
      h('p', {}, result.reason === 'no_progress'
        ? `The hand made no progress: ${view.rules.pile_draw_limit} face-up cards were taken and nobody knocked. No points, no box. The same dealer deals again.`
        : 'The stock ran down to two cards and nobody knocked: no points, no box. The same dealer deals again.'),
      [0, 1].map((seat) => h('div', { class: 'result-hand' }, h('div', { class: 'label' }, who(seat)), cardGroup(byRank(result.hands[seat])))),
    );
  }
  const defender = 1 - result.knocker;
  const laid = new Set(result.layoffs.map(([card]) => card));
  const knockerDeadwood = knock && knock.seat === result.knocker ? knock.deadwood : [];
  const [words, sum] = explain(result, view.rules);
  return h(
    'div',
    { class: 'result', 'data-testid': 'hand-result' },
    h('h2', { 'data-testid': 'result-headline' }, `Hand ${result.hand_number}: ${headline(result, players, me)}`),
    handLine(`${who(result.knocker)}, ${result.outcome === 'knock' || result.outcome === 'undercut' ? 'knocked' : `went ${result.outcome.replace('_', ' ')}`}`,
      result.knocker_melds, knockerDeadwood, laid, result.knocker_deadwood),
    handLine(`${who(defender)}, defending`, result.defender_melds, result.defender_deadwood_cards, new Set(), result.defender_deadwood),
    result.layoffs.length
      ? h('p', {}, `Laid off by ${defender === me ? 'you' : who(defender)} (outlined in blue): `, result.layoffs.map(([card]) => cardName(card)).join(', '), '.')
      : null,
    h('p', { class: 'words' }, words),
    h('p', { class: 'sum', 'data-testid': 'result-sum' }, sum, ` → ${who(result.winner)} `, result.winner === me ? 'score and bank a box.' : 'scores and banks a box.'),
    showScores
      ? h('p', {}, `Score: ${who(0)} ${result.scores[0]} (${plural(result.boxes[0], 'box', 'boxes')}), ${who(1)} ${result.scores[1]} (${plural(result.boxes[1], 'box', 'boxes')}).`)
      : null,
  );
}

const CLAIM_WHY = { absence: ['was away too long on their turn', 'were away too long on your turn'], timeouts: ['timed out three turns in a row', 'timed out three turns in a row'] };

/** How a match ended early: resigned, or claimed from a seat that was not playing (a claim
 * settles as that seat's resignation, but it did not resign: the ``match_claimed`` event
 * says who claimed and why). ``claim`` undefined: not known yet (the table looks it up in
 * the log), or the lookup failed; the match is then said to have ended early, not to have
 * been resigned, which a claim was not. */
function endedEarly(view, s, me, claim) {
  const who = (seat) => seatName(view.players, seat, me);
  const unscored = 'The hand in play was not scored; the hands won so far stand.';
  if (claim === undefined && s.resigned !== null && s.resigned !== undefined) {
    return h('p', { 'data-testid': 'settlement-early' }, `The match ended before it was played out. ${unscored}`);
  }
  if (claim) {
    const absent = 1 - claim.seat;
    const [theirs, yours] = CLAIM_WHY[claim.reason] || ['was not playing', 'were not playing'];
    const text = absent === me
      ? `${who(claim.seat)} claimed the match from you: you ${yours}.`
      : `${who(claim.seat)} claimed the match: ${who(absent)} ${theirs}.`;
    return h('p', { 'data-testid': 'settlement-claimed' }, `${text} ${unscored}`);
  }
  if (s.resigned === null || s.resigned === undefined) return null;
  const resigned = who(s.resigned);
  return h('p', { 'data-testid': 'settlement-resigned' },
    `The match was resigned: ${resigned === 'You' ? 'you' : resigned} resigned. ${unscored}`);
}

/** The end of a match: hand points, boxes, bonus and totals. ``claim``: the match's
 * ``match_claimed`` event, if any (null: none; undefined: not known yet); ``rating``: the
 * viewer's rating line, if rated. A match settled ``abandoned`` (the house AI played both
 * seats to the end while both players were away) moves no rating: it says so instead of
 * a rating line. */
export function settlementPanel(view, s, me, { claim, rating = null } = {}) {
  const who = (seat) => seatName(view.players, seat, me);
  const r = view.rules;
  const row = (label, cells) => h('tr', {}, h('th', { scope: 'row' }, label), cells.map((c) => h('td', {}, c)));
  const bonus = (seat) => (seat === s.winner ? s.bonus : 0);
  return h(
    'div',
    { class: 'result settlement', 'data-testid': 'settlement' },
    h('h2', {}, `${who(s.winner)} ${s.winner === me ? 'win' : 'wins'} the match`),
    endedEarly(view, s, me, claim),
    h(
      'table',
      {},
      h('thead', {}, h('tr', {}, h('th', {}), h('th', { scope: 'col' }, who(0)), h('th', { scope: 'col' }, who(1)))),
      h(
        'tbody',
        {},
        row('Hand points', [s.hand_points[0], s.hand_points[1]]),
        row(`Boxes × ${r.box_bonus}`, [0, 1].map((i) => `${s.boxes[i]} × ${r.box_bonus} = ${s.box_points[i]}`)),
        row(`Bonus (${BONUS_KIND[s.bonus_kind]})`, [bonus(0), bonus(1)]),
        row('Total', [0, 1].map((i) => h('b', { 'data-testid': `total-${i}` }, s.totals[i]))),
      ),
    ),
    s.abandoned
      ? h('p', { 'data-testid': 'settlement-abandoned' }, NOT_RATED_AWAY)
      : rating ? h('p', { 'data-testid': 'rating-change' }, rating) : null,
  );
}
