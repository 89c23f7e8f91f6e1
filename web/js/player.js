/*
 * player.js - a player's page (#/user/NAME: ratings per kind, a rating-history chart, counts,
 * recent games) and a kind's leaderboard (#/ratings/KIND), both read from the HTTP API
 * (api.js). The chart is drawn here as SVG: one line per game kind, a point per rated game
 * (the rating it left the player with), the rating and the game on hover.
 */
import {apiJSON, apiList, ratingHistory, ratingText} from './api.js';
import {cells, dateText, el, optionsText, parseOptions, put, svg, table, userLink} from './dom.js';
import {seatScores} from './game.js';

const CHART_W = 640, CHART_H = 240, PAD_L = 48, PAD_R = 12, PAD_T = 12, PAD_B = 28;
const LINE_CLASSES = ['k0', 'k1', 'k2', 'k3'];

/* The rating history as SVG: x is time, y the rating; per kind a line through its games' points,
 * starting from 1500 at the first game's start where the history holds all the kind's rated
 * games (`complete`: kinds whose count of rated games the points match). */
export function ratingChart(points, complete = new Set()) {
	const kinds = [...new Set(points.map((p) => p.kind))].sort();
	const lines = kinds.map((kind) => {
		const mine = points.filter((p) => p.kind === kind);
		const start = complete.has(kind) ? [{kind, rating: 1500, ended: mine[0].started, start: true}] : [];
		return {kind, pts: [...start, ...mine]};
	});
	const all = lines.flatMap((l) => l.pts);
	const ys = all.map((p) => p.rating), ts = all.map((p) => p.ended);
	const lo = Math.floor((Math.min(...ys) - 10) / 50) * 50;
	const hi = Math.ceil((Math.max(...ys) + 10) / 50) * 50;
	const t0 = Math.min(...ts), t1 = Math.max(...ts);
	const w = CHART_W - PAD_L - PAD_R, h = CHART_H - PAD_T - PAD_B;
	const X = (t) => PAD_L + (t1 === t0 ? w / 2 : ((t - t0) * w) / (t1 - t0));
	const Y = (r) => PAD_T + h - ((r - lo) * h) / (hi - lo);
	const chart = svg('svg', {class: 'rating-chart', viewBox: `0 0 ${CHART_W} ${CHART_H}`,
	                          role: 'img', 'aria-label': `rating history, ${points.length} rated games`});
	const step = (hi - lo) / 50 > 8 ? 100 : 50;
	for (let r = Math.ceil(lo / step) * step; r <= hi; r += step) {
		chart.append(svg('line', {class: 'grid-line', x1: PAD_L, x2: CHART_W - PAD_R, y1: Y(r), y2: Y(r)}),
		             svg('text', {class: 'axis', x: PAD_L - 6, y: Y(r) + 4, 'text-anchor': 'end'}, String(r)));
	}
	chart.append(svg('text', {class: 'axis', x: PAD_L, y: CHART_H - 8}, dateText(t0)),
	             svg('text', {class: 'axis', x: CHART_W - PAD_R, y: CHART_H - 8, 'text-anchor': 'end'},
	                 dateText(t1)));
	lines.forEach(({kind, pts}, k) => {
		const cls = LINE_CLASSES[k % LINE_CLASSES.length];
		chart.append(svg('polyline', {class: `rating-line ${cls}`, dataset: {kind},
		                              points: pts.map((p) => `${X(p.ended)},${Y(p.rating)}`).join(' ')}));
		for (const p of pts.filter((q) => !q.start))
			chart.append(svg('circle', {class: `rating-point ${cls}`, cx: X(p.ended), cy: Y(p.rating), r: 4,
			                            dataset: {game: p.game}},
			                 svg('title', {}, `${kind} ${ratingText(p.rating)} after game ${p.game}, ${dateText(p.ended)}`)));
	});
	const legend = el('p', {class: 'chart-legend'}, kinds.map((kind, k) =>
		el('span', {}, el('span', {class: `key ${LINE_CLASSES[k % LINE_CLASSES.length]}`, 'aria-hidden': 'true'}), kind)));
	return el('figure', {class: 'chart'}, chart, legend);
}

/* The outcome of game g for the player in seat: "win", "loss", "draw" or the status. */
function outcome(g, seat) {
	if (g.status !== 'finished')
		return g.status;
	if (g.winner === null || g.winner === undefined)
		return 'draw';
	return g.winner === seat ? 'win' : 'loss';
}

/* The games list of a player page: opponent, result as they saw it, and a link to each. */
function gamesTable(app, name, games) {
	const key = name.toLowerCase();
	const rows = games.map((g) => {
		const seat = g.players.findIndex((p) => p.toLowerCase() === key);
		const opp = g.players[1 - seat];
		const res = outcome(g, seat);
		const after = g.ratings && typeof g.ratings[seat] === 'number' ? ratingText(g.ratings[seat]) : '';
		const sc = seatScores({score: g.result}); /* a seat out of the game: "out", not -1 */
		const score = sc ? sc.map((v) => (v < 0 ? 'out' : v)).join('-') : g.result;
		return el('tr', {class: `result-${res}`}, cells(
		        el('a', {href: `#/game/${g.id}`, class: 'game-link'}, `${g.id}`),
		        el('span', {}, el('strong', {}, g.kind), ' ',
		           el('small', {}, optionsText(parseOptions(g.options), app.defaults(g.kind)))),
		        userLink(opp), `${res}${score ? ` ${score}` : ''}${g.reason ? ` (${g.reason})` : ''}`,
		        after, `${g.plies}`, dateText(g.ended)));
	});
	return table('recent games', ['game', 'kind', 'opponent', 'result', 'rating', 'plies', 'ended'],
	             rows, 'No finished games yet.');
}

export class PlayerPage {
	constructor(app, name) {
		this.app = app;
		this.name = name;
		this.hash = `#/user/${name}`;
		this.el = el('section', {class: 'page player-page', 'aria-label': `player ${name}`},
		             el('h1', {}, name), el('p', {class: 'empty'}, 'Loading…'));
		document.title = `${name} – bitarena`;
		this.load();
	}

	async load() {
		const n = encodeURIComponent(this.name);
		let u, history, games;
		try {
			[u, history, games] = await Promise.all([apiJSON(`/api/user/${n}`), ratingHistory(this.name),
			                                         apiList(`/api/games?user=${n}&max=20&moves=0`)]);
		} catch (e) {
			put(this.el, el('h1', {}, this.name),
			    el('p', {class: 'empty', title: e.code || ''}, this.app.errorText(e)));
			return;
		}
		const status = [u.registered ? 'account' : 'guest', u.online ? 'online' : 'offline'].join(', ');
		const playing = u.playing.length ?
		        el('span', {}, ', playing ', u.playing.map((id, i) =>
		                [i ? ', ' : '', el('a', {href: `#/game/${id}`}, `game ${id}`)])) : '';
		const ratings = u.ratings.map((r) => el('tr', {}, cells(
		        el('a', {href: `#/ratings/${encodeURIComponent(r.kind)}`}, r.kind),
		        el('strong', {class: 'rating'}, ratingText(r.rating)), `±${Math.round(r.rd)}`, `${r.games}`)));
		const c = u.counts;
		put(this.el, el('h1', {}, u.name, ' ', el('small', {}, status), playing),
		    el('p', {class: 'counts'}, `${c.games} games (${c.rated} rated): ${c.wins} won, ${c.losses} lost, ${c.draws} drawn`),
		    el('h2', {}, 'Ratings'),
		    table('ratings', ['kind', 'rating', 'RD', 'rated games'], ratings,
		          u.registered ? 'No rated games yet.' : 'Guests are not rated.'),
		    el('h2', {}, 'Rating history'),
		    history.length ? ratingChart(history, new Set(u.ratings.filter((r) =>
		            r.games === history.filter((p) => p.kind === r.kind).length).map((r) => r.kind))) : el('p', {class: 'empty'}, 'No rated games to draw yet.'),
		    el('h2', {}, 'Recent games'), gamesTable(this.app, u.name, games));
	}

	destroy() {}
}

export class LeaderboardPage {
	constructor(app, kind) {
		this.app = app;
		this.kind = kind;
		this.hash = `#/ratings/${kind}`;
		this.el = el('section', {class: 'page leaderboard', 'aria-label': `leaderboard ${kind}`});
		document.title = `${kind} leaderboard – bitarena`;
		this.load();
	}

	nav() {
		const kinds = (this.app.kinds || []).map((k) => k.name);
		if (!kinds.includes(this.kind))
			kinds.push(this.kind);
		return el('nav', {class: 'kinds', 'aria-label': 'game kinds'}, kinds.map((k) =>
			el('a', {href: `#/ratings/${encodeURIComponent(k)}`, class: 'button small-link',
			         'aria-current': k === this.kind ? 'page' : false}, k)));
	}

	async load() {
		put(this.el, el('h1', {}, `Leaderboard: ${this.kind}`), this.nav(), el('p', {class: 'empty'}, 'Loading…'));
		let r;
		try {
			r = await apiJSON(`/api/ratings/${encodeURIComponent(this.kind)}?max=100`);
		} catch (e) {
			this.el.lastChild.replaceWith(el('p', {class: 'empty', title: e.code || ''}, this.app.errorText(e)));
			return;
		}
		const rows = r.ratings.map((x, i) => el('tr', {}, cells(`${i + 1}`, userLink(x.name),
		        el('strong', {class: 'rating'}, ratingText(x.rating)), `±${Math.round(x.rd)}`, `${x.games}`)));
		this.el.lastChild.replaceWith(table(`${this.kind} leaderboard`, ['#', 'player', 'rating', 'RD', 'rated games'],
		                                    rows, 'Nobody has a rated game of this kind yet.'));
	}

	/* The kinds came (the page was opened before the connection): draw the tabs again. */
	ready() {
		this.el.querySelector('nav.kinds')?.replaceWith(this.nav());
	}

	destroy() {}
}
