// The move clock's countdown. Every view carries `clock` (null without one): whose clock
// runs and its deadline in ms since 1970 on the server's clock. The page only counts down
// to that deadline, against the server's time (servertime.js), never its own clock's; the
// server alone decides when time is up (a late turn is played by the house AI).
import { fill } from './dom.js';
import { serverNow } from './servertime.js';
import { announce } from './ui.js';

const shown = new Map(); // a name ('match', 'watch') -> { el, view, names, seat }
let ticking = null;

// The countdown is no live region (read every second it would drown everything else), so
// a screen reader is told once, on the player's own turn, that their time runs low: 10 s
// before a move's time is up, or as their bank drops under 30 s. A turn that starts under
// that (a short clock, a bank already low) is not warned at every turn.
const LOW_MOVE_MS = 10000;
const LOW_BANK_MS = 30000;
let warned = null; // the deadline of the turn whose low time was said

function seconds(ms) {
  const s = Math.max(0, Math.ceil(ms / 1000));
  return s >= 60 ? `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')}` : `${s} s`;
}

/** The clock in words at `now` (the server's time): whose time runs and how much is
 * left, or '' for none. */
export function clockText(view, names, seat, now = serverNow()) {
  const clock = view && view.clock;
  if (!clock || view.phase === 'match_over') return '';
  const who = (s) => (s === seat ? 'Your' : `${names[s]}'s`);
  const parts = [];
  if (clock.running !== null && clock.deadline_ms !== null) {
    parts.push(`${who(clock.running)} time: ${seconds(clock.deadline_ms - now)}`);
  } else if (clock.next_hand_deadline_ms !== null) {
    parts.push(`Next hand in ${seconds(clock.next_hand_deadline_ms - now)}`);
  }
  if (clock.bank_ms) {
    const other = clock.running === null ? null : 1 - clock.running;
    if (other !== null) parts.push(`${who(other)} bank: ${seconds(clock.bank_ms[other])}`);
  }
  clock.timeouts_in_a_row.forEach((n, s) => {
    const whose = s === seat ? 'You' : names[s];
    if (n === 1) parts.push(`${whose} ran out of time last turn`);
    else if (n) parts.push(`${whose} ran out of time ${n} turns in a row`);
  });
  return parts.join(' · ');
}

/** Say once that the player's own time runs low (``seat``: theirs; null for a spectator). */
function warnLow(view, seat, now) {
  const clock = view && view.clock;
  if (seat === null || !clock || view.phase === 'match_over') return;
  if (clock.running !== seat || clock.deadline_ms === null || warned === clock.deadline_ms) return;
  const bank = Boolean(clock.bank_ms);
  const low = bank ? LOW_BANK_MS : LOW_MOVE_MS;
  const allowed = bank ? clock.bank_ms[seat] : clock.per_move_ms;
  const left = clock.deadline_ms - now;
  if (allowed <= low || left > low || left <= 0) return;
  warned = clock.deadline_ms;
  announce(bank ? `Your time bank is under ${low / 1000} seconds.` : `Under ${low / 1000} seconds left for your move.`, { urgent: true });
}

function tick() {
  const now = serverNow();
  for (const [name, item] of shown) {
    if (!item.el.isConnected) {
      shown.delete(name);
      continue;
    }
    warnLow(item.view, item.seat, now);
    const text = clockText(item.view, item.names, item.seat, now);
    item.el.hidden = !text;
    fill(item.el, text);
  }
  if (!shown.size) {
    clearInterval(ticking);
    ticking = null;
  }
}

/** Show `view`'s clock in `el` and keep counting down until the next view comes. */
export function showClock(name, el, view, names, seat = null) {
  shown.set(name, { el, view, names, seat });
  tick();
  if (!ticking && shown.size) ticking = setInterval(tick, 250);
}

/** Stop counting down `name`'s clock and hide it: its screen left the match, and a timer
 * that kept redrawing a hidden screen every 250 ms would outlive it. */
export function hideClock(name) {
  const item = shown.get(name);
  if (item) item.el.hidden = true;
  shown.delete(name);
  if (!shown.size) {
    clearInterval(ticking);
    ticking = null;
  }
}
