/*
 * pools.js - quick pairing (issue 22): a button for each of the server's pools (`pools`:
 * name, game, time control, how many wait and play); pressing one sends `pool join <name>`
 * and shows that the page waits, with a button to stop (`pool leave`). The game comes as any
 * game does (`game_start`: app.js opens it), which ends the wait here. A declined pairing
 * (`pool` message, bots off or an accept filter) is shown as a notice.
 *
 * Play the computer (issue 22 item 6): beside the pools, a game kind, a level (1-8) and a
 * button that sends `match computer <kind> level=N`; the game starts at once (game_start).
 * The pools are tiles in a grid (game, clock, counts), the computer's choices below them.
 */
import {el, put} from './dom.js';

/* What the computer plays from the page: [label, kind and options]. */
const COMPUTER_KINDS = [['Tic-tac-toe', 'ttt'], ['Tak 4×4', 'tak size=4'], ['Tak 5×5', 'tak size=5'],
                        ['Tak 6×6', 'tak size=6'], ['Xmas Rush', 'xmas']];
const LEVELS = 8;

/* A pool's game for people: "Tak 5×5" and its clock "5+3" from "tak size=5 time=5+3". */
function poolLabel(p) {
	const size = /size=(\d+)/.exec(p.game);
	const time = /time=(\S+)/.exec(p.game);
	const names = {ttt: 'Tic-tac-toe', tak: 'Tak', xmas: 'Xmas Rush', mnk: 'm,n,k'};
	const name = (names[p.kind] || p.kind) + (size ? ` ${size[1]}×${size[1]}` : '');
	return [name, time ? time[1] : 'untimed'];
}

export class QuickPairing {
	constructor(app) {
		this.app = app;
		this.conn = app.conn;
		this.pools = [];
		this.waiting = null; /* the pool's name while waiting */
		this.computerKind = COMPUTER_KINDS[0][1];
		this.level = 3;
		this.el = el('section', {class: 'panel pools', 'aria-label': 'quick pairing'});
		this.conn.on('game_start', () => {
			if (this.waiting !== null) {
				this.waiting = null;
				this.render();
			}
		});
		this.conn.on('pool', (m) => {
			if (m.event === 'declined')
				this.app.notice(`Not paired with ${m.opponent}: ${m.reason}`);
		});
	}

	async refresh() {
		if (!this.conn.ready)
			return;
		try {
			this.pools = (await this.conn.request('pools')).pools;
		} catch (e) {
			return;
		}
		this.render();
	}

	join(name) {
		this.app.run(this.conn.request(`pool join ${name}`).then(() => {
			this.waiting = name;
			this.render();
		}));
	}

	leave() {
		this.app.run(this.conn.request('pool leave').finally(() => {
			this.waiting = null;
			this.render();
		}));
	}

	playComputer() {
		this.app.run(this.conn.request(`match computer ${this.computerKind} level=${this.level}`));
	}

	/* The computer's choices: a kind, a level, the button. */
	computer() {
		const kind = el('select', {id: 'computer-kind', 'aria-label': 'game', on: {change: (ev) => {
			this.computerKind = ev.target.value;
		}}}, COMPUTER_KINDS.map(([label, k]) => el('option', {value: k, selected: k === this.computerKind},
		                                                   label)));
		const levels = el('div', {class: 'choices levels', role: 'group', 'aria-label': 'level'});
		for (let i = 1; i <= LEVELS; i++)
			levels.append(el('button', {type: 'button', 'data-level': String(i),
			        'aria-pressed': String(i === this.level), title: `level ${i} of ${LEVELS}`,
			        on: {click: (ev) => {
			                this.level = i;
			                for (const b of levels.querySelectorAll('button'))
			                        b.setAttribute('aria-pressed', String(b === ev.currentTarget));
			        }}}, String(i)));
		return el('div', {class: 'computer'},
		          el('h3', {}, 'Play the computer'),
		          el('div', {class: 'computer-row'}, kind, levels,
		             el('button', {type: 'button', id: 'play-computer', disabled: this.waiting !== null,
		                           on: {click: () => this.playComputer()}}, 'Play')),
		          el('p', {class: 'fine'}, 'Level 1 plays at random, 8 as well as the server can; unrated.'));
	}

	render() {
		this.el.hidden = !this.conn.user || this.pools.length === 0;
		if (this.el.hidden)
			return;
		const buttons = this.pools.map((p) => {
			const [name, clock] = poolLabel(p);
			return el('button', {
				type: 'button', class: 'pool', 'data-pool': p.name, disabled: this.waiting !== null,
				title: `${p.game}${p.rated && !this.conn.user.guest ? ', rated' : ''}`,
				on: {click: () => this.join(p.name)}},
				el('span', {class: 'pool-clock'}, clock),
				el('span', {class: 'pool-game'}, name),
				el('span', {class: 'fine'}, `${p.waiting} waiting · ${p.playing} playing`));
		});
		const status = this.waiting === null ?
			el('p', {class: 'fine'}, 'Press a pool: the server finds you an opponent near your rating.') :
			el('p', {class: 'pool-wait'}, `Looking for an opponent in ${this.waiting}… `,
			   el('button', {type: 'button', id: 'pool-leave', on: {click: () => this.leave()}}, 'Cancel'));
		put(this.el, el('h2', {}, 'Quick pairing'), el('div', {class: 'pool-buttons'}, buttons),
		    status, this.computer());
	}
}
