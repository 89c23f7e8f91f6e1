/*
 * lobby.js - the lobby: logging in (guest, account, register), seeking with the options the
 * server lists in `games`, the open seeks (kept current by `seek` messages) with accept and
 * withdraw, the games in progress (`list`: players, kind, ply, time control and clocks,
 * spectators) to watch, and who is online (`who`). `list` and `who` have no push
 * messages, so they are asked again every few seconds while the lobby is shown.
 */
import {ratingText} from './api.js';
import {QuickPairing} from './pools.js';
import {cells, clockText, el, optionsText, put, table, timeControlText, userLink} from './dom.js';

const POLL_MS = 5000;
const TIMES = [['', 'untimed'], ['1+0', '1+0'], ['3+2', '3+2'], ['5+3', '5+3'], ['10+5', '10+5'],
               ['15+10', '15+10'], ['30+20', '30+20']];
/* Options one rarely changes, under "More options" (their defaults are the standard game). */
const MORE = new Set(['pieces', 'caps', 'stale', 'seed', 'league', 'pool']);
const COLORS = [['random', 'random seat'], ['first', 'first (white, X)'], ['second', 'second (black, O)']];
/* Simultaneous games: seconds per turn ('' the server's default, which a human's seek gets). */
const TURNS = [['', 'default'], ['30', '30 s'], ['60', '60 s'], ['120', '2 min'], ['300', '5 min'], ['custom', 'custom']];
/* What words an option with named values (`values` in `games`) shows beside them. */
const VALUE_HELP = {timeout: {lose: 'a missed turn loses (as CodinGame)', pass: 'a missed turn is a pass'}};

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
		this.quick = new QuickPairing(app);
		this.el = el('div', {class: 'lobby'}, this.loginBox, this.quick.el, this.seekBox, this.seeksBox,
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
			this.app.ratings.note(who.users.map((u) => ({name: u.name, registered: !u.guest})));
		} catch (e) {
			return;
		}
		this.renderSeeks();
		this.renderGames();
		this.renderWho();
		this.quick.refresh();
	}

	render() {
		const user = this.conn.user;
		this.loginBox.hidden = Boolean(user);
		this.seekBox.hidden = !user;
		if (user)
			this.buildSeek();
		this.quick.render();
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

	/* The kind the seek form starts with next time it is drawn (the end panel's "New game"). */
	prefer(kind) {
		this.preferKind = kind;
		this.seekKinds = null; /* drawn again */
	}

	/* The seek form: the kind, each option as buttons when it has few values (a board's size,
	 * or named values such as timeout=lose|pass when `games` lists them) or a number field
	 * (under "More options" for those one rarely changes: their defaults are the standard),
	 * the clock as presets or a custom base and increment (simultaneous games: seconds per
	 * turn), the seat, and rated for accounts only. An option goes into the seek only when it
	 * differs from its default. */
	buildSeek() {
		const kinds = this.app.kinds || [];
		if (this.seekKinds === kinds && this.seekGuest === this.conn.user.guest)
			return;
		this.seekKinds = kinds;
		this.seekGuest = this.conn.user.guest;
		const kind = el('select', {id: 'seek-kind', name: 'kind'},
		                kinds.map((k) => el('option', {value: k.name, selected: k.name === this.preferKind},
		                                    `${k.title} (${k.name})`)));
		const opts = el('div', {class: 'seek-options'});
		const more = el('details', {class: 'more-options'}, el('summary', {}, 'More options'));
		const values = new Map(); /* option -> the value chosen (buttons) */
		const choice = (group, attrs, label, pick) => el('button', {type: 'button', ...attrs,
		        'aria-pressed': 'false', on: {click: (ev) => {
		                for (const b of group.querySelectorAll('button'))
		                        b.setAttribute('aria-pressed', String(b === ev.currentTarget));
		                pick();
		        }}}, label);
		const showOptions = () => {
			const k = kinds.find((g) => g.name === kind.value);
			values.clear();
			const main = [], rare = [];
			for (const o of k ? k.options : []) {
				/* the page seeks for people: an option people's games default otherwise
				 * (Xmas Rush's timeout=pass) starts there */
				const def = o.people !== undefined ? o.people : o.default;
				const named = Array.isArray(o.values) ? o.values : null;
				const few = named || (o.max - o.min <= 8 && !MORE.has(o.name));
				let control;
				if (few) {
					control = el('div', {class: 'choices', role: 'group', 'aria-label': o.name});
					const pick = (v) => () => (v === def ? values.delete(o.name) : values.set(o.name, v));
					const all = named || Array.from({length: o.max - o.min + 1}, (_, i) => o.min + i);
					for (const v of all)
						control.append(choice(control, {class: 'opt-choice', dataset: {opt: o.name, value: v},
						                                title: (VALUE_HELP[o.name] || {})[v]}, String(v), pick(v)));
					control.querySelector(`[data-value="${def}"]`)?.setAttribute('aria-pressed', 'true');
				} else {
					control = el('input', {type: 'text', inputmode: 'numeric', id: `opt-${o.name}`,
					                       dataset: {opt: o.name}, placeholder: o.default === o.min && MORE.has(o.name) ? 'standard' : String(o.default),
					                       pattern: '-?[0-9]+|random', maxlength: 24});
				}
				(few ? main : rare).push(el('div', {class: 'row'},
				        el('label', {for: few ? null : `opt-${o.name}`, title: o.help}, `${o.name} `, el('small', {}, o.help)), control));
			}
			opts.replaceChildren(...main);
			more.replaceChildren(el('summary', {}, 'More options'), ...rare);
			more.hidden = !rare.length;
			seqOnly.hidden = Boolean(k && k.simultaneous);
			simOnly.hidden = !(k && k.simultaneous);
		};
		let time = '';
		const base = el('input', {type: 'number', id: 'seek-base', min: 0, max: 180, step: 'any', placeholder: 'minutes',
		                          'aria-label': 'minutes each'});
		const inc = el('input', {type: 'number', id: 'seek-inc', min: 0, max: 180, step: 1, placeholder: 'seconds',
		                         'aria-label': 'seconds added a move'});
		const custom = el('span', {class: 'custom-time', hidden: true}, base, ' min + ', inc, ' s');
		const times = el('div', {class: 'choices', role: 'group', 'aria-label': 'clock'});
		for (const [v, label] of [...TIMES, ['custom', 'custom']])
			times.append(choice(times, {class: 'time-choice', dataset: {time: v}}, label, () => {
				time = v;
				custom.hidden = v !== 'custom';
			}));
		times.firstChild.setAttribute('aria-pressed', 'true');
		const color = el('select', {id: 'seek-color'}, COLORS.map(([v, t]) => el('option', {value: v}, t)));
		const guest = this.conn.user.guest;
		const rated = el('input', {type: 'checkbox', id: 'seek-rated', disabled: guest});
		let turnTime = '';
		const turn = el('input', {type: 'number', id: 'seek-turn', min: 1, max: 3600, step: 1, placeholder: 'seconds',
		                          'aria-label': 'seconds per turn'});
		const turnCustom = el('span', {class: 'custom-time', hidden: true}, turn, ' s');
		const turns = el('div', {class: 'choices', role: 'group', 'aria-label': 'time per turn'});
		for (const [v, label] of TURNS)
			turns.append(choice(turns, {class: 'turn-choice', dataset: {turn: v},
			                            title: v ? null : "the server's time per turn for people's games"}, label, () => {
				turnTime = v;
				turnCustom.hidden = v !== 'custom';
			}));
		turns.firstChild.setAttribute('aria-pressed', 'true');
		const seqOnly = el('div', {class: 'row'}, el('span', {class: 'label'}, 'Clock'), el('div', {}, times, custom));
		const simOnly = el('div', {class: 'row'}, el('span', {class: 'label'}, 'Time per turn'), el('div', {}, turns, turnCustom));
		kind.addEventListener('change', showOptions);
		showOptions();
		const submit = (ev) => {
			ev.preventDefault();
			const k = kinds.find((g) => g.name === kind.value);
			const words = ['seek', kind.value];
			for (const [name, v] of values)
				words.push(`${name}=${v}`);
			for (const input of this.seekBox.querySelectorAll('input[data-opt]'))
				if (input.value.trim())
					words.push(`${input.dataset.opt}=${input.value.trim()}`);
			if (k && !k.simultaneous && time === 'custom' && (base.value || inc.value))
				words.push(`time=${Number(base.value || 0)}+${Number(inc.value || 0)}`);
			else if (k && !k.simultaneous && time && time !== 'custom')
				words.push(`time=${time}`);
			const secs = turnTime === 'custom' ? turn.value : turnTime;
			if (k && k.simultaneous && secs)
				words.push(`turn_ms=${Math.round(Number(secs) * 1000)}`);
			words.push(`color=${color.value}`);
			if (rated.checked && !guest)
				words.push('rated=1');
			this.app.run(this.conn.request(words.join(' '))).then((ok) => {
				this.seeks.set(ok.seek.id, ok.seek);
				this.renderSeeks();
			});
		};
		put(this.seekBox, el('h2', {}, 'New game'),
		    el('form', {class: 'seek-form', on: {submit}},
		       el('div', {class: 'row'}, el('label', {for: 'seek-kind'}, 'Game'), kind), opts, more, seqOnly,
		       simOnly, el('div', {class: 'row'}, el('label', {for: 'seek-color'}, 'Your seat'), color),
		       el('div', {class: 'row'}, el('label', {for: 'seek-rated'}, 'Rated'),
		          el('span', {}, rated, guest ? el('small', {}, ' rated games need an account') : '')),
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
			        s.rated && this.conn.user.guest ?
			        el('button', {type: 'button', class: 'accept', dataset: {seek: s.id}, disabled: true,
			                      title: 'Rated games are between accounts: register to accept it.'}, 'Accept') :
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
