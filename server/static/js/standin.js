// Moves the server made for a seat whose time ran out. The log says ``turn_timed_out``
// {seat}; the moves of that seat that follow, until another seat (or the hand) moves,
// were the house easy AI's (between hands: the server's "ready"), not the player's own
// choice, and the page must never tell them as if the player chose them.

/** The events that are one of a hand's ``moves`` (view.moves). */
const MOVES = new Set(['up_card_taken', 'up_card_passed', 'drew', 'discarded', 'knocked', 'laid_off']);
export const isMove = (event) => MOVES.has(event.type);

/** Follows one match's events in order: ``made(event)`` says whether the stand-in made it. */
export class StandIn {
  constructor() {
    this.seat = null; // the seat whose turn the stand-in is playing
  }

  made(event) {
    if (event.type === 'turn_timed_out') {
      this.seat = event.seat;
      return false;
    }
    const forSeat = this.seat !== null && event.seat === this.seat;
    if (!forSeat) this.seat = null; // another seat, or the hand itself, moved on
    return forSeat;
  }
}

/** In a match's log (``[{version, event}]``, in order), whether ``events[index]`` was
 * made by the stand-in: for a replay, which may start anywhere. */
export function madeByStandIn(events, index) {
  const seat = events[index].event.seat;
  if (seat === undefined || events[index].event.type === 'turn_timed_out') return false;
  for (let i = index - 1; i >= 0; i--) {
    const earlier = events[i].event;
    if (earlier.type === 'turn_timed_out') return earlier.seat === seat;
    if (earlier.seat !== seat) return false;
  }
  return false;
}
