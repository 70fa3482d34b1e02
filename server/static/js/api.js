// The public HTTP API (see docs of /v1) and the player's credentials kept in localStorage.
import { heardServerTime } from './servertime.js';

export const PLAYER_KEY = 'ginrummy.player';
const MATCH_KEY = 'ginrummy.match';

export function savedPlayer() {
  try {
    const player = JSON.parse(localStorage.getItem(PLAYER_KEY) || 'null');
    return player && player.token ? player : null;
  } catch {
    return null;
  }
}
// Whoever signs the player in or out (the start page, the lobby, sign out), the header hears of it.
const playerChanged = () => document.dispatchEvent(new Event('ginrummy:player-changed'));
export const savePlayer = (player) => {
  localStorage.setItem(PLAYER_KEY, JSON.stringify(player));
  playerChanged();
};
/** A player just made (``POST /v1/players``'s answer) saved as this browser's, its rating
 * kept with it (``rememberRating``); returned as saved. */
export const saveCreatedPlayer = (created) => {
  const player = { id: created.id, name: created.name, token: created.token, rating: created.rating };
  savePlayer(player);
  return player;
};
// The rating last read for the player, kept with it so that a page opened later shows it
// at once (app.js's header); nobody needs telling, so no event. ``undefined`` forgets it.
export const rememberRating = (id, rating) => {
  const player = savedPlayer();
  if (player && player.id === id && JSON.stringify(player.rating) !== JSON.stringify(rating)) localStorage.setItem(PLAYER_KEY, JSON.stringify({ ...player, rating }));
};
export const forgetPlayer = () => {
  localStorage.removeItem(PLAYER_KEY);
  playerChanged();
};
/** A 401 forgets the player only if it refused the token still kept: another tab may have
 * signed out (ending that token) and signed a new player in meanwhile, who was forgotten. */
export const forgetRefusedPlayer = (err) => {
  if (err instanceof ApiError && err.token && (savedPlayer() || {}).token !== err.token) return;
  forgetPlayer();
};
export const savedMatch = () => localStorage.getItem(MATCH_KEY);
export const saveMatch = (id) => (id ? localStorage.setItem(MATCH_KEY, id) : localStorage.removeItem(MATCH_KEY));

/** A problem+json answer (RFC 9457) raised as an error the page can show. */
export class ApiError extends Error {
  constructor(status, problem, token = null, retryAfter = null) {
    super(problem.detail || problem.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    this.token = token; // the token the request carried (forgetRefusedPlayer)
    this.retryAfter = retryAfter; // a 429's or 503's Retry-After, in seconds (null: none)
  }
}

export function newKey() {
  if (globalThis.crypto && crypto.randomUUID) return crypto.randomUUID();
  const bytes = new Uint8Array(16);
  crypto.getRandomValues(bytes);
  return Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('');
}

/** The server could not be reached at all (it is down, or the connection is). */
export class NetworkError extends Error {}

async function request(method, path, body, extraHeaders = {}) {
  const headers = { Accept: 'application/json', ...extraHeaders };
  const player = savedPlayer();
  // The kept token, unless the caller gives another, or null for none (a sign-in code's
  // redeem is no business of the player this browser plays as now).
  const token = headers.Authorization === undefined ? (player ? player.token : null) : headers.Authorization && headers.Authorization.replace(/^Bearer /, '');
  if (token) headers.Authorization = `Bearer ${token}`;
  else delete headers.Authorization;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  let response;
  try {
    response = await fetch(path, {
      method,
      headers,
      body: body === undefined ? undefined : JSON.stringify(body),
    });
  } catch (err) {
    throw new NetworkError(String(err && err.message ? err.message : err));
  }
  const text = await response.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    // Not the server's JSON (a proxy's HTML error page, say): its text was shown as the
    // problem's detail, markup and all. Said in words, with the status.
    data = response.ok ? { detail: text } : { title: unreadable(response.status) };
  }
  if (!response.ok) throw new ApiError(response.status, data || {}, token, retryAfterOf(response)); // the token sent
  // A match's answer says the server's time (a table's join holds it in ``match``).
  if (data && typeof data === 'object') heardServerTime(data.now_ms ?? (data.match && data.match.now_ms));
  return data;
}

/** The answer's Retry-After in whole seconds (a date, or none: null). */
function retryAfterOf(response) {
  const header = response.headers.get('Retry-After');
  return header && /^\d+$/.test(header.trim()) ? Number(header) : null;
}

/** An error answer that is no problem document, in words. */
const unreadable = (status) => (status >= 500
  ? `The server is not answering properly right now (HTTP ${status}): try again in a moment`
  : `The server refused this (HTTP ${status})`);

const match = (id) => `/v1/matches/${encodeURIComponent(id)}`;

/** A client seed made in this browser (16 random bytes in hex): the page's part of every
 * fair deal it starts or joins, which the server could not have chosen (docs/fair-deal.md). */
export function newClientSeed() {
  return [...crypto.getRandomValues(new Uint8Array(16))].map((b) => b.toString(16).padStart(2, '0')).join('');
}

export const api = {
  createPlayer: (name) => request('POST', '/v1/players', { name }),
  renamePlayer: (id, name) => request('PATCH', `/v1/players/${encodeURIComponent(id)}`, { name }),
  createMatch: (level, rules, deal = {}) => request('POST', '/v1/matches', { level, rules, ...deal }),
  createHouseMatch: (levels, rules) => request('POST', '/v1/house-matches', { seats: levels.map((level) => `ai:${level}`), rules }),
  getMatch: (id) => request('GET', match(id)),
  listMatches: (status, offset = 0) => request('GET', `/v1/matches?status=${encodeURIComponent(status)}${offset ? `&offset=${offset}` : ''}`),
  act: (id, action, version) =>
    request('POST', `${match(id)}/actions`, { action, version }, { 'Idempotency-Key': newKey() }),
  // ``code``: a private match's watch code (a spectator reading a finished match's log)
  events: (id, after, limit, code) => request('GET', `${match(id)}/events?after=${after}&limit=${limit}${code ? `&watch_code=${encodeURIComponent(code)}` : ''}`),
  replay: (id, at) => request('GET', `${match(id)}/replay?at=${at}`),
  player: (playerId) => request('GET', `/v1/players/${encodeURIComponent(playerId)}`),
  stats: (playerId) => request('GET', `/v1/players/${encodeURIComponent(playerId)}/stats`),
  me: (token) => request('GET', '/v1/me', undefined, token ? { Authorization: `Bearer ${token}` } : {}), // ``token``: another than the one kept
  rotateToken: () => request('POST', '/v1/me/tokens/rotate'),
  signInCode: () => request('POST', '/v1/me/sign-in-codes'),
  redeemSignInCode: (code) => request('POST', '/v1/sign-in-codes/redeem', { code }, { Authorization: null }),
  rating: (playerId) => request('GET', `/v1/players/${encodeURIComponent(playerId)}/rating?limit=20`),
  botsOnline: () => request('GET', '/v1/bots/online'),
  leaderboard: (kind, offset, limit) => request('GET', `/v1/leaderboard?kind=${encodeURIComponent(kind)}&offset=${offset}&limit=${limit}`),
  claim: (id) => request('POST', `${match(id)}/claim`),
  claimStatus: (id) => request('GET', `${match(id)}/claim`),
  rematch: (id) => request('POST', `${match(id)}/rematch?client_seed=${newClientSeed()}`), // offer or accept: the seat's part of the deal
  getRematch: (id) => request('GET', `${match(id)}/rematch`),
  findPlayers: (name) => request('GET', `/v1/players?name=${encodeURIComponent(name)}`),
  tables: () => request('GET', '/v1/tables'),
  myTables: () => request('GET', '/v1/tables?mine=true'),
  table: (id, code) => request('GET', `/v1/tables/${encodeURIComponent(id)}${code ? `?invite_code=${encodeURIComponent(code)}` : ''}`),
  // ``terms``: the clock, hints and rated of timecontrol.js chosenTerms (none: the server's defaults)
  openTable: (rules, isPrivate, terms = {}) => request('POST', '/v1/tables', { rules, private: isPrivate, ...terms, client_seed: newClientSeed() }),
  joinTable: (id, code) => request('POST', `/v1/tables/${encodeURIComponent(id)}/join`, { ...(code ? { invite_code: code } : {}), client_seed: newClientSeed() }),
  cancelTable: (id) => request('POST', `/v1/tables/${encodeURIComponent(id)}/cancel`),
  challenges: () => request('GET', '/v1/challenges'),
  challenge: (to, rules, terms = {}) => request('POST', '/v1/challenges', { to, rules, ...terms, client_seed: newClientSeed() }),
  acceptChallenge: (id) => request('POST', `/v1/challenges/${encodeURIComponent(id)}/accept?client_seed=${newClientSeed()}`),
  cancelChallenge: (id) => request('POST', `/v1/challenges/${encodeURIComponent(id)}/cancel`),
  declineChallenge: (id) => request('POST', `/v1/challenges/${encodeURIComponent(id)}/decline`),
  chat: (id, after, code) => request('GET', `${match(id)}/chat?after=${after}${code ? `&watch_code=${encodeURIComponent(code)}` : ''}`),
  say: (id, text) => request('POST', `${match(id)}/chat`, { text }),
  mute: (id, muted) => request('POST', `${match(id)}/chat/${muted ? 'mute' : 'unmute'}`),
  cannedMessages: () => request('GET', '/v1/chat/canned'),
  blocks: () => request('GET', '/v1/me/blocks'),
  block: (playerId) => request('POST', '/v1/me/blocks', { player_id: playerId }),
  unblock: (playerId) => request('DELETE', `/v1/me/blocks/${encodeURIComponent(playerId)}`),
  watchable: (offset, limit) => request('GET', `/v1/matches/watchable?offset=${offset}&limit=${limit}`),
  watchableFor: (playerId) => request('GET', `/v1/matches/watchable?player=${encodeURIComponent(playerId)}`),
  spectate: (id, code) => request('GET', `${match(id)}/spectator${code ? `?watch_code=${encodeURIComponent(code)}` : ''}`),
};

/** Every event of a match, page by page (complete and unredacted once the match is over). */
export async function allEvents(id, pageSize = 200) {
  const events = [];
  for (;;) {
    const after = events.length ? events[events.length - 1].version : 0;
    const page = await api.events(id, after, pageSize);
    events.push(...page.events);
    if (page.events.length < pageSize) return events;
  }
}
