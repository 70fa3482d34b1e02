// Where a player's profile is (#/player/ID), for every list that names players: the
// leaderboard, the lobby's search, History and a profile's own lists. A module of its
// own because the profile imports History (its totals line) and History links here.
import { h } from './dom.js';
import { refName } from './names.js';

/** The address of a player's profile. */
export const profileHref = (id) => `#/player/${encodeURIComponent(id)}`;

/** The lobby with that player listed to challenge (a profile's Challenge). */
export const challengeHref = (id) => `#/challenge/${encodeURIComponent(id)}`;

/** A link to a player's profile, named by the player as ``refName`` names them. */
export const profileLink = (ref, among = null, attrs = {}) => h('a', { href: profileHref(ref.id), 'data-testid': 'profile-link', ...attrs }, refName(ref, among));
