/*
 * viewer.js - a finished game looked through (#/game/ID of a game that has ended): the stored
 * game from the API (players, ratings after it, result, clocks per move), its positions from
 * the server (`replay ID 0` over the connection: the page knows no rules, it only draws what
 * the server sends), the board at any ply, stepped with the arrow keys (Home and End for the
 * ends), the buttons or a click in the move list, and the record to download (/api/game/ID.ptn).
 */
import {apiJSON, ratingText} from './api.js';
import {clockText, dateText, el, optionsText, parseOptions, put, timeControlText, userLink} from './dom.js';
import {resultText, BOARDS} from './game.js';

export class GameViewer {
	constructor(app, id, game) {
		this.app = app;
		this.id = id;
		this.game = game; /* /api/game/{id} */
		this.hash = `#/game/${id}`;
		this.positions = []; /* replay messages by ply */
		this.at = 0;
		this.board = null;
		this.flip = false;
		this.replaying = false;
		this.boardBox = el('div', {class: 'board-area'});
		this.seats = [0, 1].map((i) => el('div', {class: `seat seat-${i}`}));
		this.moveList = el('ol', {class: 'moves viewer-moves', 'aria-label': 'moves'});
		this.plyText = el('span', {class: 'ply-text', 'aria-live': 'polite'});
		const btn = (label, title, fn, cls) => el('button', {type: 'button', class: cls, title,
		                                                      'aria-label': title, on: {click: fn}}, label);
		this.nav = el('div', {class: 'viewer-nav', role: 'group', 'aria-label': 'step through the game'},
		              btn('|◀', 'first position (Home)', () => this.go(0), 'first'),
		              btn('◀', 'previous move (←)', () => this.go(this.at - 1), 'prev'),
		              btn('▶', 'next move (→)', () => this.go(this.at + 1), 'next'),
		              btn('▶|', 'last position (End)', () => this.go(this.last()), 'last'),
		              btn('⇅', 'flip the board', () => { this.flip = !this.flip; this.draw(); }, 'flip'),
		              this.plyText);
		const g = game;
		const time = timeControlText(g.time);
		this.el = el('section', {class: 'game viewer', 'aria-label': `game ${id}`, dataset: {kind: g.kind}},
		             el('div', {class: 'game-main'},
		                el('h1', {class: 'game-title'}, `Game ${id}: ${g.kind}`,
		                   el('small', {}, ` ${optionsText(parseOptions(g.options), app.defaults(g.kind))} ${time}${g.rated ? ' rated' : ''}`)),
		                this.result = el('p', {class: 'result'}),
		                el('p', {class: 'fine'}, `Played ${dateText(g.started)}, ${g.plies} plies.`),
		                this.seatTop = el('div', {class: 'seat-slot'}), this.boardBox,
		                this.seatBottom = el('div', {class: 'seat-slot'}), this.nav,
		                el('p', {class: 'actions'},
		                   el('a', {class: 'button download', href: `/api/game/${id}.ptn`, download: `bitarena-${id}.ptn`},
		                      'Download the record (PTN)'),
		                   ' ', el('a', {class: 'button', href: '#/'}, 'Back to the lobby'))),
		             el('aside', {class: 'game-side'}, el('h2', {}, 'Moves'), this.moveList));
		this.onKey = (ev) => this.key(ev);
		document.addEventListener('keydown', this.onKey);
		document.title = `${g.players.join(' vs ')}, game ${id} – bitarena`;
		this.draw();
		this.ready();
	}

	/* Asks the server for the positions once the connection is up. */
	ready() {
		if (this.replaying || !this.app.conn.ready)
			return;
		this.replaying = true;
		this.app.run(this.app.conn.request(`replay ${this.id} 0`));
	}

	onReplay(m) {
		if (m.game !== this.id)
			return;
		const following = this.at === this.last(); /* at the end so far: stay there */
		this.positions[m.ply] = m;
		if (following)
			this.at = m.ply;
		this.draw();
	}

	last() {
		return Math.max(0, this.positions.length - 1);
	}

	go(i) {
		this.at = Math.max(0, Math.min(i, this.last()));
		this.draw();
	}

	key(ev) {
		if (ev.target && /^(INPUT|TEXTAREA|SELECT)$/.test(ev.target.tagName))
			return;
		const to = {ArrowLeft: this.at - 1, ArrowRight: this.at + 1, Home: 0, End: this.last()}[ev.key];
		if (to === undefined)
			return;
		ev.preventDefault();
		this.go(to);
	}

	/* Each seat's clock after the move that led to ply `at` (sequential games). */
	clocksAt(at) {
		const g = this.game, mv = g.moves || [];
		if (!g.time)
			return null;
		if (at === 0)
			return [g.time.base_ms, g.time.base_ms];
		const m = mv[Math.min(at, mv.length) - 1];
		return m && m.clock_ms ? m.clock_ms : null;
	}

	draw() {
		const g = this.game, p = this.positions[this.at];
		const clocks = this.positions.length > 1 && this.positions.length - 1 === (g.moves || []).length ?
		        this.clocksAt(this.at) : null;
		this.seats.forEach((s, i) => {
			const r = g.ratings ? g.ratings[i] : null;
			put(s, userLink(g.players[i], {class: 'name'}),
			    typeof r === 'number' ? el('span', {class: 'rating', title: 'rating after this game'}, ratingText(r)) : '',
			    el('span', {class: 'clock'}, clocks ? clockText(clocks[i]) : ''));
		});
		/* the seats' names once `games` has come (after the page loaded, when it opened here) */
		this.result.textContent = resultText(storedResult(g), g.players, this.app.seatNames(g.kind));
		const fixed = Boolean(BOARDS[g.kind] && BOARDS[g.kind].fixed);
		this.nav.querySelector('button.flip').hidden = fixed;
		put(this.seatTop, this.seats[this.flip ? 0 : 1]);
		put(this.seatBottom, this.seats[this.flip ? 1 : 0]);
		if (p) {
			const Board = BOARDS[g.kind];
			if (Board && !this.board) {
				this.board = new Board();
				this.boardBox.replaceChildren(this.board.el);
			}
			const state = {game: this.id, kind: g.kind, players: g.players, position: p.position,
			               last_move: p.last_move, seq: p.ply + 1, ply: p.ply, to_move: []};
			if (this.board)
				this.board.update({state, seat: null, legal: null, acted: null, over: true, online: false,
				                   flip: this.flip, seats: this.app.seatNames(g.kind), send: () => {}});
			else
				this.boardBox.replaceChildren(el('pre', {class: 'raw-position'}, JSON.stringify(p.position, null, 1)));
		} else {
			this.boardBox.replaceChildren(el('p', {class: 'empty'}, 'Loading the positions…'));
		}
		const n = this.last();
		put(this.plyText, this.positions.length ? `ply ${this.at} of ${n}` : '');
		this.renderMoves();
	}

	renderMoves() {
		const items = [];
		for (let i = 1; i < this.positions.length; i++) {
			const lm = this.positions[i] && this.positions[i].last_move;
			const text = lm && typeof lm === 'object' ? `${lm['0'] ?? '—'} | ${lm['1'] ?? '—'}` : String(lm ?? '');
			items.push(el('li', {}, el('button', {type: 'button', class: ['ply', i === this.at && 'current'],
			                                     'aria-current': i === this.at ? 'step' : false, dataset: {ply: i},
			                                     on: {click: () => this.go(i)}}, text)));
		}
		this.moveList.replaceChildren(...items);
		const cur = this.moveList.querySelector('.current');
		if (cur)
			cur.scrollIntoView({block: 'nearest'});
	}

	destroy() {
		document.removeEventListener('keydown', this.onKey);
	}
}

/* The stored game's result in the shape of a state's (resultText's). */
function storedResult(g) {
	if (g.status === 'aborted')
		return {reason: 'aborted'};
	return {score: g.result, winner: g.winner, reason: g.reason};
}

/* Opens #/game/ID: a finished game in the viewer, or null when it is (or may be) in progress. */
export async function finishedGame(id) {
	try {
		const g = await apiJSON(`/api/game/${id}`);
		return g.status === 'in_progress' ? null : g;
	} catch (e) {
		return null; /* not stored (yet), or no store: the live view asks the server */
	}
}
