// The page's shell: routes (#/, #/match/ID, #/history, #/replay/ID, #/lobby,
// #/join/TABLE/CODE, #/watch/MATCH[/CODE], #/live, #/leaderboard, #/rules[/MATCH],
// #/player/ID, #/challenge/PLAYER, #/sign-in[/CODE]), the start
// screen's two forms (a match against the computer; two computers to watch), and the
// wiring of events.
// The table itself lives in match.js, the lobby in lobby.js, spectating in watch.js.
import { $, fill, h } from './dom.js';
import { api, ApiError, forgetPlayer, forgetRefusedPlayer, newClientSeed, PLAYER_KEY, rememberRating, savedMatch, savedPlayer, saveCreatedPlayer, saveMatch, savePlayer } from './api.js';
import { closeMatch, expectMatch, onTableClick, onTableKey, openMatch, setUpHand } from './match.js';
import { customRules, opponentName, showHistory, showReplay } from './history.js';
import { closeLobby, showLobby } from './lobby.js';
import { showProfile } from './profile.js';
import { showLeaderboard } from './leaderboard.js';
import { ratingText } from './ratingtext.js';
import { closeWatch, showWatch } from './watch.js';
import { closeLive, showLive } from './livematches.js';
import { followChallenges } from './challengenotice.js';
import { closeRename, setUpRename } from './rename.js';
import { closeCode, setUpOtherDevice, showSignIn } from './signin.js';
import { problemText, show, toast } from './ui.js';
import { applyPrefs, pref, setPref } from './prefs.js';
import { PRESET_ABOUT } from './presets.js';
import { listedRules } from './terms.js';
import { showRules } from './rules.js';
import { expectTour, maybeTour } from './tour.js';
import { forgetWatchCodes } from './share.js';
import { isolate, takesAName } from './names.js';
import { rememberStartClock, resetStartClock, setUpStartClock, startClock } from './startclock.js';
import { showProblem } from './timecontrol.js';

const ratingWords = (rating) => ` · rated ${ratingText(rating)}`;

let shownPlayer = null; // the player this tab acts as, as last drawn in the header

function renderWho() {
  const player = savedPlayer();
  shownPlayer = player;
  // The rating last read, or the one the player was made with (kept with it, api.js's
  // ``rememberRating``), drawn at once while it is read anew. Drawn empty, the header (one
  // row at a desktop's width without it, two with it) shrank and grew back at each move
  // between screens, and just after "Enter the lobby", so the page under the pointer moved
  // a line and a click just then could land beside its button.
  const known = player && player.rating !== undefined ? ratingWords(player.rating) : '';
  fill($('#who'), player ? ['Playing as ', h('b', {}, isolate(player.name)), h('span', { class: 'rating', 'data-testid': 'who-rating' }, known)] : 'Not signed in');
  $('#nav-signout').hidden = !player;
  $('#nav-rename').hidden = !player;
  $('#nav-device').hidden = !player;
  $('#have-code').hidden = Boolean(player);
  if (!player) closeHeaderPanels('signout'); // signed out: nothing left to rename or take elsewhere
  if (player) {
    api
      .me()
      .then((me) => {
        const slot = $('#who [data-testid=who-rating]');
        if (!slot || me.id !== (savedPlayer() || {}).id) return;
        const text = ratingWords(me.rating);
        rememberRating(me.id, me.rating);
        if (slot.textContent !== text) fill(slot, text);
      })
      .catch((err) => {
        // A token this server does not know (another database's, revoked, expired): the
        // rating kept with it is not one this server gives, so it is not shown as if it were
        // (unless the token refused is no longer the one kept: a new one answers for itself).
        if (!(err instanceof ApiError && err.status === 401) || (savedPlayer() || {}).token !== player.token) return;
        rememberRating(player.id, undefined);
        const slot = $('#who [data-testid=who-rating]');
        if (slot && slot.textContent) fill(slot, '');
      });
  }
}

// A match just moved the player's rating (match.js): the header shows the new one.
document.addEventListener('ginrummy:rating-changed', renderWho);
document.addEventListener('ginrummy:player-changed', renderWho);
// Signed in or out on this screen: the challenges followed off the lobby are the new player's.
document.addEventListener('ginrummy:player-changed', () => followChallenges(document.body.dataset.screen !== 'lobby'));

/** A part of the address, decoded; one that will not decode (``%E0``) is kept as typed, to
 * be looked up and not found, where it threw and left the last screen up. */
function decoded(part) {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}

/** One question in the header at a time: the sign-out question, "Change name" and
 * "Other device" each close the others as they open (``keep``: the one opening). */
function closeHeaderPanels(keep = null) {
  if (keep !== 'signout') $('#signout-confirm').hidden = true;
  if (keep !== 'rename') closeRename(false);
  if (keep !== 'device') closeCode(false);
}

async function route() {
  const from = document.activeElement; // on the screen left, it goes with it
  const hash = location.hash.replace(/^#\/?/, '');
  const [name, id, code] = hash.split('/');
  renderWho();
  if (name !== 'lobby') closeLobby();
  if (name !== 'watch') closeWatch();
  if (name !== 'live') closeLive();
  // The lobby lists the challenges for the player, and its stream says when one comes;
  // every other screen has them read now and then and shown in a line of their own.
  followChallenges(!(name === 'lobby' || ((name === 'join' || name === 'challenge') && id)));
  // "How to play" from the table opens that match's rules.
  $('#nav-rules').href = name === 'match' && id ? `#/rules/${id}` : '#/rules';
  if (name === 'match' && id) return openMatch(decoded(id)).then(maybeTour);
  closeMatch();
  if (name === 'rules') {
    show('rules');
    return showRules($('#rules'), id ? decoded(id) : null, { onError: (e) => toast(problemText(e)) });
  }
  if (name === 'lobby') {
    show('lobby');
    return showLobby($('#lobby'));
  }
  if (name === 'join' && id) {
    show('lobby');
    return showLobby($('#lobby'), { invite: { table: decoded(id), code: code ? decoded(code) : null } });
  }
  if (name === 'challenge' && id) {
    // A profile's Challenge: the lobby, that player listed under "Challenge a player by name".
    show('lobby');
    return showLobby($('#lobby'), { challenge: decoded(id) });
  }
  if (name === 'player' && id) {
    show('player');
    return showProfile($('#player'), decoded(id), { onError: (e) => toast(problemText(e)) });
  }
  if (name === 'watch' && id) {
    show('watch');
    return showWatch($('#watch'), decoded(id), code ? decoded(code) : null);
  }
  if (name === 'live') {
    show('live');
    return showLive($('#live'));
  }
  if (name === 'leaderboard') {
    show('leaderboard');
    return showLeaderboard($('#leaderboard'), { onError: (e) => toast(problemText(e)) });
  }
  if (name === 'history') {
    show('history');
    return showHistory($('#history'), { onError: (e) => toast(problemText(e)) });
  }
  if (name === 'sign-in') {
    show('signin');
    return showSignIn($('#signin'), id ? decoded(id) : null);
  }
  if (name === 'replay' && id) {
    show('replay');
    return showReplay($('#replay'), decoded(id), { onError: (e) => toast(problemText(e)) });
  }
  showStart();
  keepKeyboard(from, $('#name'));
}

/** The control that had the keyboard was on the screen just left (New match, or N, at a
 * match's end): hidden with it, it let the focus fall to <body>, and a keyboard or
 * screen-reader user started again from the top of the page. The new screen's first
 * control takes it. A page just opened (nothing focused yet) keeps its natural order. */
function keepKeyboard(from, target) {
  if (!from || from === document.body || !target) return;
  const gone = !from.isConnected || Boolean(from.closest('.screen[hidden]'));
  if (gone) target.focus();
}

function showStart() {
  show('start');
  const player = savedPlayer();
  if (player && !$('#name').value) $('#name').value = player.name;
  $('#level').value = pref('level'); // the opponent and rules chosen last time
  $('#house-level-0').value = pref('houseLevel0');
  $('#house-level-1').value = pref('houseLevel1');
  $('#preset').value = pref('preset');
  resetStartClock();
  aboutPreset();
  const resume = $('#resume');
  resume.hidden = true;
  if (!player) return;
  api
    .listMatches('active')
    .then(({ matches }) => {
      if (!matches.length) return;
      fill(
        resume,
        h('h2', {}, 'Your matches in progress'),
        h(
          'ul',
          {},
          matches.map((m) =>
            h('li', {}, h('a', { href: `#/${m.watching ? 'watch' : 'match'}/${encodeURIComponent(m.match_id)}`, 'data-testid': 'resume-match' }, m.watching ? 'watching two house AIs (' : `against ${opponentName(m)} (`, customRules(h('span', {}, listedRules(m.rules)), m), `) — ${m.scores[0]} : ${m.scores[1]}`),
              h('span', { class: 'hint' }, ` · started ${startedWhen(m.started_at)} · match ${m.match_id.slice(0, 6)}`)),
          ),
        ),
      );
      resume.hidden = false;
    })
    .catch(() => {});
}

/** When a match started, to the second: two matches against the same opponent differ. */
const startedWhen = (iso) =>
  iso ? new Date(iso).toLocaleString(undefined, { dateStyle: 'medium', timeStyle: 'medium' }) : 'at an unknown time';

/** The chosen preset in a line, under the drop-down (whose own text stays short). */
function aboutPreset() {
  fill($('#preset-about'), PRESET_ABOUT[$('#preset').value] || '');
}

/** The page's part of a fair deal (a seed made here), and whether the player asked for hints. */
const dealChoice = () => ({ client_seed: newClientSeed(), hints: $('#hints').checked });

/** The preset's name, or the preset with the fields the player changed (a custom rule set). */
function chosenRules() {
  const preset = $('#preset').value;
  const changed = {};
  for (const [id, field] of [
    ['#rule-target', 'target'],
    ['#rule-knock-limit', 'knock_limit'],
    ['#rule-gin-bonus', 'gin_bonus'],
    ['#rule-undercut-bonus', 'undercut_bonus'],
  ]) {
    const raw = $(id).value.trim();
    if (raw !== '') changed[field] = Number(raw);
  }
  if ($('#rule-oklahoma').checked) changed.oklahoma = true;
  return Object.keys(changed).length ? { preset, ...changed } : preset;
}

/** This browser's player under the name typed (made, or renamed, as needed), then
 * ``create()`` as that player; a token from another database makes a new player and
 * tries once more. Both start-screen forms begin this way. */
async function asPlayer(name, create) {
  const player = savedPlayer();
  try {
    if (!player) {
      const created = await api.createPlayer(name);
      saveCreatedPlayer(created);
    } else if (player.name !== name) {
      await renameOrStartOver(player, name);
    }
  } catch (err) {
    // The server refused the name: the field in error takes the keyboard (timecontrol.js).
    if (err instanceof ApiError) err.field = $('#name');
    throw err;
  }
  try {
    return await create();
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) throw err;
    forgetRefusedPlayer(err);
    if (savedPlayer()) return create(); // another tab signed a player in meanwhile: it acts
    const created = await api.createPlayer(name);
    saveCreatedPlayer(created);
    return create();
  }
}

/** Why each start-screen form needs the name typed above it, though one holds no seat. */
const NAME_NEEDED = {
  '#start-form': 'Please enter your name.',
  '#house-form': 'Please enter your name above: the match is started in it, though you hold no seat.',
};

/** A start-screen form's submit: the name is needed, the button waits, a refusal is said. */
async function submitting(event, form, go) {
  event.preventDefault();
  const name = $('#name').value.trim();
  if (!name) {
    $('#name').focus(); // where the name goes, for the form below it too
    return toast(NAME_NEEDED[form]);
  }
  const button = $(`${form} button[type=submit]`);
  const at = location.hash;
  let refused = null;
  button.disabled = true;
  try {
    await go(name);
  } catch (err) {
    toast(problemText(err));
    refused = err.field || null;
  } finally {
    button.disabled = false;
    // Disabled while it waited, the button let the keyboard fall to <body>; a refusal
    // (the page stays) gives it back: to the field in error, or to the button pressed.
    const active = document.activeElement;
    if (location.hash === at && (!active || active === document.body)) (refused || button).focus();
  }
}

const startMatch = (event) =>
  submitting(event, '#start-form', async (name) => {
    setPref('level', $('#level').value);
    setPref('preset', $('#preset').value);
    // A start form that asks the server for hints (its "Hints" box) also shows them here.
    if ($('#hints')) setPref('hints', $('#hints').checked);
    let started;
    try {
      const clock = startClock(); // a clock the server would refuse is said, not sent
      started = await asPlayer(name, () => api.createMatch($('#level').value, chosenRules(), { ...dealChoice(), ...clock }));
    } catch (err) {
      if (showProblem('start', err)) return; // said beside the clock, a refusal in the server's words
      throw err;
    }
    rememberStartClock();
    expectMatch(started);
    expectTour();
    location.hash = `#/match/${encodeURIComponent(started.match_id)}`;
  });

/** Two house AIs play each other (POST /v1/house-matches) and the page watches them. */
const watchHouseMatch = (event) =>
  submitting(event, '#house-form', async (name) => {
    const levels = [$('#house-level-0').value, $('#house-level-1').value];
    setPref('houseLevel0', levels[0]);
    setPref('houseLevel1', levels[1]);
    setPref('preset', $('#preset').value);
    const started = await asPlayer(name, () => api.createHouseMatch(levels, chosenRules()));
    renderWho();
    location.hash = `#/watch/${encodeURIComponent(started.match_id)}`;
  });

/** A new name renames this browser's player: its matches stay its own. */
async function renameOrStartOver(player, name) {
  try {
    const renamed = await api.renamePlayer(player.id, name);
    savePlayer({ ...player, name: renamed.name });
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) throw err;
    forgetRefusedPlayer(err); // a token from another database: createMatch's retry makes a new player
  }
  renderWho();
}

/** Signing out forgets the only key to this player's matches, so it asks first. */
function askSignOut() {
  const player = savedPlayer();
  if (!player) return;
  closeHeaderPanels('signout');
  fill(
    $('#signout-confirm'),
    h('p', { id: 'signout-question' }, `Sign out ${isolate(player.name)}? This browser forgets the player, and its matches cannot be opened again.`),
    h('button', { type: 'button', class: 'danger', 'data-testid': 'signout-yes', onclick: signOut }, 'Sign out and forget'),
    h('button', { type: 'button', 'data-testid': 'signout-no', onclick: closeSignOut }, 'Keep playing'),
  );
  $('#signout-confirm').hidden = false;
  $('#signout-confirm [data-testid=signout-no]').focus();
}

function closeSignOut() {
  $('#signout-confirm').hidden = true;
  $('#nav-signout').focus();
}

function signOut() {
  closeLobby(true); // the player stream, kept for a waiting table, is the old player's
  // The token forgotten stops working too (a copy of it, in a backup or another browser's
  // profile, was still the player). Rotated, its successor unread, rather than revoked
  // with DELETE /v1/me/tokens: that revokes every token of the player, and one given to
  // a program or another device is not this browser's to end. Sent before forgetting
  // (the request takes the token kept); unanswered, the browser forgets it all the same.
  api.rotateToken().catch(() => {});
  forgetPlayer();
  forgetWatchCodes();
  saveMatch(null);
  closeMatch();
  $('#signout-confirm').hidden = true;
  $('#name').value = '';
  location.hash = '#/';
  renderWho();
  $('#name').focus(); // the button pressed is gone: the keyboard goes to the name to give next
}

/** The browser's player signed out, or another signed in, in another tab (the ``storage``
 * event, which only other tabs hear): this tab was left acting as the old player, its
 * moves refused with a token forgotten or a seat that was not the new player's. It lets
 * the old player go as signing out here does, and says why it moved. */
function followOtherTab(event) {
  if (event.storageArea !== localStorage || (event.key !== PLAYER_KEY && event.key !== null)) return; // null: all cleared
  const before = shownPlayer;
  const now = savedPlayer();
  if (before && now && before.id === now.id && before.token === now.token) return renderWho(); // renamed, or its rating
  if (!before && !now) return;
  closeLobby(true); // the player stream is the old player's
  closeMatch();
  closeHeaderPanels();
  $('#name').value = now ? now.name : '';
  const was = before ? isolate(before.name) : null;
  if (!now) toast(`Signed out in another tab: this tab no longer plays as ${was}.`, 'info');
  else toast(`Signed in as ${isolate(now.name)} in another tab: this tab plays as ${isolate(now.name)} now${was ? `, no longer as ${was}` : ''}.`, 'info');
  const onMatch = /^#\/?match\//.test(location.hash);
  if (onMatch) location.hash = '#/'; // the match was the old player's; route() follows
  else route(); // the screen drawn anew, as the new player (or nobody)
}

/** The sign-out question keeps the keyboard while it is asked: Tab and Shift+Tab go round
 * its two buttons (they left it for the page behind), Escape says no. */
function keepInSignOut(event) {
  const dialog = $('#signout-confirm');
  if (dialog.hidden) return;
  if (event.key === 'Escape') return closeSignOut();
  if (event.key !== 'Tab' || !dialog.contains(document.activeElement)) return;
  const buttons = [...dialog.querySelectorAll('button')];
  const at = buttons.indexOf(document.activeElement);
  event.preventDefault();
  buttons[(at + (event.shiftKey ? -1 : 1) + buttons.length) % buttons.length].focus();
}

function init() {
  applyPrefs();
  takesAName($('#name'));
  $('#preset').addEventListener('change', aboutPreset);
  setUpStartClock();
  $('#start-form').addEventListener('submit', startMatch);
  $('#house-form').addEventListener('submit', watchHouseMatch);
  $('#screen-table').addEventListener('click', onTableClick);
  setUpHand();
  document.addEventListener('keydown', onTableKey);
  $('#nav-signout').addEventListener('click', askSignOut);
  setUpRename(() => closeHeaderPanels('rename'));
  setUpOtherDevice(() => closeHeaderPanels('device'));
  document.addEventListener('keydown', keepInSignOut);
  window.addEventListener('hashchange', route);
  window.addEventListener('storage', followOtherTab);
  if (!location.hash || location.hash === '#') {
    const id = savedMatch();
    if (id && savedPlayer()) {
      location.hash = `#/match/${encodeURIComponent(id)}`;
      return;
    }
  }
  route();
}

init();
