// A rating as every screen writes it (the header, the leaderboard, a profile, the lobby's
// search), so that they read the same: they once rounded the ± each its own way (520
// against 521), and the search left the ± out. Apart from leaderboard.js so that the
// profile, which the leaderboard links to, needs no import back.

/** "1512 ± 180 (provisional)": the rating and twice its deviation, the 95% interval. */
export function ratingText(rating) {
  if (!rating) return 'unrated';
  return `${rating.rating} ± ${interval(rating.deviation)}${rating.provisional ? ' (provisional)' : ''}`;
}

/** The ± of a deviation: twice it as the server rounds it (a rating summary's deviation is a
 * whole number), so the full record's 260.27 reads 520 as the header's 260 does, not 521. */
export const interval = (deviation) => 2 * Math.round(deviation);
