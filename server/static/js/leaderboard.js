// The leaderboards (people; bots and the house levels) and the player's own rating, from
// GET /v1/leaderboard and GET /v1/players/{id}/rating. Provisional ratings are not listed.
// Each name links to the player's profile (profile.js).
import { fill, h } from './dom.js';
import { api, savedPlayer } from './api.js';
import { profileHref, profileLink } from './profilelink.js';
import { interval, ratingText } from './ratingtext.js';

const PAGE = 25;

function board(page, kind, offset, redraw) {
  const me = savedPlayer();
  if (!page.entries.length) return h('p', { 'data-testid': 'leaderboard-empty' }, offset ? 'No more ratings.' : 'Nobody here has an established rating yet.');
  return [
    h(
      'table',
      { class: 'history leaderboard', 'data-testid': 'leaderboard' },
      h('thead', {}, h('tr', {}, ['Rank', 'Player', 'Rating', 'Matches'].map((t) => h('th', { scope: 'col' }, t)))),
      h(
        'tbody',
        {},
        page.entries.map((entry) =>
          h(
            'tr',
            { class: me && entry.player.id === me.id ? 'me' : null, dataset: { playerId: entry.player.id } },
            h('td', {}, entry.rank),
            // Each name opens the player's profile (profile.js): their rated matches, totals, live matches.
            h('td', {}, entry.player.kind === 'ai' ? h('a', { href: profileHref(entry.player.id), 'data-testid': 'profile-link' }, entry.player.name, ' (house AI, anchored)') : profileLink(entry.player, page.entries.map((e) => e.player))),
            h('td', {}, ratingText(entry.player.rating)),
            h('td', {}, entry.games),
          ),
        ),
      ),
    ),
    h(
      'p',
      { class: 'pager' },
      offset > 0 ? h('button', { type: 'button', 'data-testid': 'board-previous', onclick: () => redraw(kind, Math.max(0, offset - PAGE)) }, 'Previous') : null,
      page.more ? h('button', { type: 'button', 'data-testid': 'board-next', onclick: () => redraw(kind, offset + PAGE) }, 'Next') : null,
    ),
  ];
}

export async function showLeaderboard(root, { onError }) {
  const me = savedPlayer();
  // The boards need no token: a visitor sees who plays here, and how to be listed.
  const mine = me
    ? h('p', { class: 'my-rating', 'data-testid': 'my-rating' }, 'Your rating: …')
    : h('p', { 'data-testid': 'leaderboard-signed-out' }, 'To be rated, ', h('a', { href: '#/' }, 'start a match'), ' or ', h('a', { href: '#/lobby' }, 'enter the lobby'), ' with a name.');
  const tabs = h('p', { class: 'tabs' });
  const body = h('div', {});
  fill(root, h('h1', {}, 'Leaderboard'), mine, tabs, body);
  if (me) {
    api
      .rating(me.id)
      .then((r) =>
        fill(
          mine,
          `Your rating: ${Math.round(r.rating)} ± ${interval(r.deviation)} after ${r.games} rated ${r.games === 1 ? 'match' : 'matches'}`,
          r.provisional ? ' (provisional: not listed until it settles)' : '',
        ),
      )
      .catch(() => fill(mine, ''));
  }
  const redraw = async (kind, offset) => {
    // The buttons are drawn anew: the one pressed keeps the keyboard (it was dropped to the
    // page's top), or, gone from the new page (Previous on the first), the board's first.
    const pressed = root.contains(document.activeElement) ? document.activeElement.dataset.testid : null;
    fill(
      tabs,
      ['person', 'bot'].map((k) =>
        h('button', { type: 'button', 'aria-pressed': String(k === kind), 'data-testid': `board-${k}`, onclick: () => redraw(k, 0) }, k === 'person' ? 'People' : 'Bots and the house'),
      ),
    );
    fill(body, h('p', {}, 'Loading…'));
    try {
      fill(body, board(await api.leaderboard(kind, offset, PAGE), kind, offset, redraw));
    } catch (err) {
      fill(body, '');
      onError(err);
    }
    const lost = document.activeElement === document.body || root.contains(document.activeElement);
    if (pressed && lost) (root.querySelector(`[data-testid=${pressed}]`) || root.querySelector(`[data-testid=board-${kind}]`)).focus();
  };
  await redraw('person', 0);
}
