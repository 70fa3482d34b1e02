// What the viewer may do, as the engine listed it (`view.legal`): a command found by its
// type (and card or meld), the same command as the API wants it sent, and whether the
// viewer is to act at all. The page never decides what is legal, it only offers what the
// engine listed. Apart from table.js and actionbar.js, which both offer these commands
// (the piles; the action bar's buttons), so that neither reaches into the other for them,
// nor do moves.js and hand.js, which send them.

/** The legal command of this type (and card/meld) for the viewer, or undefined. */
export function findLegal(view, type, fields = {}) {
  return view.legal.find(
    (cmd) => cmd.type === type && Object.entries(fields).every(([k, v]) => cmd[k] === v),
  );
}

/** A legal command as the API wants it: the seat is the caller's, never sent. */
export function asAction(cmd) {
  const { seat, ...action } = cmd;
  return action;
}

/** Whether the viewer is one of the seats to act now. */
export const myTurn = (view) => view.to_act.includes(view.seat);

/** The way out a discard of ``card`` gives up this turn: 'big gin' (any discard does),
 * 'gin' or 'knock' with that very card, as the engine lists them; null when a discard
 * gives up none. A discard that does is asked about once before it goes (actionbar.js). */
export function forgoes(view, card) {
  if (findLegal(view, 'big_gin')) return 'big gin';
  if (card && findLegal(view, 'gin', { card })) return 'gin';
  if (card && findLegal(view, 'knock', { card })) return 'knock';
  return null;
}
