/*
 * app.js - the page: one connection (conn.js), the lobby (#/), a game view (#/game/<id>: a game
 * being played, or the viewer of one that has ended), a player's page (#/user/<name>), a
 * leaderboard (#/ratings/<kind>) and the ladder (#/ladder), the messages of the server routed to
 * the games they concern, and the header's status.
 *
 * A game the user plays is shown as soon as it starts; any other game is watched while its view
 * is open (watch on entering, unwatch on leaving). After a reconnection the user is logged in
 * again and gets their seats back (`resumed`), and a watched game is watched again; either way
 * the server sends the state as it stands and the latest chat lines.
 */
import {Ratings} from './api.js';
import {Conn} from './conn.js';
import {$, put} from './dom.js';
import {errorText} from './errors.js';
import {GameModel, GameView} from './game.js';
import {LadderPage} from './ladder.js';
import {Lobby} from './lobby.js';
import {LeaderboardPage, PlayerPage} from './player.js';
import {Sounds} from './sound.js';
import {finishedGame, GameViewer} from './viewer.js';

class App {
	constructor() {
		const scheme = location.protocol === 'https:' ? 'wss' : 'ws';
		this.conn = new Conn(`${scheme}://${location.host}/ws`);
		this.models = new Map();
		this.kinds = null;
		this.resumed = new Set();
		this.lobby = new Lobby(this);
		this.view = null; /* the GameView shown, or null */
		this.page = null; /* else the page shown (player, leaderboard, viewer), or null: the lobby */
		this.live = new Set(); /* game ids found in progress (shown live, not in the viewer) */
		this.ratings = new Ratings(() => this.ratingsChanged());
		this.sounds = new Sounds($('#mute'));
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

	/* The seats' names of a game kind as `games` gives them (["white", "black"], ["player0",
	 * "player1"]): the one vocabulary of the protocol, the page's too; null before it came. */
	seatNames(kind) {
		const k = (this.kinds || []).find((g) => g.name === kind);
		return k && Array.isArray(k.seats) ? k.seats : null;
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
		c.on('login', ({user, resumed}) => {
			this.resumed = new Set(resumed);
			this.ratings.note([{name: user.name, registered: !user.guest}]);
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
		c.on('replay', (m) => {
			if (this.page && this.page.onReplay)
				this.page.onReplay(m);
			if (this.models.has(m.game))
				this.models.get(m.game).onReplay(m);
		});
		c.on('game_over', (m) => this.model(m.game).onGameOver(m));
		c.on('chat', (m) => this.model(m.game).onChat(m));
		c.on('chat_history', (m) => this.model(m.game).onChatHistory(m));
		c.on('watchers', (m) => this.model(m.game).onWatchers(m.watchers));
		c.on('offer', (m) => this.model(m.game).onOffer(m));
		c.on('info', (m) => {
			if (m.game !== undefined)
				this.model(m.game).onInfo(m);
			else if (m.message)
				this.notice(m.code ? m : m.message);
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
		if (this.view)
			this.view.render(); /* the seats' names, now that `games` has come */
		if (this.page && this.page.ready)
			this.page.ready();
		this.lobby.render();
		this.lobby.refresh();
	}

	/* Is game id shown live (being played, watched, or known to be in progress)? */
	isLive(id) {
		const g = this.models.get(id);
		return this.live.has(id) || Boolean(g && (g.state || g.start));
	}

	route() {
		const h = location.hash;
		const m = /^#\/game\/(\d+)$/.exec(h);
		const id = m ? Number(m[1]) : null;
		const live = id !== null && this.isLive(id);
		if (this.view && (this.view.model.id !== id || !live)) {
			const old = this.view.model;
			this.view.destroy();
			this.view = null;
			if (old.watching && !old.playing) {
				old.watching = false;
				this.conn.request(`unwatch ${old.id}`).catch(() => {});
			}
		}
		if (this.page && (this.page.hash !== h || live)) {
			this.page.destroy();
			this.page = null;
		}
		const main = $('#view');
		const user = /^#\/user\/([A-Za-z0-9_-]{2,20})$/.exec(h);
		const board = /^#\/ratings\/([a-z0-9_-]{1,32})$/.exec(h);
		const ladder = h === '#/ladder';
		if (id === null && !user && !board && !ladder) {
			document.title = 'bitarena';
			put(main, this.lobby.el);
			this.lobby.show();
			return;
		}
		this.lobby.hide();
		if (user || board || ladder) {
			if (!this.page) {
				this.page = user ? new PlayerPage(this, user[1])
				        : board ? new LeaderboardPage(this, board[1]) : new LadderPage(this);
				put(main, this.page.el);
			}
			return;
		}
		if (!live) {
			if (!this.page)
				this.openFinished(id);
			return;
		}
		const g = this.model(id);
		if (!this.view) {
			this.view = new GameView(g, this);
			put(main, this.view.el);
		}
		if (this.conn.ready && !g.playing && !this.resumed.has(id) && !g.watching) {
			g.watching = true;
			this.conn.request(`watch ${id}`).catch((e) => {
				g.watching = false;
				this.notice(e);
			});
		}
	}

	/* #/game/ID of a game this page has not seen: the viewer when it has ended, else live. */
	async openFinished(id) {
		const key = `#/game/${id}`;
		if (this.opening === key)
			return;
		this.opening = key;
		put($('#view'), put(document.createElement('p'), 'Loading the game…'));
		const g = await finishedGame(id);
		this.opening = null;
		if (location.hash !== key || this.isLive(id) || this.page)
			return;
		if (!g) {
			this.live.add(id);
			this.route();
			return;
		}
		this.page = new GameViewer(this, id, g);
		put($('#view'), this.page.el);
	}

	ratingsChanged() {
		this.lobby.renderRatings();
		if (this.view)
			this.view.render();
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

	/* Shows a sentence, or an error ({code, message}) as its human text with the code in the
	 * tooltip, for a few seconds or until the next request succeeds. */
	notice(what) {
		const n = $('#notice');
		const err = what && typeof what === 'object';
		n.textContent = err ? this.errorText(what) : String(what);
		if (err && what.code)
			n.title = `error code ${what.code}${what.message && what.message !== what.code ? `: ${what.message}` : ''}`;
		else
			n.removeAttribute('title');
		n.dataset.code = err && what.code ? what.code : '';
		n.hidden = false;
		clearTimeout(this.noticeTimer);
		this.noticeTimer = setTimeout(() => this.clearNotice(), 6000);
	}

	clearNotice() {
		const n = $('#notice');
		n.hidden = true;
		n.dataset.code = '';
	}

	errorText(e) {
		return e && e.code ? errorText(e) : String(e && e.message ? e.message : e);
	}

	/* Runs a request: resolves with its reply (and clears an error shown before); an error is
	 * shown and the promise then stays pending, so callers chain only what follows success. */
	run(promise) {
		return promise.then((ok) => {
			if ($('#notice').dataset.code)
				this.clearNotice();
			return ok;
		}, (e) => {
			this.notice(e);
			return new Promise(() => {});
		});
	}
}

window.bitarena = new App();
