/*
 * app.js - the page: one connection (conn.js), the lobby (#/) and a game view (#/game/<id>),
 * the messages of the server routed to the games they concern, and the header's status.
 *
 * A game the user plays is shown as soon as it starts; any other game is watched while its view
 * is open (watch on entering, unwatch on leaving). After a reconnection the user is logged in
 * again and gets their seats back (`resumed`), and a watched game is watched again; either way
 * the server sends the state as it stands and the latest chat lines.
 */
import {Conn, ServerError} from './conn.js';
import {$, put} from './dom.js';
import {GameModel, GameView} from './game.js';
import {Lobby} from './lobby.js';

class App {
	constructor() {
		const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
		this.conn = new Conn(`${scheme}://${location.host}/ws`);
		this.models = new Map();
		this.kinds = null;
		this.resumed = new Set();
		this.lobby = new Lobby(this);
		this.view = null; /* the GameView shown, or null for the lobby */
		this.noticeTimer = null;
		this.wire();
		window.addEventListener('hashchange', () => this.route());
		window.addEventListener('pagehide', () => this.conn.closeNow());
		$('#logout').addEventListener('click', () => {
			this.conn.logout();
			location.hash = '#/';
		});
		setInterval(() => this.view && this.view.tick(), 100);
		this.route();
		this.conn.connect();
	}

	/* The option defaults of a game kind, {name: value}, from `games` ({} before it came). */
	defaults(kind) {
		const k = (this.kinds || []).find((g) => g.name === kind);
		return Object.fromEntries((k ? k.options : []).map((o) => [o.name, o.default]));
	}

	model(id) {
		id = Number(id);
		if (!this.models.has(id))
			this.models.set(id, new GameModel(id, this.conn));
		return this.models.get(id);
	}

	wire() {
		const c = this.conn;
		c.on('status', (s) => this.showStatus(s));
		c.on('ready', () => this.ready());
		c.on('login', ({resumed}) => {
			this.resumed = new Set(resumed);
			this.showUser();
			this.lobby.render();
			this.lobby.refresh();
		});
		c.on('game_start', (m) => {
			const g = this.model(m.game);
			g.onStart(m);
			const cur = this.view && this.view.model;
			if (!cur || cur.id === m.game || cur.result || !cur.playing)
				location.hash = `#/game/${m.game}`;
			else
				this.notice(`Game ${m.game} has started: open it from the lobby or finish this one.`);
		});
		c.on('state', (m) => this.model(m.game).onState(m));
		c.on('game_over', (m) => this.model(m.game).onGameOver(m));
		c.on('chat', (m) => this.model(m.game).onChat(m));
		c.on('chat_history', (m) => this.model(m.game).onChatHistory(m));
		c.on('watchers', (m) => this.model(m.game).onWatchers(m.watchers));
		c.on('offer', (m) => this.model(m.game).onOffer(m));
		c.on('info', (m) => {
			if (m.game !== undefined)
				this.model(m.game).onInfo(m);
			else if (m.message)
				this.notice(m.message);
		});
	}

	async ready() {
		this.showUser();
		if (!this.kinds) {
			try {
				this.kinds = (await this.conn.request('games')).games;
			} catch (e) {
				this.kinds = [];
			}
		}
		for (const g of this.models.values())
			g.watching = false; /* a new connection watches nothing yet */
		this.route();
		this.lobby.render();
		this.lobby.refresh();
	}

	route() {
		const m = /^#\/game\/(\d+)$/.exec(location.hash);
		const id = m ? Number(m[1]) : null;
		if (this.view && this.view.model.id !== id) {
			const old = this.view.model;
			this.view.destroy();
			this.view = null;
			if (old.watching && !old.playing) {
				old.watching = false;
				this.conn.request(`unwatch ${old.id}`).catch(() => {});
			}
		}
		const main = $('#view');
		if (id === null) {
			document.title = 'bitarena';
			put(main, this.lobby.el);
			this.lobby.show();
			return;
		}
		this.lobby.hide();
		const g = this.model(id);
		if (!this.view) {
			this.view = new GameView(g, this);
			put(main, this.view.el);
		}
		if (this.conn.ready && !g.playing && !this.resumed.has(id) && !g.watching) {
			g.watching = true;
			this.conn.request(`watch ${id}`).catch((e) => {
				g.watching = false;
				this.notice(e.message);
			});
		}
	}

	showUser() {
		const u = this.conn.user;
		put($('#me'), u ? `${u.name}${u.guest ? ' (guest)' : ''}` : 'not logged in');
		$('#logout').hidden = !u;
	}

	showStatus(s) {
		const text = {connecting: 'connecting…', open: 'connected', stopped: 'disconnected',
		              closed: `connection lost; retrying in ${((s.retryMs || 0) / 1000).toFixed(1)} s`}[s.state];
		const st = $('#status');
		st.textContent = text || s.state;
		st.dataset.state = s.state;
		if (s.error)
			this.notice(s.error);
		if (this.view)
			this.view.render();
		if (s.state === 'stopped')
			this.notice('This connection was closed (logged in elsewhere?). Reload the page to connect again.');
		this.showUser();
	}

	notice(text) {
		const n = $('#notice');
		n.textContent = text;
		n.hidden = false;
		clearTimeout(this.noticeTimer);
		this.noticeTimer = setTimeout(() => { n.hidden = true; }, 6000);
	}

	/* Runs a request: resolves with its reply; an error is shown and the promise then stays
	 * pending, so callers chain only what follows success. */
	run(promise) {
		return promise.catch((e) => {
			this.notice(e instanceof ServerError ? `${e.message} (${e.code})` : String(e));
			return new Promise(() => {});
		});
	}
}

window.bitarena = new App();
