/*
 * conn.js - the page's one WebSocket to bitarenad (/ws on the page's own host).
 *
 * Each frame sent is one command line, each frame received one JSON object (JSON mode); the
 * server's first frame may be its text welcome, which is not JSON and is ignored. Commands are
 * sent with a tag (#c17 verb ...), so request() can hand the caller the very reply to its
 * command (ok or error) while everything else (state, seek, chat, offer, info, ...) goes to the
 * listeners registered with on(type).
 *
 * The socket comes back by itself: a lost connection is reopened with a growing delay, and the
 * credentials of the last successful login are replayed (accounts with their password, guests by
 * name, and a guest token once the server hands one out) so that a player gets their seats back
 * within the grace period. The credentials live in sessionStorage: they survive a reload of this
 * tab, not the closing of the tab, and other tabs have their own.
 */

const AUTH_KEY = 'bitarena.auth';
const BACKOFF_MS = [250, 500, 1000, 2000, 4000];
const NAME_TAKEN_RETRIES = 12; /* a reloaded guest's old socket may not be closed yet */

export class ServerError extends Error {
	constructor(msg) {
		super(msg.message || msg.code);
		this.code = msg.code;
		this.reply = msg;
	}
}

/* One line, as the server frames it: no control characters (newlines become spaces). */
export function cleanLine(text) {
	return String(text).replace(/[\u0000-\u001f\u007f]+/g, ' ').trim();
}

export class Conn {
	constructor(url) {
		this.url = url;
		this.ws = null;
		this.nextTag = 1;
		this.pending = new Map(); /* tag -> {resolve, reject, verb} */
		this.listeners = new Map(); /* type -> [fn] */
		this.attempt = 0;
		this.ready = false; /* JSON mode set and, if we had credentials, logged in again */
		this.user = null; /* {name, guest} once logged in */
		this.stopped = false; /* no automatic reconnection (session taken elsewhere) */
		this.auth = loadAuth();
	}

	on(type, fn) {
		if (!this.listeners.has(type))
			this.listeners.set(type, []);
		this.listeners.get(type).push(fn);
	}

	emit(type, msg) {
		for (const fn of this.listeners.get(type) || [])
			fn(msg);
	}

	connect() {
		this.stopped = false;
		const ws = new WebSocket(this.url);
		this.ws = ws;
		this.emit('status', {state: 'connecting'});
		ws.addEventListener('open', () => this.opened(ws));
		ws.addEventListener('message', (ev) => this.received(ev.data));
		ws.addEventListener('close', () => this.closed(ws));
	}

	async opened(ws) {
		if (ws !== this.ws)
			return;
		this.attempt = 0;
		try {
			await this.request('set format json');
			/* spectator counts as they change; a server without them still serves the page */
			await this.request('set watchers on').catch(() => {});
			if (this.auth)
				await this.relogin();
			this.ready = true;
			this.emit('status', {state: 'open'});
			this.emit('ready', {user: this.user});
		} catch (e) {
			this.emit('status', {state: 'open', error: e});
			this.ready = true;
			this.emit('ready', {user: this.user});
		}
	}

	received(data) {
		let msg;
		try {
			msg = JSON.parse(data);
		} catch (e) {
			this.emit('text', data); /* the welcome line */
			return;
		}
		if (msg === null || typeof msg !== 'object')
			return;
		const tagged = msg.id !== undefined && this.pending.get(msg.id);
		if (tagged && (msg.type === 'ok' || msg.type === 'error' || msg.type === 'pong')) {
			this.pending.delete(msg.id);
			if (msg.type === 'error')
				tagged.reject(new ServerError(msg));
			else
				tagged.resolve(msg);
			return;
		}
		if (msg.type === 'info' && msg.event === 'session_taken')
			this.stopped = true;
		if (msg.type === 'ping') {
			this.sendRaw(`pong ${msg.token}`);
			return;
		}
		this.emit(msg.type, msg);
		this.emit('*', msg);
	}

	closed(ws) {
		if (ws !== this.ws)
			return;
		this.ready = false;
		this.user = null;
		for (const p of this.pending.values())
			p.reject(new ServerError({code: 'DISCONNECTED', message: 'the connection was lost'}));
		this.pending.clear();
		if (this.stopped) {
			this.emit('status', {state: 'stopped'});
			return;
		}
		const delay = BACKOFF_MS[Math.min(this.attempt, BACKOFF_MS.length - 1)];
		this.attempt++;
		this.emit('status', {state: 'closed', retryMs: delay});
		setTimeout(() => this.connect(), delay);
	}

	sendRaw(line) {
		if (this.ws && this.ws.readyState === WebSocket.OPEN)
			this.ws.send(line);
	}

	/* Sends one command; resolves with its ok (or pong), rejects with a ServerError. */
	request(line) {
		line = cleanLine(line);
		const tag = `c${this.nextTag++}`;
		return new Promise((resolve, reject) => {
			if (!this.ws || this.ws.readyState !== WebSocket.OPEN) {
				reject(new ServerError({code: 'DISCONNECTED', message: 'not connected'}));
				return;
			}
			this.pending.set(tag, {resolve, reject});
			this.ws.send(`#${tag} ${line}`);
		});
	}

	/* --- logging in ------------------------------------------------------------------------ */

	/* The command that logs in with stored credentials: a guest's token (given by the server
	 * at login) stands in for a password, so that its seats come back. */
	static loginLine(auth) {
		if (auth.password !== undefined)
			return `login ${auth.name} ${auth.password}`;
		if (auth.token)
			return `login ${auth.name} ${auth.token}`;
		return `login ${auth.name}`;
	}

	async login(auth, register = false) {
		const line = register ? `register ${auth.name} ${auth.password}` : Conn.loginLine(auth);
		const ok = await this.request(line);
		this.loggedIn(ok, auth);
		return ok;
	}

	loggedIn(ok, auth) {
		this.user = {name: ok.name || auth.name, guest: Boolean(ok.guest)};
		this.auth = {name: this.user.name};
		if (auth.password !== undefined && !ok.guest)
			this.auth.password = auth.password;
		if (ok.token)
			this.auth.token = ok.token;
		saveAuth(this.auth);
		this.emit('login', {user: this.user, resumed: ok.resumed || []});
	}

	/* After a reconnection: the same identity again. A guest name still held by our previous,
	 * not yet closed socket is retried for a while; a guest token the server no longer knows
	 * (a guest without seats: nothing waits for it) gives way to the name alone; a refused
	 * account is forgotten. */
	async relogin() {
		for (let i = 0;; i++) {
			try {
				return await this.login(this.auth);
			} catch (e) {
				if (e.code === 'NAME_TAKEN' && i < NAME_TAKEN_RETRIES) {
					await new Promise((r) => setTimeout(r, 500));
					continue;
				}
				if (e.code === 'BAD_LOGIN' && this.auth.token && this.auth.password === undefined) {
					this.auth = {name: this.auth.name};
					continue;
				}
				if (e.code !== 'DISCONNECTED' && e.code !== 'LOGIN_THROTTLED')
					this.forget();
				throw e;
			}
		}
	}

	forget() {
		this.auth = null;
		saveAuth(null);
	}

	async logout() {
		this.forget();
		this.user = null;
		/* there is no logout verb: a new connection is a fresh, anonymous one */
		if (this.ws)
			this.ws.close();
	}

	/* Closes at once when the page goes away, so the server frees a guest name before the
	 * reloaded page asks for it. */
	closeNow() {
		this.stopped = true;
		if (this.ws)
			this.ws.close();
	}
}

function loadAuth() {
	try {
		const a = JSON.parse(sessionStorage.getItem(AUTH_KEY));
		return a && typeof a.name === 'string' ? a : null;
	} catch (e) {
		return null;
	}
}

function saveAuth(a) {
	try {
		if (a)
			sessionStorage.setItem(AUTH_KEY, JSON.stringify(a));
		else
			sessionStorage.removeItem(AUTH_KEY);
	} catch (e) {
		/* storage disabled: reconnection still works while the page lives */
	}
}
