"""Glicko-2 (Glickman, "Example of the Glicko-2 system"): ratings with a deviation and a volatility.

Pure arithmetic, nothing else: a rating period's results in, the new rating out. The
server treats each rated match as a rating period of its own (as lichess does with
each game), so a rating moves the moment a match settles; and, as lichess does, the
deviation widens (step 6) by the time that has passed since the player's previous
match, counted in days (``elapsed``), not by one whole period per match: ten matches
in an evening teach the system more than ten matches over ten days. Numbers are on the
familiar Glicko scale (1500 and 350 for a newcomer); the update itself runs on the
Glicko-2 scale, as the paper's steps 2 to 8 do.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import msgspec

SCALE = 173.7178  # Glicko-2's scale factor: mu = (r - 1500) / SCALE
INITIAL_RATING = 1500.0
INITIAL_DEVIATION = 350.0
INITIAL_VOLATILITY = 0.06
TAU = 0.5  # the system constant: how far one surprising result may move the volatility
CONVERGENCE = 1e-6  # the paper's epsilon for the volatility iteration
PERIOD_SECONDS = 86_400  # one rating period of idleness: a day


class Rating(msgspec.Struct, frozen=True):
    """A player's strength: ``rating`` plus or minus about twice ``deviation`` (95%)."""

    rating: float = INITIAL_RATING
    deviation: float = INITIAL_DEVIATION
    volatility: float = INITIAL_VOLATILITY


def _g(phi: float) -> float:
    return 1.0 / math.sqrt(1.0 + 3.0 * phi * phi / (math.pi * math.pi))


def _expected(mu: float, mu_j: float, phi_j: float) -> float:
    return 1.0 / (1.0 + math.exp(-_g(phi_j) * (mu - mu_j)))


def expected_score(player: Rating, opponent: Rating) -> float:
    """The chance that ``player`` beats ``opponent``, both ratings' uncertainty included.

    Glickman's prediction of one game between two rated players: the logistic curve is
    flattened by the combined deviation, so an uncertain rating predicts less boldly.
    """
    mu, mu_j = (player.rating - INITIAL_RATING) / SCALE, (opponent.rating - INITIAL_RATING) / SCALE
    phi = math.hypot(player.deviation, opponent.deviation) / SCALE
    return _expected(mu, mu_j, phi)


def update(
    player: Rating,
    results: Sequence[tuple[Rating, float]],
    tau: float = TAU,
    elapsed: float = 1.0,
) -> Rating:
    """The player's rating after one rating period: ``results`` pairs each opponent's
    pre-period rating with the score (1 a win, 0 a loss, 0.5 a draw). ``elapsed`` is how
    many periods (days, a fraction allowed) the deviation widens by first; the paper's
    example is one whole period. A deviation never widens past a newcomer's 350."""
    mu = (player.rating - INITIAL_RATING) / SCALE
    phi = player.deviation / SCALE
    sigma = player.volatility
    if not results:  # step 6 alone: an idle period only widens the deviation
        return Rating(player.rating, _widened(phi, sigma, elapsed) * SCALE, sigma)
    # Step 3 and 4: the estimated variance v and improvement delta from the results.
    inverse_v = 0.0
    improvement = 0.0
    for opponent, score in results:
        mu_j = (opponent.rating - INITIAL_RATING) / SCALE
        phi_j = opponent.deviation / SCALE
        g, e = _g(phi_j), _expected(mu, mu_j, phi_j)
        inverse_v += g * g * e * (1.0 - e)
        improvement += g * (score - e)
    v = 1.0 / inverse_v
    delta = v * improvement
    new_sigma = _volatility(phi, sigma, v, delta, tau)
    # Steps 6 and 7: widen by the volatility, then narrow by what the period taught.
    phi_star = _widened(phi, new_sigma, elapsed)
    new_phi = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    new_mu = mu + new_phi * new_phi * improvement
    # Step 8: back to the Glicko scale.
    return Rating(INITIAL_RATING + SCALE * new_mu, SCALE * new_phi, new_sigma)


def _widened(phi: float, sigma: float, elapsed: float) -> float:
    """Step 6 over ``elapsed`` periods, at most a newcomer's deviation."""
    widened = math.sqrt(phi * phi + max(elapsed, 0.0) * sigma * sigma)
    return min(widened, INITIAL_DEVIATION / SCALE)


def _volatility(phi: float, sigma: float, v: float, delta: float, tau: float) -> float:
    """Step 5: the new volatility, the root of the paper's f(x) by the Illinois algorithm."""
    a = math.log(sigma * sigma)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta * delta - phi * phi - v - ex) / (2.0 * (phi * phi + v + ex) ** 2) - (
            x - a
        ) / (tau * tau)

    low = a
    if delta * delta > phi * phi + v:
        high = math.log(delta * delta - phi * phi - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        high = a - k * tau
    f_low, f_high = f(low), f(high)
    while abs(high - low) > CONVERGENCE:
        c = low + (low - high) * f_low / (f_high - f_low)
        f_c = f(c)
        if f_c * f_high <= 0:
            low, f_low = high, f_high
        else:
            f_low /= 2.0
        high, f_high = c, f_c
    return math.exp(low / 2.0)
