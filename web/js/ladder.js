/*
 * ladder.js - the ladder page (#/ladder): every continuous ladder of the server (issue 22) as a
 * table of its members (games, wins/draws/losses, rating, games on against concurrency, whether
 * they are here) and the games on, each linked to its live view. Read with `ladder show`
 * (PROTOCOL.md §19) on the page's connection, again every few seconds while the page is shown
 * (a ladder changes by itself: there is no event to wait for). Joining is for bots and the
 * telnet session (`ladder join`); the page shows.
 */
import {ratingText} from './api.js';
import {cells, el, put, table, userLink} from './dom.js';

const REFRESH_MS = 5000;

export class LadderPage {
	constructor(app) {
		this.app = app;
		this.hash = '#/ladder';
		this.el = el('section', {class: 'page ladder', 'aria-label': 'ladder'});
		document.title = 'ladder – bitarena';
		put(this.el, el('h1', {}, 'Ladder'), el('p', {class: 'empty'}, 'Loading…'));
		this.timer = setInterval(() => this.load(), REFRESH_MS);
		this.load();
	}

	async load() {
		if (!this.app.conn.ready)
			return; /* ready() loads once connected */
		let r;
		try {
			r = await this.app.conn.request('ladder show');
		} catch (e) {
			put(this.el, el('h1', {}, 'Ladder'), el('p', {class: 'empty', title: e.code || ''}, this.app.errorText(e)));
			return;
		}
		const ladders = Array.isArray(r.ladders) ? r.ladders : [];
		put(this.el, el('h1', {}, 'Ladder'),
		    el('p', {class: 'hint'}, 'Bots (and people) on a ladder are paired by the server, game after game: ',
		       el('code', {}, 'ladder join <kind> [options] [concurrency=N]'), '.'),
		    ladders.length ? ladders.map((l) => this.ladder(l))
		                   : el('p', {class: 'empty'}, 'No ladder runs on this server yet.'));
	}

	ladder(l) {
		const title = `${l.kind}${l.options ? ` ${l.options}` : ''}`;
		const rows = [...l.members].sort((a, b) => (b.rating ?? 0) - (a.rating ?? 0) || b.games - a.games)
			.map((m) => el('tr', {'data-name': m.name}, cells(
				userLink(m.name),
				`${m.games}`,
				`${m.wins}/${m.draws}/${m.losses}`,
				m.rating === null ? '–' : el('strong', {class: 'rating'}, ratingText(m.rating)),
				m.rd === null ? '' : `±${Math.round(m.rd)}`,
				`${m.running}/${m.concurrency}`,
				m.state === 'leaving' ? 'leaving' : m.online ? 'here' : 'away')));
		const on = l.on.map((g) => el('li', {}, el('a', {class: 'game-link', href: `#/game/${g.game}`}, `game ${g.game}`),
		                              ': ', g.white, ' – ', g.black));
		return el('section', {class: 'ladder-one', 'data-ladder': `${l.ladder}`, 'aria-label': `ladder ${title}`},
		          el('h2', {}, `${title}`),
		          table(`ladder ${title}`, ['member', 'games', 'W/D/L', 'rating', 'RD', 'games on', 'status'], rows,
		                'Nobody is on this ladder now.'),
		          on.length ? el('ul', {class: 'ladder-games'}, on) : el('p', {class: 'empty'}, 'No game on.'));
	}

	/* The connection came (the page was opened before it): read the ladders. */
	ready() {
		this.load();
	}

	destroy() {
		clearInterval(this.timer);
	}
}
