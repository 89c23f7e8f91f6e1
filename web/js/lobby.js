/*
 * lobby.js - the lobby: logging in (guest, account, register), seeking with the options the
 * server lists in `games`, the open seeks (kept current by `seek` messages) with accept and
 * withdraw, the games in progress (`list`: players, kind, ply, time control and clocks,
 * spectators) to watch, and who is online (`who`). `list` and `who` have no push
 * messages, so they are asked again every few seconds while the lobby is shown.
 */
import {ratingText} from './api.js';
import {cells, clockText, el, optionsText, put, table, timeControlText, userLink} from './dom.js';

const POLL_MS = 5000;
const TIMES = [['', 'untimed'], ['1+0', '1+0'], ['3+2', '3+2'], ['5+3', '5+3'], ['10+5', '10+5'],
               ['15+10', '15+10'], ['30+20', '30+20']];
const COLORS = [['random', 'random seat'], ['first', 'first (white, X)'], ['second', 'second (black, O)']];

export class Lobby {
	constructor(app) {
		this.app = app;
		this.conn = app.conn;
		this.seeks = new Map();
		this.games = [];
		this.users = [];
		this.timer = null;

		this.loginBox = el('section', {class: 'panel login', 'aria-label': 'log in'});
		this.seekBox = el('section', {class: 'panel seek', 'aria-label': 'new game'});
		this.seeksBox = el('section', {class: 'panel seeks', 'aria-label': 'open seeks'});
		this.gamesBox = el('section', {class: 'panel games', 'aria-label': 'games in progress'});
		this.whoBox = el('section', {class: 'panel online', 'aria-label': 'online'});
		this.el = el('div', {class: 'lobby'}, this.loginBox, this.seekBox, this.seeksBox,
		             this.gamesBox, this.whoBox);
		this.buildLogin();
		this.conn.on('seek', (m) => {
			if (m.event === 'new')
				this.seeks.set(m.seek.id, m.seek);
			else
				this.seeks.delete(m.id);
			this.renderSeeks();
		});
	}

	show() {
		this.render();
		this.refresh();
		clearInterval(this.timer);
		this.timer = setInterval(() => this.refresh(), POLL_MS);
	}

	hide() {
		clearInterval(this.timer);
		this.timer = null;
	}

	async refresh() {
		if (!this.conn.ready)
			return;
		try {
			const [seeks, list, who] = await Promise.all([
				this.conn.request('seeks'), this.conn.request('list'), this.conn.request('who')]);
			this.seeks = new Map(seeks.seeks.map((s) => [s.id, s]));
			this.games = list.games;
			this.users = who.users;
		} catch (e) {
			return;
		}
		this.renderSeeks();
		this.renderGames();
		this.renderWho();
	}

	render() {
		const user = this.conn.user;
		this.loginBox.hidden = Boolean(user);
		this.seekBox.hidden = !user;
		if (user)
			this.buildSeek();
		this.renderSeeks();
		this.renderGames();
		this.renderWho();
	}

	buildLogin() {
		const name = el('input', {type: 'text', id: 'login-name', name: 'name', required: true,
		                          minlength: 2, maxlength: 20, pattern: '[A-Za-z0-9_\\-]{2,20}',
		                          autocomplete: 'username', spellcheck: 'false'});
		const pass = el('input', {type: 'password', id: 'login-password', name: 'password',
		                          maxlength: 128, autocomplete: 'current-password'});
		const go = (how) => (ev) => {
			ev.preventDefault();
			if (!name.reportValidity())
				return;
			const auth = {name: name.value};
			if (how !== 'guest') {
				if (pass.value.length < (how === 'register' ? 6 : 1)) {
					this.app.notice(how === 'register' ? 'A password has 6 to 128 characters.' :
					                                     'Give your password, or play as a guest.');
					return;
				}
				auth.password = pass.value;
			}
			this.app.run(this.conn.login(auth, how === 'register')).then(() => { pass.value = ''; });
		};
		put(this.loginBox, el('h2', {}, 'Play'),
		    el('form', {class: 'login-form', on: {submit: (ev) => go(pass.value ? 'login' : 'guest')(ev)}},
		       el('label', {for: 'login-name'}, 'Name'), name,
		       el('label', {for: 'login-password'}, 'Password (accounts only)'), pass,
		       el('div', {class: 'buttons'},
		          el('button', {type: 'button', id: 'play-guest', on: {click: go('guest')}}, 'Play as a guest'),
		          el('button', {type: 'button', id: 'log-in', on: {click: go('login')}}, 'Log in'),
		          el('button', {type: 'button', id: 'register', on: {click: go('register')}}, 'Register'))),
		    el('p', {class: 'fine'}, 'Names: 2–20 letters, digits, _ or -. Watching needs no name.'));
	}

	buildSeek() {
		const kinds = this.app.kinds || [];
		if (this.seekKinds === kinds && this.seekGuest === this.conn.user.guest)
			return;
		this.seekKinds = kinds;
		this.seekGuest = this.conn.user.guest;
		const kind = el('select', {id: 'seek-kind', name: 'kind'},
		                kinds.map((k) => el('option', {value: k.name}, `${k.title} (${k.name})`)));
		const opts = el('div', {class: 'seek-options'});
		const time = el('select', {id: 'seek-time'}, TIMES.map(([v, t]) => el('option', {value: v}, t)));
		const color = el('select', {id: 'seek-color'}, COLORS.map(([v, t]) => el('option', {value: v}, t)));
		const rated = el('input', {type: 'checkbox', id: 'seek-rated', disabled: this.conn.user.guest});
		const turn = el('input', {type: 'number', id: 'seek-turn', min: 10, max: 3600000, step: 1000,
		                          placeholder: '30000'});
		const seqOnly = el('div', {class: 'row'}, el('label', {for: 'seek-time'}, 'Clock (min+s)'), time);
		const simOnly = el('div', {class: 'row'}, el('label', {for: 'seek-turn'}, 'ms per turn'), turn);
		const showOptions = () => {
			const k = kinds.find((g) => g.name === kind.value);
			opts.replaceChildren(...(k ? k.options : []).map((o) => el('div', {class: 'row'},
			        el('label', {for: `opt-${o.name}`, title: o.help}, `${o.name} `, el('small', {}, o.help)),
			        el('input', {type: 'text', inputmode: 'numeric', id: `opt-${o.name}`,
			                     dataset: {opt: o.name}, placeholder: String(o.default),
			                     pattern: '-?[0-9]+', maxlength: 24}))));
			seqOnly.hidden = Boolean(k && k.simultaneous);
			simOnly.hidden = !(k && k.simultaneous);
		};
		kind.addEventListener('change', showOptions);
		showOptions();
		const submit = (ev) => {
			ev.preventDefault();
			const k = kinds.find((g) => g.name === kind.value);
			const words = ['seek', kind.value];
			for (const input of opts.querySelectorAll('input'))
				if (input.value.trim())
					words.push(`${input.dataset.opt}=${input.value.trim()}`);
			if (k && !k.simultaneous && time.value)
				words.push(`time=${time.value}`);
			if (k && k.simultaneous && turn.value)
				words.push(`turn_ms=${turn.value}`);
			words.push(`color=${color.value}`);
			if (rated.checked)
				words.push('rated=1');
			this.app.run(this.conn.request(words.join(' '))).then((ok) => {
				this.seeks.set(ok.seek.id, ok.seek);
				this.renderSeeks();
			});
		};
		put(this.seekBox, el('h2', {}, 'New game'),
		    el('form', {class: 'seek-form', on: {submit}},
		       el('div', {class: 'row'}, el('label', {for: 'seek-kind'}, 'Game'), kind), opts, seqOnly,
		       simOnly, el('div', {class: 'row'}, el('label', {for: 'seek-color'}, 'Your seat'), color),
		       el('div', {class: 'row'}, el('label', {for: 'seek-rated'}, 'Rated (accounts)'), rated),
		       el('button', {type: 'submit', id: 'seek-submit'}, 'Seek')));
	}

	/* A player's name linked to their page, with their rating in kind beside it when they have
	 * one (fetched once a while: ratings.get). */
	who(name, kind) {
		const r = this.app.ratings.get(name, kind);
		return el('span', {class: 'who-rated'}, userLink(name),
		          typeof r === 'number' ? el('span', {class: 'rating', title: `${kind} rating`}, ` ${ratingText(r)}`) : '');
	}

	renderRatings() {
		this.renderSeeks();
		this.renderGames();
		this.renderWho();
	}

	renderSeeks() {
		const me = this.conn.user && this.conn.user.name;
		const rows = [...this.seeks.values()].sort((a, b) => a.id - b.id).map((s) => {
			const own = me && s.by.toLowerCase() === me.toLowerCase();
			const act = !me ? '' : own ?
			        el('button', {type: 'button', class: 'unseek', dataset: {seek: s.id},
			                      on: {click: () => this.app.run(this.conn.request(`unseek ${s.id}`))
			                                .then(() => { this.seeks.delete(s.id); this.renderSeeks(); })}},
			           'Withdraw') :
			        el('button', {type: 'button', class: 'accept', dataset: {seek: s.id},
			                      on: {click: () => this.app.run(this.conn.request(`accept ${s.id}`))}},
			           'Accept');
			const time = s.turn_ms ? `${s.turn_ms / 1000} s/turn` : timeControlText(s.time);
			const opts = optionsText(s.options, this.app.defaults(s.kind));
			return el('tr', {}, cells(this.who(s.by, s.kind), el('span', {}, el('strong', {}, s.kind), ' ',
			                                   el('small', {}, opts)),
			                          `${time}${s.rated ? ', rated' : ''}`, s.color, act));
		});
		put(this.seeksBox, el('h2', {}, 'Open seeks'),
		    table('open seeks', ['by', 'game', 'clock', 'seeker plays', ''], rows,
		          'No open seeks: make one.'));
	}

	/* One row a game, narrow enough for a phone: the game with its clock and ply, the players
	 * (the one to move in bold), both clocks, the spectators, and a link to watch. */
	renderGames() {
		const rows = this.games.map((g) => {
			const clocks = Array.isArray(g.clocks) ? g.clocks.map(clockText).join(' / ') : '–';
			const time = g.turn_ms ? `${g.turn_ms / 1000} s/turn` : timeControlText(g.time);
			const players = g.players.map((p, i) => ((g.to_move || []).includes(i) ?
			        el('strong', {title: 'to move'}, this.who(p, g.kind)) : this.who(p, g.kind)));
			return el('tr', {}, cells(
			        el('span', {}, el('strong', {}, `${g.id} ${g.kind}`), ' ',
			           el('small', {}, `${time}, ply ${g.ply}`)),
			        el('span', {}, players[0], ' – ', players[1]), clocks, String(g.watchers ?? ''),
			        el('a', {href: `#/game/${g.id}`, class: 'watch'}, 'Watch')));
		});
		put(this.gamesBox, el('h2', {}, 'Games in progress'),
		    table('games in progress', ['game', 'players', 'clocks', 'watching', ''],
		          rows, 'No games are being played.'));
	}

	renderWho() {
		const items = this.users.map((u) => el('li', {}, userLink(u.name), u.guest ? el('small', {}, ' guest') : '',
		        Object.entries(u.guest ? {} : this.app.ratings.all(u.name)).map(([k, r]) =>
		                el('small', {class: 'rating', title: `${k} rating`}, ` ${k} ${ratingText(r)}`)),
		        u.playing && u.playing.length ? el('small', {}, ` plays ${u.playing.join(', ')}`) : ''));
		put(this.whoBox, el('h2', {}, `Online (${this.users.length})`),
		    items.length ? el('ul', {class: 'who'}, items) : el('p', {class: 'empty'}, 'Nobody yet.'));
	}
}
