// "Verify this match": the browser recomputes a finished match's decks, salts and first
// dealer from the revealed seeds in its public log, as docs/fair-deal.md describes, and
// trusts nothing the server computed.
import { api } from './api.js';
import { fill, h, heard } from './dom.js';

const DECK = [...'CDHS'].flatMap((suit) => [...'A23456789TJQK'].map((rank) => rank + suit));
const utf8 = new TextEncoder();
const hex = (bytes) => [...bytes].map((b) => b.toString(16).padStart(2, '0')).join('');

async function hmac(keyBytes, message) {
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', key, message));
}

async function sha256(text) {
  return new Uint8Array(await crypto.subtle.digest('SHA-256', utf8.encode(text)));
}

/** The key for one purpose: an HMAC of the server seed over the client seeds, or (practice
 * and older matches, one seed) sha256 of "purpose:seed". */
function keyFor(seed, purpose, clientSeeds) {
  if (!clientSeeds) return sha256(`${purpose}:${seed}`);
  return hmac(utf8.encode(seed), utf8.encode([purpose, ...clientSeeds].join(':')));
}

/** Fisher-Yates driven by HMAC(key, 8-byte counter) blocks, skipping biased bytes. */
async function shuffle(key) {
  const cryptoKey = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  let block = new Uint8Array(0);
  let at = 0;
  let counter = 0n;
  const nextByte = async () => {
    if (at >= block.length) {
      const count = new Uint8Array(8);
      new DataView(count.buffer).setBigUint64(0, counter++);
      block = new Uint8Array(await crypto.subtle.sign('HMAC', cryptoKey, count));
      at = 0;
    }
    return block[at++];
  };
  const cards = [...DECK];
  for (let i = 51; i > 0; i--) {
    const bound = i + 1;
    let b = await nextByte();
    while (b >= 256 - (256 % bound)) b = await nextByte();
    const j = b % bound;
    [cards[i], cards[j]] = [cards[j], cards[i]];
  }
  return cards;
}

/** Not a sign of tampering (domain/verify.py's UNPROVABLE): the decks can be recomputed and
 * checked, but with no player's seed in them the server alone could have chosen them. */
export const UNPROVABLE = 'no player gave a seed: the server\'s seed alone fixed every deck, so the decks prove nothing';

/** Every problem with the deal of a finished match's complete log (its events); none: proved. */
export async function dealProblems(events) {
  const started = events[0];
  const settled = events.find((e) => e.type === 'match_settled');
  if (!started || started.type !== 'match_started' || !settled) return ['the match is not finished'];
  const seed = settled.seed;
  const problems = [];
  if (hex(await sha256(`seed:${seed}`)) !== started.seed_commitment) problems.push('the server seed does not match its commitment');
  const client = started.client_seeds ? started.client_seeds.map((s) => s.seed) : null;
  if (!client) problems.push(UNPROVABLE);
  for (const [seat, given] of (started.client_seeds || []).entries()) {
    if (given.at_ms < started.seed_committed_ms) problems.push(`seat ${seat}'s seed was given before the server committed`);
  }
  const deals = events.filter((e) => e.type === 'dealt');
  if (deals.length && deals[0].dealer !== ((await keyFor(seed, 'dealer', client))[0] & 1)) problems.push('the first dealer is not the seeds\'');
  const revealed = new Map(events.filter((e) => e.type === 'hand_scored' || e.type === 'hand_washed').map((e) => [e.hand_number, e]));
  for (const dealt of deals) {
    const n = dealt.hand_number;
    const deck = await shuffle(await keyFor(seed, `deck:${n}`, client));
    const salt = hex(await keyFor(seed, `salt:${n}`, client));
    if (hex(await sha256(`${salt}:${deck.join('')}`)) !== dealt.commitment) problems.push(`hand ${n}: the deal's commitment is not the seeds' deck`);
    if (dealt.up_card !== deck[20]) problems.push(`hand ${n}: the up-card is not the deck's 21st card`);
    for (const shown of [dealt, revealed.get(n)]) {
      if (shown && shown.deck && (shown.deck.join('') !== deck.join('') || shown.salt !== salt)) {
        problems.push(`hand ${n}: the revealed deck or salt is not the seeds'`);
      }
    }
  }
  return problems;
}

async function wholeLog(matchId) {
  const events = [];
  for (;;) {
    const page = await api.events(matchId, events.length ? events[events.length - 1].version : 0, 1000);
    events.push(...page.events);
    if (!page.more) return events.map((e) => e.event);
  }
}

const buttons = new Map(); // one per match, so a redraw of the table keeps what it found

/** A "Verify this match" button (in a list, "Verify" heard with ``which`` match) and
 * the line that says what it found. */
export function verifyButton(matchId, which = null) {
  if (!buttons.has(matchId)) buttons.set(matchId, makeButton(matchId));
  const box = buttons.get(matchId);
  // In a list of matches (the history) the button is heard with its row's match.
  fill(box.querySelector('button'), ...(which ? ['Verify', heard(which)] : ['Verify this match']));
  return box;
}

function makeButton(matchId) {
  const said = h('span', { class: 'verify-result', role: 'status', 'data-testid': 'verify-result' });
  const check = async (event) => {
    const button = event.currentTarget;
    // Not ``disabled``: a disabled button loses the keyboard, which fell to the page's top.
    if (button.getAttribute('aria-disabled') === 'true') return;
    button.setAttribute('aria-disabled', 'true');
    said.textContent = 'Recomputing every deck…';
    try {
      if (!globalThis.crypto || !crypto.subtle) throw new Error('this browser offers no Web Crypto here (it needs https or localhost)');
      const events = await wholeLog(matchId);
      const problems = await dealProblems(events);
      const hands = events.filter((e) => e.type === 'dealt').length;
      const counted = `${hands} ${hands === 1 ? 'hand' : 'hands'}`;
      // as the CLI says NOT PROVABLE or FAILED: decks that match but only the server chose
      // are no failure, and a real failure is not to be read as merely unprovable
      const unprovable = problems.length === 1 && problems[0] === UNPROVABLE;
      said.dataset.verified = problems.length ? (unprovable ? 'unprovable' : 'false') : 'true';
      said.textContent = !problems.length
        ? `Fair deal verified: ${counted}, every deck, salt and the first dealer recomputed in your browser.`
        : unprovable
          ? `Not provable: ${counted}, every deck, salt and the first dealer recomputed and matching, but ${UNPROVABLE}.`
          : `Not verified: ${problems.join('; ')}.`;
    } catch (err) {
      said.dataset.verified = 'false';
      said.textContent = `Could not verify: ${err.message || err}`;
    } finally {
      button.removeAttribute('aria-disabled');
    }
  };
  return h('span', { class: 'verify' }, h('button', { type: 'button', 'data-testid': 'verify', onclick: check }), ' ', said);
}
