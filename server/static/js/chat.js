// The match's chat: a small panel under the table (a seat writes and reads) or under the
// watched match (a spectator reads). Messages come live as `chat` frames on the match's
// socket, which match.js and watch.js hand to chatFrame; the history comes over HTTP, and
// so do new messages while the socket is down (chatCatchUp). The socket connects once the
// history is read and asks for what came after it (connectAfterHistory).
// Text goes in as text nodes (dom.js), so a message can never inject markup.
// A seat may block the other from here (blocks.js): the server then hides their new
// messages, and this page hides those already shown.
import { $, fill, h, sleep } from './dom.js';
import { ApiError, api } from './api.js';
import { announce, problemText } from './ui.js';
import { isolate, refName } from './names.js';
import { blockable, blockButton, isBlocked, loadBlocks, unblockButton } from './blocks.js';
import { clearNote, noteMessage } from './chatnote.js';

const MAX_LENGTH = 280;
const FLOOD_WINDOW_MS = 10000; // the server's chat window (5 messages per 10 s)
const chat = { matchId: null, seat: null, names: [], refs: [], code: null, messages: new Map(), last: 0, read: false, muted: false, panel: null, loading: null };

/** Open the chat of a match in ``screen`` (a section); ``seat`` null for a spectator.
 * Settles once its history has been read (or could not be); null, and no chat, when a
 * seat is the house AI (the chat is between two people). */
export function openChat(screen, { matchId, seat = null, seats = [], watchCode = null }) {
  if (seats.some((ref) => ref.kind === 'ai')) return null;
  closeChat();
  chat.matchId = matchId;
  chat.seat = seat;
  chat.code = watchCode;
  chat.names = seats.map((ref, i) => (seat === i ? 'You' : refName(ref)));
  chat.refs = seats;
  chat.panel = h('aside', { class: 'chat', 'data-testid': 'chat', 'aria-label': 'Chat' });
  screen.append(chat.panel);
  render();
  const history = loadAfter(0);
  if (seat !== null && blockable(opponent())) loadBlocks().catch(() => {});
  if (seat !== null) {
    api.cannedMessages().then((canned) => {
      chat.canned = canned.messages;
      render();
    }).catch(() => {});
  }
  return history;
}

/** The seats renamed (the socket's ``seats`` frame, in seat order): the messages, shown
 * and to come, name them anew, as the table does. */
export function renameChatSeats(seats) {
  if (!chat.panel || !Array.isArray(seats)) return;
  chat.names = seats.map((ref, i) => (chat.seat === i ? 'You' : refName(ref)));
  chat.refs = seats;
  render();
}

/** The chat's part of match ``matchId``'s socket query: the messages after the last one
 * this page knows, once the history has been read. Without it a socket relays only what
 * is said after it opened, and a message said between the history's read and the
 * socket's start, or while a dropped socket was down, was shown nowhere until another. */
const chatQuery = (matchId) => (chat.matchId === matchId && chat.read ? `chat_after=${chat.last}` : '');

/** Connect ``feed`` (match ``matchId``'s) once the chat's ``history`` (openChat's, or
 * null) is read, waiting 2 s at most: a feed that connected before it, asking for no
 * chat, connects again once it is read, asking for what came after it. ``alive()``: the
 * page is still on that match. */
export function connectAfterHistory(feed, matchId, history, alive) {
  feed.query = () => chatQuery(matchId);
  Promise.race([history, sleep(2000)]).then(() => {
    if (!alive()) return;
    const asked = chatQuery(matchId) !== '';
    feed.connect();
    if (history && !asked) history.then(() => alive() && chatQuery(matchId) && feed.renew());
  });
}

export function closeChat() {
  if (chat.panel) chat.panel.remove();
  clearNote();
  Object.assign(chat, { matchId: null, panel: null, refs: [], messages: new Map(), last: 0, read: false, muted: false, canned: null, loading: null });
}

/** The other seat, to a seat; null to a spectator. */
const opponent = () => (chat.seat === null ? null : chat.refs[1 - chat.seat] || null);

/** The other seat is blocked by this player: what they said is not shown on this page
 * either (the server hides only what they say after the block). */
const hidden = (message) => message.seat !== chat.seat && chat.seat !== null && Boolean(opponent()) && isBlocked(opponent().id);

// A block or unblock made anywhere on the page (here, or the lobby's list) redraws the chat.
document.addEventListener('ginrummy:blocks-changed', () => {
  renderWith();
  renderLog();
});

/** A frame from the match's socket; only `chat` frames matter here. */
export function chatFrame(frame) {
  if (frame.type !== 'chat' || !chat.matchId) return;
  const message = frame.message;
  // A gap (a reconnect, or messages this seat muted): ask what came between.
  if (message.version > chat.last + 1) loadAfter(chat.last);
  keep([message], true);
}

/** ``say``: the messages are new, come while the chat is open (not its history): the
 * others' are told to screen readers. The log itself is not a live region: it is written
 * anew with every message, and all of it was read out again each time. */
function keep(messages, say = false) {
  for (const message of messages) {
    if (say && !chat.messages.has(message.version) && message.seat !== chat.seat && !hidden(message)) {
      const name = chat.names[message.seat] || `Seat ${message.seat + 1}`;
      announce(`${name} says: ${isolate(message.text)}`);
      noteMessage(chat.panel, `${name}: ${isolate(message.text)}`);
    }
    chat.messages.set(message.version, message);
    chat.last = Math.max(chat.last, message.version);
  }
  renderLog();
}

/** Without the match's socket (socketless.js, the watch page): the messages since the
 * last one known, told as new; until the history has been read once (its first read may
 * have failed), it is the history that is read, and not told. */
export function chatCatchUp() {
  if (chat.matchId && !chat.loading) loadAfter(chat.last, chat.read);
}

/** ``fresh``: the messages are new (a gap's), not the history. */
async function loadAfter(after, fresh = after > 0) {
  if (chat.loading) return chat.loading;
  const id = chat.matchId;
  const loading = (async () => {
    try {
      for (let from = after; ;) {
        const page = await api.chat(id, from, chat.code);
        if (chat.matchId !== id) return;
        keep(page.messages, fresh); // a gap's messages are new; the history is not
        chat.last = Math.max(chat.last, page.version);
        if (page.muted !== null) chat.muted = page.muted;
        if (!page.more || !page.messages.length) break;
        from = page.messages[page.messages.length - 1].version;
      }
      chat.read = true;
      renderControls();
    } catch (err) {
      status(problemText(err));
    } finally {
      if (chat.loading === loading) chat.loading = null; // not another match's read, opened since
    }
  })();
  chat.loading = loading;
  return loading;
}

async function send(text) {
  const id = chat.matchId;
  try {
    keep([await api.say(id, text)]);
    status('');
    return true;
  } catch (err) {
    const said = problemText(err);
    status(said);
    // "Too fast" is true only for a while: it goes when the window has passed.
    if (err instanceof ApiError && err.problem.rule === 'chat_flood') {
      setTimeout(() => { if (chat.panel && $('.chat-status', chat.panel).textContent === said) status(''); }, FLOOD_WINDOW_MS);
    }
    return false;
  }
}

async function setMuted(muted) {
  try {
    const settings = await api.mute(chat.matchId, muted);
    chat.muted = settings.muted;
    status(chat.muted ? 'Your opponent\u2019s messages are hidden from you.' : '');
  } catch (err) {
    status(problemText(err));
  }
  renderControls();
}

function status(text) {
  const el = chat.panel && $('.chat-status', chat.panel);
  if (el) fill(el, text);
}

function render() {
  if (!chat.panel) return;
  fill(
    chat.panel,
    h('h2', {}, 'Chat'),
    h('p', { class: 'chat-with', 'data-testid': 'chat-with' }),
    h('ol', { class: 'chat-log', 'data-testid': 'chat-log', 'aria-label': 'Messages' }),
    h('div', { class: 'chat-controls' }),
    h('p', { class: 'chat-status hint', 'data-testid': 'chat-status', 'aria-live': 'polite' }),
  );
  renderWith();
  renderLog();
  renderControls();
}

/** To a seat: whom they chat with, and Block (or Unblock) beside the name. */
function renderWith() {
  const box = chat.panel && $('.chat-with', chat.panel);
  const other = opponent();
  if (!box) return;
  if (!other || !blockable(other)) {
    fill(box);
    box.hidden = true;
    return;
  }
  box.hidden = false;
  if (!isBlocked(other.id) && $('[data-testid=block-confirm]', box)) return; // being asked: left alone
  const had = box.contains(document.activeElement);
  if (isBlocked(other.id)) {
    fill(box, h('span', { 'data-testid': 'chat-blocked' }, `You block ${refName(other)}: their messages are hidden. `), unblockButton(other));
  } else {
    fill(
      box,
      `With ${refName(other)} `,
      blockButton(other, { focusAfter: () => chat.panel && $('.chat-with [data-testid=unblock]', chat.panel) }),
    );
  }
  // The Unblock (or Block) pressed is gone with the line: the keyboard goes to its successor.
  if (had && !box.contains(document.activeElement)) $('button', box).focus();
}

function renderLog() {
  const log = chat.panel && $('.chat-log', chat.panel);
  if (!log) return;
  const messages = [...chat.messages.values()].filter((m) => !hidden(m)).sort((a, b) => a.version - b.version);
  fill(
    log,
    messages.length ? null : h('li', { class: 'hint' }, chat.seat === null ? 'Nobody has said anything yet.' : 'Say hello to your opponent.'),
    messages.map((m) =>
      h(
        'li',
        { 'data-version': m.version, class: m.seat === chat.seat ? 'mine' : '' },
        h('b', {}, `${chat.names[m.seat] || `Seat ${m.seat + 1}`}: `),
        isolate(m.text),
      ),
    ),
  );
  log.scrollTop = log.scrollHeight;
}

function renderControls() {
  const box = chat.panel && $('.chat-controls', chat.panel);
  if (!box) return;
  if (chat.seat === null) {
    fill(box, h('p', { class: 'hint' }, 'Spectators read the chat; only the two players write.'));
    return;
  }
  // The server counts characters (code points), and maxlength counts UTF-16 units, two for
  // an emoji: the box stopped 140 "👍" short. It takes twice as many, and keeps the first
  // MAX_LENGTH characters of what is typed or pasted.
  const input = h('input', { 'data-testid': 'chat-input', maxlength: 2 * MAX_LENGTH, 'aria-label': 'Message', placeholder: 'Message', autocomplete: 'off' });
  input.addEventListener('input', () => {
    const chars = [...input.value];
    if (chars.length > MAX_LENGTH) input.value = chars.slice(0, MAX_LENGTH).join('');
  });
  const form = h(
    'form',
    {
      class: 'chat-form',
      onsubmit: async (event) => {
        event.preventDefault();
        const text = input.value;
        if (!text.trim()) return;
        // Emptied as it goes, not at the server's answer: the box held the message after
        // the log (and the opponent) showed it, a second Enter sent it again, and the answer
        // wiped what was typed meanwhile. A refusal gives it back to send again.
        input.value = '';
        if (!(await send(text)) && !input.value) input.value = text;
      },
    },
    input,
    h('button', { type: 'submit', 'data-testid': 'chat-send' }, 'Send'),
  );
  fill(
    box,
    h(
      'div',
      { class: 'chat-canned', role: 'group', 'aria-label': 'Quick messages' },
      (chat.canned || []).map((text) => h('button', { type: 'button', class: 'link', 'data-testid': 'chat-canned', onclick: () => send(text) }, text)),
    ),
    form,
    h(
      'label',
      { class: 'check' },
      h('input', { type: 'checkbox', 'data-testid': 'chat-mute', checked: chat.muted, onchange: (event) => setMuted(event.target.checked) }),
      ' Mute my opponent',
    ),
  );
}
