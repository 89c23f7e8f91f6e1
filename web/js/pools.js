/*
 * pools.js - quick pairing (issue 22): a button for each of the server's pools (`pools`:
 * name, game, time control, how many wait and play); pressing one sends `pool join <name>`
 * and shows that the page waits, with a button to stop (`pool leave`). The game comes as any
 * game does (`game_start`: app.js opens it), which ends the wait here. A declined pairing
 * (`pool` message, bots off or an accept filter) is shown as a notice.
 */
import {el, put} from './dom.js';

export class QuickPairing {
	constructor(app) {
		this.app = app;
		this.conn = app.conn;
		this.pools = [];
		this.waiting = null; /* the pool's name while waiting */
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

	render() {
		this.el.hidden = !this.conn.user || this.pools.length === 0;
		if (this.el.hidden)
			return;
		const buttons = this.pools.map((p) => el('button', {
			type: 'button', class: 'pool', 'data-pool': p.name, disabled: this.waiting !== null,
			title: `${p.game}${p.rated && !this.conn.user.guest ? ', rated' : ''}`,
			on: {click: () => this.join(p.name)}},
			el('strong', {}, p.game.replace(/ time=/, ' ')),
			el('span', {class: 'fine'}, ` ${p.waiting} waiting · ${p.playing} playing`)));
		const status = this.waiting === null ?
			el('p', {class: 'fine'}, 'Press a pool: the server finds you an opponent near your rating.') :
			el('p', {class: 'pool-wait'}, `Looking for an opponent in ${this.waiting}… `,
			   el('button', {type: 'button', id: 'pool-leave', on: {click: () => this.leave()}}, 'Cancel'));
		put(this.el, el('h2', {}, 'Quick pairing'), el('div', {class: 'buttons pool-buttons'}, buttons),
		    status);
	}
}
