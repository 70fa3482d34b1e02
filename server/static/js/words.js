// Events and results told in words. The numbers are the server's; this only explains them.
import { cardName } from './cards.js';
import { isolate } from './names.js';

/** The name a seat goes by, from the point of view of `me` (null: a neutral replay). */
export function seatName(players, seat, me) {
  if (me !== null && seat === me) return 'You';
  return players[seat];
}

/** A knock's kind as a verb (the narration and the move list say it alike). */
export const KIND = { knock: 'knocked', gin: 'went gin', big_gin: 'declared big gin' };

/** ``claimed``: the match's ``match_claimed`` event once seen, so the absent seat's
 * resignation that follows it is told as the claim it is. ``standIn``: the event is a
 * move the server made for its seat, whose time ran out (standin.js). */
/** Said of a match settled ``abandoned``: both players were away, nobody's result. */
export const NOT_RATED_AWAY = 'Not rated: both players were away, and the house AI played both sides to the end.';

export function narrate(event, players, me, claimed = null, standIn = false) {
  if (standIn) return playedFor(event, players, me);
  const who = (seat) => seatName(players, seat, me);
  const whom = (seat) => (who(seat) === 'You' ? 'you' : who(seat)); // inside a sentence
  switch (event.type) {
    case 'match_started':
      return `Match started: ${players[0]} against ${players[1]} (${event.rules.name}).`;
    case 'dealt':
      return `Hand ${event.hand_number} dealt by ${whom(event.dealer)}; the up-card is ${cardName(event.up_card)}.`;
    case 'up_card_taken':
      return `${who(event.seat)} took the up-card ${cardName(event.card)}.`;
    case 'up_card_passed':
      return `${who(event.seat)} passed the up-card.`;
    case 'drew':
      if (event.source === 'discard') return `${who(event.seat)} took ${cardName(event.card)} from the pile.`;
      return event.card
        ? `${who(event.seat)} drew ${cardName(event.card)} from the stock.`
        : `${who(event.seat)} drew from the stock.`;
    case 'discarded':
      return `${who(event.seat)} discarded ${cardName(event.card)}.`;
    case 'knocked': {
      const discard = event.discard ? `, discarding ${cardName(event.discard)}` : '';
      const dw = event.kind === 'knock' ? ` with ${event.deadwood_points} deadwood` : '';
      return `${who(event.seat)} ${KIND[event.kind]}${dw}${discard}.`;
    }
    case 'laid_off':
      return `${who(event.seat)} laid off ${cardName(event.card)}.`;
    case 'hand_scored':
      return `${headline(event, players, me)}.`;
    case 'hand_washed':
      return `Hand ${event.hand_number} washed${event.reason === 'no_progress' ? ' (no progress)' : ''}: no score.`;
    case 'hand_acknowledged':
      return `${who(event.seat)} ${who(event.seat) === 'You' ? 'are' : 'is'} ready for the next hand.`;
    case 'resigned':
      if (claimed) return `The match was claimed from ${whom(event.seat)}.`;
      return `${who(event.seat)} resigned.`;
    case 'match_settled': {
      // The winner's total first, whichever seat won.
      const score = `${event.totals[event.winner]} to ${event.totals[1 - event.winner]}`;
      const loser = event.resigned === null || event.resigned === undefined ? null : whom(event.resigned);
      const resigned = loser === null ? '' : claimed ? ` (claimed from ${loser})` : ` (${loser} resigned)`;
      // abandoned: the house AI played both seats to the end (docs/ratings.md)
      const away = event.abandoned ? ` ${NOT_RATED_AWAY}` : '';
      return `${who(event.winner)} won the match${resigned}, ${score}.${away}`;
    }
    case 'turn_timed_out':
      return event.between_hands
        ? `${who(event.seat)} ran out of time; the server dealt on.`
        : `${who(event.seat)} ran out of time; the computer plays this turn.`;
    case 'match_claimed':
      return `${who(event.seat)} claimed the match (${event.reason === 'absence' ? 'the opponent is away' : 'three timeouts in a row'}).`;
    default:
      return 'The match moved on.'; // an event this page does not know: never its raw name
  }
}

/** "Time ran out for you: the computer discarded 7♠.": whose turn it was, and who
 * made the move (the house easy AI; between hands, the server's "ready"). */
export function playedFor(event, players, me) {
  const whom = me !== null && event.seat === me ? 'you' : players[event.seat];
  const what = event.type === 'hand_acknowledged'
    ? `the server made ${whom} ready for the next hand.`
    : narrate(event, players.map((p, seat) => (seat === event.seat ? 'the computer' : p)), null);
  return `Time ran out for ${whom}: ${what}`;
}

const OUTCOME = { knock: 'knocked', undercut: 'undercut', gin: 'gin', big_gin: 'big gin' };

export function headline(result, players, me) {
  const winner = seatName(players, result.winner, me);
  const knocker = seatName(players, result.knocker, me);
  const pts = `${result.points} point${result.points === 1 ? '' : 's'}`;
  switch (result.outcome) {
    case 'undercut':
      return `${knocker} knocked but ${winner === 'You' ? 'you' : winner} undercut: ${pts} to ${winner === 'You' ? 'you' : winner}`;
    case 'gin':
      return `${knocker} went gin: ${pts}`;
    case 'big_gin':
      return `${knocker} declared big gin: ${pts}`;
    default:
      return `${knocker} knocked and won ${pts}`;
  }
}

/** How the points were counted, as lines of words and numbers. */
export function explain(result, rules) {
  const K = result.knocker_deadwood;
  const D = result.defender_deadwood;
  const P = result.points;
  switch (result.outcome) {
    case 'knock':
      return [
        `Knock: the defender's deadwood ${D} minus the knocker's deadwood ${K}.`,
        `${D} − ${K} = ${P}`,
      ];
    case 'undercut':
      return [
        `Undercut: the defender's deadwood ${D} is not more than the knocker's ${K}, so the defender scores the difference plus the undercut bonus (${rules.undercut_bonus}).`,
        `(${K} − ${D}) + ${rules.undercut_bonus} = ${P}`,
      ];
    case 'gin':
      return [
        `Gin: the gin bonus (${rules.gin_bonus}) plus the defender's deadwood ${D}; no layoffs against gin.`,
        `${rules.gin_bonus} + ${D} = ${P}`,
      ];
    case 'big_gin':
      return [
        `Big gin: the big-gin bonus (${rules.big_gin_bonus}) plus the defender's deadwood ${D}; no layoffs.`,
        `${rules.big_gin_bonus} + ${D} = ${P}`,
      ];
    default:
      return [];
  }
}

export const BONUS_KIND = { match: 'match bonus', shutout: 'shutout bonus', none: 'no match bonus' };

/** Seats are recorded by player id ("ai:easy" for the computer): show people's names. */
export function displayName(raw, me) {
  if (typeof raw !== 'string') return String(raw);
  if (raw.startsWith('ai:')) return `Computer (${raw.slice(3)})`;
  if (me && raw === me.id) return isolate(me.name);
  return raw;
}
