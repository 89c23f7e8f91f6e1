/*
 * errors.js - what the page says for each code the server sends (src/proto/errors.def, the one
 * list; tests/error_codes.py fails when this table misses a code of it or names one it has
 * not), and for the page's own (PAGE_CODES). The code itself goes into a tooltip; the server's
 * own sentence is kept where it says more than the table can (which seek, which option).
 */

export const MESSAGES = {
	/* the connection */
	LINE_TOO_LONG: 'That was too long to send.',
	TELNET_UNTERMINATED: 'The server could not read that.',
	BAD_INPUT: 'That held characters the server does not take.',
	BAD_TAG: 'The server could not read that request.',
	SERVER_FULL: 'The server is full right now. Try again in a moment.',
	TOO_MANY_CONNECTIONS: 'Too many connections from your address. Close a tab and try again.',
	/* limits */
	RATE_LIMITED: 'Slow down a little: that was not done. Try again in a moment.',
	FLOODING: 'Too many requests: the server closed this connection.',
	WATCH_LIMIT: 'You are watching as many games as you can. Leave one first.',
	REPLAY_LIMIT: 'Too many replays at once. Try again in a moment.',
	/* the command line */
	UNKNOWN_COMMAND: 'The server does not know that command.',
	BAD_ARGS: 'That request was not complete or not well formed.',
	BAD_FORMAT: 'The server does not know that format.',
	NO_PING: 'There was no ping to answer.',
	/* who you are */
	NOT_LOGGED_IN: 'Log in or play as a guest first.',
	ALREADY_LOGGED_IN: 'You are already logged in.',
	BAD_NAME: 'A name has 2 to 20 letters, digits, _ or -.',
	NAME_TAKEN: 'Someone is using that name now. Choose another.',
	NAME_REGISTERED: 'That name belongs to an account: log in with its password, or choose another name.',
	BAD_PASSWORD: 'A password has 6 to 128 characters.',
	BAD_LOGIN: 'Wrong name or password.',
	LOGIN_THROTTLED: 'Too many failed logins. Wait a minute and try again.',
	REGISTER_THROTTLED: 'Too many accounts made from your address. Try again later.',
	RATED_NEEDS_ACCOUNT: 'Rated games are between accounts: register to play rated games.',
	NO_SUCH_USER: 'There is no player of that name.',
	NO_STORAGE: 'This server keeps no accounts or records.',
	/* seeks */
	UNKNOWN_GAME: 'This server has no game of that kind.',
	BAD_OPTION: 'One of the game options is not right.',
	TOO_MANY_SEEKS: 'You have as many open seeks as you may. Withdraw one first.',
	NO_SUCH_SEEK: 'That seek is gone (taken or withdrawn).',
	NOT_YOUR_SEEK: 'That seek is someone else\'s.',
	OWN_SEEK: 'That is your own seek: wait for someone to accept it.',
	/* games, moves and offers */
	NO_SUCH_GAME: 'There is no such game.',
	NOT_YOUR_GAME: 'You do not play in that game.',
	NOT_WATCHING: 'You are not watching that game.',
	NOT_YOUR_TURN: 'It is not your turn.',
	WRONG_PHASE: 'Not that kind of action now.',
	ALREADY_ACTED: 'Your action for this turn is already in.',
	BAD_MOVE: 'That is not a move of this game.',
	ILLEGAL_MOVE: 'That move is not allowed here.',
	GAME_OVER: 'The game is over.',
	NO_OFFER: 'That offer is no longer standing.',
	NOT_NOW: 'That cannot be offered now.',
	NOT_SUPPORTED: 'Takebacks are not possible in this game.',
	/* moderation */
	NOT_ADMIN: 'Only the server\'s admins can do that.',
	ADDRESS_NOT_ALLOWED: 'The server\'s metrics are not for your address.',
	BANNED: 'This account or address is banned from the server.',
	MUTED: 'An admin has muted you: you cannot chat or send messages for now.',
	BLOCKED: 'That player does not take messages or challenges from you.',
	/* bots and accept filters */
	BOT_HAS_PLAYED: 'This account has played games already: it stays what it played as.',
	BAD_FILTER: 'That accept filter cannot be read.',
	FILTERED: 'That player does not take games like this one.',
	NO_BOTS: 'Bots and players who refuse bots do not meet.',
	COMPUTER_BUSY: 'You play the computer in as many games as you may (or it is busy): finish one first.',
	/* tournaments */
	NO_SUCH_TOURNEY: 'There is no such tournament.',
	NOT_DIRECTOR: 'Only the tournament\'s director can do that.',
	TOURNEY_STATE: 'The tournament cannot do that now (it has started, ended, or you are not in it).',
	TOURNEY_FULL: 'The tournament is full.',
	TOURNEY_UNAVAILABLE: 'No server of the cluster runs tournaments and pools right now; try again in a few seconds.',
	NO_SUCH_POOL: 'There is no such pool.',
	IN_POOL: 'You are waiting in a pool already: leave it first.',
	NOT_IN_POOL: 'You are not waiting in any pool.',
	/* the ladder */
	NOT_ON_LADDER: 'You are not on a ladder.',
	LADDER_FULL: 'The ladder has all the members it takes.',
	LADDER_UNAVAILABLE: 'No server of the cluster runs the ladder right now; try again in a few seconds.',
	/* the server */
	INTERNAL: 'The server could not do that; nothing happened. Try again.',
	CLUSTER_DOWN: 'The server cannot reach the rest of its cluster. Try again soon.',
	NODE_GONE: 'The server running that game did not answer. Try again soon.',
	/* notices */
	SESSION_TAKEN: 'You logged in somewhere else, so this page was disconnected.',
	LOGIN_TIMEOUT: 'Disconnected: no login in time.',
	IDLE_TIMEOUT: 'Disconnected after a long time without activity.',
	PING_TIMEOUT: 'The connection stopped answering.',
	KICKED: 'An admin closed your connection.',
	STORE_FAILING: 'The server cannot save this game right now; your moves wait until it can.',
	STORE_OK: 'The game is being saved again.',
};

/* Codes of the page itself, not the server's. */
export const PAGE_CODES = {
	DISCONNECTED: 'Not connected: wait for the connection to come back.',
	HTTP_ERROR: 'The server could not answer that.',
};

/* Codes whose server sentence names what the table cannot (the option, the move, the limit). */
const KEEP_SENTENCE = new Set(['BAD_OPTION', 'BAD_MOVE', 'ILLEGAL_MOVE', 'BAD_ARGS', 'NOT_NOW']);

/* The text to show for an error {code, message}: the table's, plus the server's sentence when
 * it says more. */
export function errorText(e) {
	const code = e && e.code;
	const known = MESSAGES[code] || PAGE_CODES[code];
	if (!known)
		return e && e.message ? String(e.message) : 'Something went wrong.';
	if (KEEP_SENTENCE.has(code) && e.message && e.message !== code)
		return `${known} (${e.message})`;
	return known;
}
