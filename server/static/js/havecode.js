// "Have a code from another device?": the way to the sign-in form (signin.js) from a form
// of a page not signed in. A module of its own so that the lobby can offer it without
// importing signin.js, which imports the lobby.
import { h } from './dom.js';

export const haveACode = () => h('p', { class: 'hint' }, h('a', { href: '#/sign-in', 'data-testid': 'have-code' }, 'Have a code from another device?'));
