// A player's profile (#/player/ID): a name seen on the leaderboard, in a search or in
// History said nothing more of who that is. Shown here: the kind (person, bot or house AI),
// the rating and its last rated matches, the totals, and the matches the player sits in now
// that anyone may watch. Every answer read here is public (GET /v1/players/{id}, …/rating,
// …/stats, /v1/matches/watchable), so a visitor not signed in sees all of it; signing in
// adds only the Challenge.
import { fill, h, heard } from './dom.js';
import { api, ApiError, savedPlayer } from './api.js';
import { ratingText } from './ratingtext.js';
import { refName } from './names.js';
import { listedRules } from './terms.js';
import { setPref } from './prefs.js';
import { statsLine } from './history.js';
import { challengeHref, profileLink } from './profilelink.js';

const HISTORY = 20; // api.rating's limit: the last rated matches shown
const KINDS = { person: 'Person', bot: 'Bot (a program)', ai: 'House AI' };

let visits = 0; // a late answer for a profile left since is not drawn

const houseLevel = (id) => (id.startsWith('ai:') ? id.slice(3).split(':')[0] : null); // ai:hard:v1 → hard
const notFound = (err) => err instanceof ApiError && err.status === 404;
const orNone = (promise) => promise.catch((err) => (notFound(err) ? null : Promise.reject(err)));
const when = (iso) => (iso ? new Date(iso).toLocaleDateString(undefined, { dateStyle: 'medium' }) : '');

function ratedMatches(rating) {
  if (rating.anchored) return h('p', { 'data-testid': 'profile-no-history' }, 'A house AI\'s rating is anchored: its matches do not move it, and are listed on its opponents\' profiles.');
  if (!rating.history.length) return h('p', { 'data-testid': 'profile-no-history' }, 'No rated match yet.');
  const among = rating.history.map((c) => c.opponent_player); // told apart if alike
  return h(
    'table',
    { class: 'history', 'data-testid': 'profile-history' },
    h('thead', {}, h('tr', {}, ['Date', 'Opponent', 'Result', 'Rating'].map((t) => h('th', { scope: 'col' }, t)))),
    h(
      'tbody',
      {},
      rating.history.map((c) =>
        h(
          'tr',
          { 'data-testid': 'profile-history-row', dataset: { matchId: c.match_id } },
          h('td', { dataset: { label: 'Date' } }, when(c.recorded_at)),
          h('td', { dataset: { label: 'Opponent' } }, profileLink(c.opponent_player, among)),
          h('td', { dataset: { label: 'Result' } }, c.won ? 'won' : 'lost'),
          h('td', { dataset: { label: 'Rating' } }, `${Math.round(c.rating_before)} → ${Math.round(c.rating)}`),
        ),
      ),
    ),
  );
}

function liveMatches(ref, live) {
  if (!live.length) return h('p', { 'data-testid': 'profile-not-playing' }, 'Not playing a match anyone may watch now.');
  return h(
    'ul',
    { 'data-testid': 'profile-live' },
    live.map((m) => {
      const seat = m.seats[1].id === ref.id ? 1 : 0; // the scores are seat 0's, then seat 1's
      return h(
        'li',
        {},
        'Against ',
        profileLink(m.seats[1 - seat], m.seats),
        ` (${listedRules(m.rules)}), ${m.scores[seat]} : ${m.scores[1 - seat]} so far, ${refName(ref)}'s points first `,
        h('a', { class: 'button', href: `#/watch/${encodeURIComponent(m.match_id)}`, 'data-testid': 'profile-watch' }, 'Watch', heard(` ${refName(m.seats[0], m.seats)} against ${refName(m.seats[1], m.seats)}`)),
      );
    }),
  );
}

/** What the viewer may do with the player: challenge a person or bot (in the lobby, the
 * player chosen), play a house level from the start screen, or sign in first. */
function actions(ref, me) {
  if (me && me.id === ref.id) return h('p', { 'data-testid': 'profile-you' }, 'This is you.');
  const level = ref.kind === 'ai' ? houseLevel(ref.id) : null;
  if (level) {
    const play = () => setPref('level', level); // the start form opens with this opponent chosen
    return h('p', {}, h('a', { class: 'button', href: '#/', 'data-testid': 'profile-play-level', onclick: play }, 'Play the computer at this level', heard(` (${level})`)));
  }
  if (!me) return null;
  return h('p', {}, h('a', { class: 'button primary', href: challengeHref(ref.id), 'data-testid': 'profile-challenge' }, 'Challenge', heard(` ${refName(ref)}`)));
}

/** Signed out: the lobby's name form, after which the lobby lists this player to challenge. */
const signInLine = (ref) =>
  h('p', { class: 'hint', 'data-testid': 'profile-signed-out' }, 'To challenge this player, ', h('a', { href: challengeHref(ref.id), 'data-testid': 'profile-enter-lobby' }, 'enter the lobby'), ' with a name.');

function noSuchPlayer(root) {
  fill(
    root,
    h('h1', { id: 'player-title' }, 'No such player'),
    h('p', { 'data-testid': 'profile-unknown' }, 'No player here has this id: the link may be mistyped, or from another server.'),
  );
}

/** The player, their rating record and totals; each null where the server has none (a
 * house level's totals, ``ai:random``'s rating). */
function read(id) {
  return Promise.all([orNone(api.player(id)), orNone(api.rating(id)), houseLevel(id) ? null : orNone(api.stats(id))]);
}

export async function showProfile(root, id, { onError }) {
  const visit = ++visits;
  const me = savedPlayer();
  const level = houseLevel(id);
  fill(root, h('h1', { id: 'player-title' }, 'Player'), h('p', {}, 'Loading…'));
  try {
    const [{ matches: live }, [ref, rating, stats]] = await Promise.all([api.watchableFor(id), read(id)]);
    if (visit !== visits) return;
    if (!ref) return noSuchPlayer(root);
    fill(
      root,
      h('h1', { id: 'player-title', 'data-testid': 'profile-name' }, refName(ref)),
      h(
        'p',
        { 'data-testid': 'profile-summary' },
        KINDS[ref.kind] || ref.kind,
        ' · rated ',
        h('b', { 'data-testid': 'profile-rating' }, ratingText(ref.rating)),
        rating ? ` after ${rating.games} rated ${rating.games === 1 ? 'match' : 'matches'}` : '',
        ref.kind === 'ai' && ref.rating ? ' (anchored: it never moves)' : '',
      ),
      actions(ref, me),
      me || level ? null : signInLine(ref),
      h('h2', {}, 'Playing now'),
      liveMatches(ref, live),
      h('h2', {}, 'Last rated matches'),
      rating ? ratedMatches(rating) : h('p', {}, 'No rated match yet.'),
      h('h2', {}, 'Totals'),
      stats ? statsLine(stats, 'profile-stats') : h('p', { 'data-testid': 'profile-no-stats' }, level ? 'A house AI keeps no totals: its rating is its record.' : 'No totals yet.'),
    );
  } catch (err) {
    if (visit !== visits) return;
    fill(root, h('h1', { id: 'player-title' }, 'Player'), h('p', {}, 'Could not load this player.'));
    onError(err);
  }
}
