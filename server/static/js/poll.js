// Asking the server again and again while something is on screen: the live matches list,
// the answer to a rematch offer, the opponent's rematch offer (a claim by absence once was;
// the match socket says it now: claimwatch.js). Each had a timer of its own, and each
// forgot something another remembered (the wait for a
// rematch's answer asked every second in a tab nobody looked at). One rule for all:
// - one request at a time: the next is planned only once the last has answered;
// - nothing is asked while the tab is hidden, and the tab shown again asks at once;
// - it ends when ``alive()`` no longer holds (the screen was left) or ``stop()`` is called.

/**
 * Call ``ask(handle)`` now (or after ``first`` ms) and again ``every`` ms after each answer.
 * ``every``: milliseconds, or a function of ``ask``'s last result giving them.
 * ``alive``: whether the thing asked about is still on screen; once false, polling ends.
 * Returns the handle ``{ stop, soon }``; ``ask`` is given it too, to stop from within (the
 * answer it waited for came). ``soon()`` asks at once instead of at the planned time.
 */
export function pollWhileVisible(ask, { every, alive = () => true, first = 0 }) {
  let timer = null;
  let asking = false;
  let hurry = false; // ``soon()`` was called while an ask was on its way
  let stopped = false;
  let last;

  const stop = () => {
    stopped = true;
    clearTimeout(timer);
    timer = null;
    document.removeEventListener('visibilitychange', onVisibility);
  };

  const run = async () => {
    timer = null;
    if (stopped) return;
    if (!alive()) return stop();
    if (document.hidden || asking) return; // the tab shown again (or the answer) plans the next
    asking = true;
    try {
      last = await ask(handle);
    } catch {
      last = undefined; // the next ask may fare better
    } finally {
      asking = false;
    }
    if (stopped) return;
    if (!alive()) return stop();
    plan(hurry ? 0 : typeof every === 'function' ? every(last) : every);
    hurry = false;
  };

  const plan = (ms) => {
    clearTimeout(timer);
    timer = setTimeout(run, ms);
  };

  function onVisibility() {
    if (document.hidden) {
      clearTimeout(timer); // a hidden tab asks nothing
      timer = null;
    } else if (!asking) {
      plan(0);
    }
  }

  /** Ask now rather than at the planned time (what made it seldom is gone), or as soon
   * as the ask on its way is answered; a hidden tab asks once shown, as ever. */
  const soon = () => {
    if (stopped || document.hidden) return;
    if (asking) hurry = true;
    else plan(0);
  };

  const handle = { stop, soon };
  document.addEventListener('visibilitychange', onVisibility);
  if (first) plan(first);
  else run();
  return handle;
}
