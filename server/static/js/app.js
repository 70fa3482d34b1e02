// The page's shell: routes (#/, #/match/ID, #/history, #/replay/ID, #/lobby,
// #/join/TABLE/CODE, #/watch/MATCH[/CODE]), the start form, and the wiring of events.
// The table itself lives in match.js, the lobby in lobby.js, spectating in watch.js.
import { $, fill, h } from './dom.js';
import { api, ApiError, forgetPlayer, newClientSeed, savedMatch, savedPlayer, saveMatch, savePlayer } from './api.js';
import { closeMatch, expectMatch, onDragStart, onDrop, onTableClick, onTableKey, openMatch } from './match.js';
import { showHistory, showReplay } from './history.js';
import { closeLobby, showLobby } from './lobby.js';
import { closeWatch, showWatch } from './watch.js';
import { problemText, show, toast } from './ui.js';
import { displayName } from './words.js';

function renderWho() {
  const player = savedPlayer();
  fill($('#who'), player ? ['Playing as ', h('b', {}, player.name)] : 'Not signed in');
  $('#nav-signout').hidden = !player;
}

async function route() {
  const hash = location.hash.replace(/^#\/?/, '');
  const [name, id, code] = hash.split('/');
  renderWho();
  if (name !== 'lobby') closeLobby();
  if (name !== 'watch') closeWatch();
  if (name === 'match' && id) return openMatch(decodeURIComponent(id));
  closeMatch();
  if (name === 'lobby') {
    show('lobby');
    return showLobby($('#lobby'));
  }
  if (name === 'join' && id) {
    show('lobby');
    return showLobby($('#lobby'), { table: decodeURIComponent(id), code: code ? decodeURIComponent(code) : null });
  }
  if (name === 'watch' && id) {
    show('watch');
    return showWatch($('#watch'), decodeURIComponent(id), code ? decodeURIComponent(code) : null);
  }
  if (name === 'history') {
    show('history');
    return showHistory($('#history'), { onError: (e) => toast(problemText(e)) });
  }
  if (name === 'replay' && id) {
    show('replay');
    return showReplay($('#replay'), decodeURIComponent(id), { onError: (e) => toast(problemText(e)) });
  }
  showStart();
}

function showStart() {
  show('start');
  const player = savedPlayer();
  if (player && !$('#name').value) $('#name').value = player.name;
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
            h('li', {}, h('a', { href: `#/match/${encodeURIComponent(m.match_id)}` }, `against ${displayName(m.opponent, null)} (${ruleName(m.rules)}) — ${m.scores[0]} : ${m.scores[1]}`)),
          ),
        ),
      );
      resume.hidden = false;
    })
    .catch(() => {});
}

export const ruleName = (rules) => (typeof rules === 'string' ? rules : rules && (rules.name || rules.preset)) || '';

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

async function startMatch(event) {
  event.preventDefault();
  const name = $('#name').value.trim();
  if (!name) return toast('Please enter your name.');
  const button = $('#start-form button[type=submit]');
  button.disabled = true;
  try {
    let player = savedPlayer();
    if (!player) {
      const created = await api.createPlayer(name);
      player = { id: created.id, name: created.name, token: created.token };
      savePlayer(player);
    } else if (player.name !== name) {
      await renameOrStartOver(player, name);
    }
    let started;
    try {
      started = await api.createMatch($('#level').value, chosenRules(), dealChoice());
    } catch (err) {
      if (!(err instanceof ApiError && err.status === 401)) throw err;
      // A token from another database: make a new player and try once more.
      forgetPlayer();
      const created = await api.createPlayer(name);
      savePlayer({ id: created.id, name: created.name, token: created.token });
      started = await api.createMatch($('#level').value, chosenRules(), dealChoice());
    }
    expectMatch(started);
    location.hash = `#/match/${encodeURIComponent(started.match_id)}`;
  } catch (err) {
    toast(problemText(err));
  } finally {
    button.disabled = false;
  }
}

/** A new name renames this browser's player: its matches stay its own. */
async function renameOrStartOver(player, name) {
  try {
    const renamed = await api.renamePlayer(player.id, name);
    savePlayer({ ...player, name: renamed.name });
  } catch (err) {
    if (!(err instanceof ApiError && err.status === 401)) throw err;
    forgetPlayer(); // a token from another database: createMatch's retry makes a new player
  }
  renderWho();
}

/** Signing out forgets the only key to this player's matches, so it asks first. */
function askSignOut() {
  const player = savedPlayer();
  if (!player) return;
  fill(
    $('#signout-confirm'),
    h('p', {}, `Sign out ${player.name}? This browser forgets the player, and its matches cannot be opened again.`),
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
  forgetPlayer();
  saveMatch(null);
  closeMatch();
  $('#signout-confirm').hidden = true;
  $('#name').value = '';
  location.hash = '#/';
  renderWho();
}

function init() {
  $('#start-form').addEventListener('submit', startMatch);
  $('#screen-table').addEventListener('click', onTableClick);
  $('#screen-table').addEventListener('dragstart', onDragStart);
  $('#piles').addEventListener('dragover', (e) => e.preventDefault());
  $('#piles').addEventListener('drop', onDrop);
  document.addEventListener('keydown', onTableKey);
  $('#nav-signout').addEventListener('click', askSignOut);
  document.addEventListener('keydown', (event) => {
    if (event.key === 'Escape' && !$('#signout-confirm').hidden) closeSignOut();
  });
  window.addEventListener('hashchange', route);
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
