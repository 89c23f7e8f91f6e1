/*
 * tak.js - the Tak board. Each square shows its top piece (flat, wall, capstone) in its colour,
 * and a column of the whole stack on its left edge, bottom piece lowest, so the height and the
 * order of colours can be read; a number gives the height of stacks taller than one. Beside the
 * board: reserves, flat counts with komi, and the winning road drawn through the squares the
 * server lists for it.
 *
 * Play is driven by the state's `legal` list (PTN, as the server writes it): nothing here knows
 * the rules. A click on an empty square places the chosen piece (flat, wall or capstone; keys
 * F, S, C) when that placement is legal. A click on a stack that has legal slides picks it up
 * (clicking it again carries fewer); then each click on the next square in a direction drops
 * one stone there, a further click on the same square one more. Only steps that begin some
 * legal slide are taken; when the stones carried are all dropped the slide is sent. Escape puts
 * the stack down again.
 */
import {el, svg} from '../dom.js';
import {Grid, squareName} from './grid.js';

const DIRS = {'+': [0, 1], '-': [0, -1], '>': [1, 0], '<': [-1, 0]};
const COLOUR = ['white', 'black'];

/* {kind: 'place', type: 'F'|'S'|'C', x, y} or {kind: 'slide', x, y, carry, dir, drops}. */
export function parsePtn(text) {
	let m = /^([FSC]?)([a-h])([1-8])$/.exec(text);
	if (m)
		return {kind: 'place', type: m[1] || 'F', x: m[2].charCodeAt(0) - 97, y: Number(m[3]) - 1};
	m = /^([1-9]?)([a-h])([1-8])([+\-<>])([1-9]*)$/.exec(text);
	if (!m)
		return null;
	const carry = m[1] ? Number(m[1]) : 1;
	const drops = m[5] ? [...m[5]].map(Number) : [carry];
	return {kind: 'slide', x: m[2].charCodeAt(0) - 97, y: Number(m[3]) - 1, carry, dir: m[4], drops};
}

/* The stack text of a square: colours bottom first ('1' white, '2' black), then S or C on top. */
function stackOf(text) {
	const t = text || '';
	const top = /[SC]$/.test(t) ? t[t.length - 1] : 'F';
	const colours = [...t.replace(/[SC]$/, '')].map((c) => (c === '2' ? 1 : 0));
	return {colours, top};
}

export class TakBoard {
	constructor() {
		this.grid = null;
		this.type = 'F';
		this.slide = null;
		this.hint = el('p', {class: 'hint', 'aria-live': 'polite'});
		this.typeButtons = {};
		const buttons = [['F', 'Flat'], ['S', 'Wall'], ['C', 'Capstone']].map(([t, name]) => {
			const b = el('button', {type: 'button', class: 'piece-type', 'aria-pressed': 'false',
			                        dataset: {type: t}, on: {click: () => this.choose(t)}},
			             `${name} (${t})`);
			this.typeButtons[t] = b;
			return b;
		});
		this.controls = el('div', {class: 'tak-controls', role: 'group',
		                           'aria-label': 'piece to place'}, buttons);
		this.info = el('div', {class: 'tak-info'});
		this.boardBox = el('div', {class: 'board-box'});
		this.el = el('div', {class: 'board-wrap tak'}, this.boardBox, this.controls, this.hint,
		             this.info);
		this.el.addEventListener('keydown', (ev) => this.key(ev));
	}

	key(ev) {
		if (ev.target.tagName === 'INPUT' || ev.ctrlKey || ev.metaKey || ev.altKey)
			return;
		const k = ev.key.toUpperCase();
		if (k === 'F' || k === 'S' || k === 'C' || k === 'W') {
			this.choose(k === 'W' ? 'S' : k);
			ev.preventDefault();
		} else if (ev.key === 'Escape' && this.slide) {
			this.slide = null;
			this.draw();
			ev.preventDefault();
		}
	}

	choose(t) {
		if (!this.typeButtons[t].disabled)
			this.type = t;
		this.draw();
	}

	update(v) {
		const pos = v.state.position || {};
		const n = pos.size || 5;
		if (!this.grid || this.grid.cols !== n) {
			this.grid = new Grid({cols: n, rows: n, size: 64, onActivate: (x, y) => this.click(x, y)});
			this.boardBox.replaceChildren(this.grid.el);
		}
		this.grid.setFlip(v.flip);
		if (!this.view || this.view.state.seq !== v.state.seq || this.view.state.game !== v.state.game)
			this.slide = null;
		this.view = v;
		this.moves = (v.legal || []).map((t) => ({text: t, ...parsePtn(t)})).filter((m) => m.kind);
		this.draw();
	}

	placements(x, y) {
		return this.moves.filter((m) => m.kind === 'place' && m.x === x && m.y === y);
	}

	slidesFrom(x, y) {
		return this.moves.filter((m) => m.kind === 'slide' && m.x === x && m.y === y);
	}

	/* Legal slides that the slide in hand (carry, dir, drops so far) can still become. */
	candidates(s = this.slide) {
		return this.slidesFrom(s.x, s.y).filter((m) => {
			if (m.carry !== s.carry || (s.dir && m.dir !== s.dir))
				return false;
			const L = s.drops.length;
			if (m.drops.length < L)
				return false;
			for (let i = 0; i < L - 1; i++)
				if (m.drops[i] !== s.drops[i])
					return false;
			return L === 0 || m.drops[L - 1] >= s.drops[L - 1];
		});
	}

	/* The slide in hand after a click on (x, y), or null when that click starts no legal one. */
	step(x, y) {
		const s = this.slide;
		const L = s.drops.length;
		const at = (k, dir) => [s.x + DIRS[dir][0] * k, s.y + DIRS[dir][1] * k];
		const tries = [];
		if (L > 0) {
			const [lx, ly] = at(L, s.dir);
			if (lx === x && ly === y)
				tries.push({...s, drops: [...s.drops.slice(0, -1), s.drops[L - 1] + 1]});
			const [nx, ny] = at(L + 1, s.dir);
			if (nx === x && ny === y)
				tries.push({...s, drops: [...s.drops, 1]});
		} else {
			for (const dir of Object.keys(DIRS)) {
				const [nx, ny] = at(1, dir);
				if (nx === x && ny === y)
					tries.push({...s, dir, drops: [1]});
			}
		}
		return tries.find((t) => this.candidates(t).length > 0) || null;
	}

	click(x, y) {
		const v = this.view;
		if (!v || !v.legal)
			return;
		if (this.slide) {
			const s = this.slide;
			if (x === s.x && y === s.y && s.drops.length === 0) {
				const fewer = this.slidesFrom(x, y).map((m) => m.carry).filter((c) => c < s.carry);
				this.slide = fewer.length ? {...s, carry: Math.max(...fewer)} : null;
				this.draw();
				return;
			}
			const next = this.step(x, y);
			if (next) {
				const sum = next.drops.reduce((a, b) => a + b, 0);
				const done = this.candidates(next).find((m) => m.drops.length === next.drops.length &&
				                                              m.drops.every((d, i) => d === next.drops[i]));
				if (sum === next.carry && done) {
					this.slide = null;
					this.draw();
					v.send(done.text);
					return;
				}
				this.slide = next;
				this.draw();
				return;
			}
			this.slide = null;
		}
		const place = this.placements(x, y);
		const chosen = place.find((m) => m.type === this.type);
		if (chosen) {
			this.type = 'F'; /* walls and capstones are chosen for one placement */
			v.send(chosen.text);
			return;
		}
		const slides = this.slidesFrom(x, y);
		if (slides.length) {
			this.slide = {x, y, carry: Math.max(...slides.map((m) => m.carry)), dir: null, drops: []};
		} else if (place.length) {
			this.hint.textContent = `A ${{F: 'flat', S: 'wall', C: 'capstone'}[this.type]} cannot be placed there now.`;
			return;
		}
		this.draw();
	}

	/* Squares a click would act on now: placements of the chosen type, stacks to pick up, or the
	 * next steps of the slide in hand. */
	targets() {
		const t = new Set();
		if (!this.view || !this.view.legal)
			return t;
		if (this.slide) {
			const n = this.grid.cols;
			for (let y = 0; y < n; y++)
				for (let x = 0; x < n; x++)
					if (this.step(x, y))
						t.add(`${x},${y}`);
			if (this.slide.drops.length === 0)
				t.add(`${this.slide.x},${this.slide.y}`);
			return t;
		}
		for (const m of this.moves)
			if (m.kind === 'slide' || m.type === this.type)
				t.add(`${m.x},${m.y}`);
		return t;
	}

	draw() {
		const v = this.view;
		if (!v || !this.grid)
			return;
		const pos = v.state.position || {};
		const n = pos.size || 5, s = this.grid.size;
		const board = pos.board || [];
		const types = new Set(this.moves.filter((m) => m.kind === 'place').map((m) => m.type));
		for (const [t, b] of Object.entries(this.typeButtons)) {
			b.disabled = Boolean(v.legal) && !types.has(t);
			b.setAttribute('aria-pressed', String(this.type === t));
		}
		if (v.legal && types.size && !types.has(this.type))
			this.type = 'F';
		this.controls.hidden = !v.legal;
		const targets = this.targets();
		const last = lastSquares(v.state.last_move);
		const road = this.road(pos);
		const dropped = new Map();
		if (this.slide && this.slide.dir)
			this.slide.drops.forEach((d, i) => {
				const [dx, dy] = DIRS[this.slide.dir];
				dropped.set(`${this.slide.x + dx * (i + 1)},${this.slide.y + dy * (i + 1)}`, d);
			});
		for (let y = 0; y < n; y++) {
			for (let x = 0; x < n; x++) {
				const key = `${x},${y}`;
				const st = stackOf((board[n - 1 - y] || [])[x]);
				const picked = this.slide && this.slide.x === x && this.slide.y === y;
				const g = this.grid.content(x, y, {
					cls: [targets.has(key) && 'legal', last.has(key) && 'last', picked && 'picked',
					      road.has(key) && 'road', (x + y) % 2 ? 'light' : 'dark'],
					label: describe(squareName(x, y), st),
				});
				g.append(svg('rect', {class: 'sq', x: 1, y: 1, width: s - 2, height: s - 2}));
				drawStack(g, st, s);
				if (dropped.has(key))
					g.append(svg('text', {class: 'drop', x: s - 6, y: s - 6, 'text-anchor': 'end'},
					             `+${dropped.get(key)}`));
			}
		}
		this.drawRoad(road);
		this.hint.textContent = this.hintText();
		this.drawInfo(pos);
	}

	/* The winning road, square by square as the server gives it (position.road). */
	road(pos) {
		const squares = (Array.isArray(pos.road) ? pos.road : [])
		        .map((q) => [q.charCodeAt(0) - 97, Number(q.slice(1)) - 1]);
		return new Map(squares.map(([x, y]) => [`${x},${y}`, [x, y]]));
	}

	drawRoad(road) {
		this.grid.over.replaceChildren();
		if (road.size < 2)
			return;
		const h = this.grid.size / 2;
		const pts = [...road.values()].map(([x, y]) => this.grid.px(x, y).map((p) => p + h).join(','));
		this.grid.over.append(svg('polyline', {class: 'road-line', points: pts.join(' ')}));
	}

	hintText() {
		const v = this.view;
		if (this.slide) {
			const s = this.slide;
			const left = s.carry - s.drops.reduce((a, b) => a + b, 0);
			return s.drops.length === 0 ?
			        `Carrying ${s.carry} from ${squareName(s.x, s.y)}: click a neighbouring square to drop, this square again to carry fewer, Escape to cancel.` :
			        `${left} more to drop: click the last square again or the next one.`;
		}
		if (!v.legal)
			return '';
		return 'Click an empty square to place, or a stack of yours to move it.';
	}

	drawInfo(pos) {
		const players = this.view.state.players || [];
		const res = pos.reserves || {}, flats = pos.flats || {};
		const komi = (pos.komi || 0) / 2;
		const rows = COLOUR.map((c, i) => el('div', {class: `tak-side side-${c}`},
		        el('span', {class: `swatch ${c}`, 'aria-hidden': 'true'}),
		        el('strong', {}, players[i] || c), ` (${c}): `,
		        `${(res[c] || {}).stones ?? '?'} stones, ${(res[c] || {}).caps ?? '?'} cap${(res[c] || {}).caps === 1 ? '' : 's'} in reserve; `,
		        `flats ${flats[c] ?? 0}${i === 1 && komi ? ` + komi ${komi}` : ''}`));
		this.info.replaceChildren(...rows);
	}
}

function describe(name, st) {
	if (!st.colours.length)
		return `${name} empty`;
	const top = COLOUR[st.colours[st.colours.length - 1]];
	const kind = {F: 'flat', S: 'wall', C: 'capstone'}[st.top];
	return `${name} ${top} ${kind}${st.colours.length > 1 ? `, stack of ${st.colours.length}` : ''}`;
}

/* The top piece in the middle, the stack as a column of slabs on the left, bottom lowest. */
function drawStack(g, st, s) {
	const h = st.colours.length;
	if (!h)
		return;
	const colour = COLOUR[st.colours[h - 1]];
	const c = s / 2 + 4;
	if (st.top === 'C')
		g.append(svg('circle', {class: `piece cap ${colour}`, cx: c, cy: s / 2, r: s * 0.22}));
	else if (st.top === 'S')
		g.append(svg('rect', {class: `piece wall ${colour}`, x: c - s * 0.09, y: s * 0.2,
		                      width: s * 0.18, height: s * 0.6, rx: 2,
		                      transform: `rotate(-35 ${c} ${s / 2})`}));
	else
		g.append(svg('rect', {class: `piece flat ${colour}`, x: c - s * 0.25, y: s / 2 - s * 0.25,
		                      width: s * 0.5, height: s * 0.5, rx: 4}));
	if (h > 1) {
		const slab = Math.min(8, (s - 10) / h);
		for (let i = 0; i < h; i++)
			g.append(svg('rect', {class: `slab ${COLOUR[st.colours[i]]}`, x: 3,
			                      y: s - 5 - (i + 1) * slab, width: 11, height: slab}));
		g.append(svg('text', {class: 'height', x: s - 5, y: 13, 'text-anchor': 'end'}, String(h)));
	}
}

/* The squares a move touched: a placement's square, a slide's origin and every drop. */
function lastSquares(text) {
	const out = new Set();
	const m = typeof text === 'string' ? parsePtn(text) : null;
	if (!m)
		return out;
	out.add(`${m.x},${m.y}`);
	if (m.kind === 'slide')
		m.drops.forEach((_, i) => out.add(`${m.x + DIRS[m.dir][0] * (i + 1)},${m.y + DIRS[m.dir][1] * (i + 1)}`));
	return out;
}
