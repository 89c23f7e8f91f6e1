/*
 * xmas.js - the Xmas Rush board: 7x7 tiles drawn from their openings (the tile text gives UP,
 * RIGHT, DOWN, LEFT as 0/1), the items on them (coloured by owner, the quests ringed), both
 * players, both hand tiles, and the quest cards.
 *
 * Xmas Rush turns are simultaneous, so the state carries no `legal` list; what a seat may do is
 * the action syntax itself: on a PUSH turn any row or column in any direction (arrows around
 * the board send "PUSH <id> <DIR>"); on a MOVE turn the position's `reachable` cells for the
 * viewer are marked, and a click on one sends the path to it ("MOVE UP RIGHT ...", found over
 * the tiles' openings, at most 20 steps), or PASS on one's own cell. The server judges every
 * action.
 */
import {el, svg} from '../dom.js';
import {Grid} from './grid.js';

const SIDES = [[0, -1], [1, 0], [0, 1], [-1, 0]]; /* UP, RIGHT, DOWN, LEFT */
const SIDE_NAMES = ['UP', 'RIGHT', 'DOWN', 'LEFT'];
const MAX_STEPS = 20;
const N = 7;
const SEAT_CLASS = ['p0', 'p1'];

function opens(tile, d) {
	return typeof tile === 'string' && tile[d] === '1';
}

/* The shortest path of directions from (fx, fy) to (tx, ty) along open tiles, or null. */
export function pathTo(board, fx, fy, tx, ty) {
	const prev = new Map([[`${fx},${fy}`, null]]);
	const queue = [[fx, fy]];
	while (queue.length) {
		const [x, y] = queue.shift();
		if (x === tx && y === ty) {
			const dirs = [];
			for (let k = `${x},${y}`; prev.get(k); k = prev.get(k).from)
				dirs.unshift(prev.get(k).dir);
			return dirs;
		}
		for (let d = 0; d < 4; d++) {
			const nx = x + SIDES[d][0], ny = y + SIDES[d][1];
			const k = `${nx},${ny}`;
			if (nx < 0 || ny < 0 || nx >= N || ny >= N || prev.has(k))
				continue;
			if (!opens(board[y][x], d) || !opens(board[ny][nx], (d + 2) % 4))
				continue;
			prev.set(k, {from: `${x},${y}`, dir: SIDE_NAMES[d]});
			queue.push([nx, ny]);
		}
	}
	return null;
}

/* One tile in a group: background, the paths from the centre to each open side. */
function drawTile(g, tile, s) {
	g.append(svg('rect', {class: 'tile', x: 2, y: 2, width: s - 4, height: s - 4, rx: 4}));
	const c = s / 2;
	for (let d = 0; d < 4; d++)
		if (opens(tile, d))
			g.append(svg('line', {class: 'path', x1: c, y1: c, x2: c + SIDES[d][0] * (c - 2),
			                      y2: c + SIDES[d][1] * (c - 2)}));
	g.append(svg('circle', {class: 'path-hub', cx: c, cy: c, r: s * 0.11}));
}

function drawItem(g, item, s, quest) {
	const cls = ['item', SEAT_CLASS[item.owner], quest && 'quest'].filter(Boolean).join(' ');
	g.append(svg('g', {class: cls, transform: `translate(${s * 0.74} ${s * 0.26})`},
	             svg('title', {}, `${item.name} (player ${item.owner + 1}'s)`),
	             svg('circle', {r: s * 0.17}),
	             svg('text', {y: 4, 'text-anchor': 'middle'}, item.name.slice(0, 2))));
}

function drawPawn(g, seat, s, name) {
	g.append(svg('g', {class: `pawn ${SEAT_CLASS[seat]}`,
	                   transform: `translate(${seat ? s * 0.7 : s * 0.3} ${s * 0.72})`},
	             svg('title', {}, name),
	             svg('circle', {r: s * 0.14}),
	             svg('text', {y: 4, 'text-anchor': 'middle'}, String(seat + 1))));
}

export class XmasBoard {
	constructor() {
		this.grid = new Grid({cols: N, rows: N, size: 60, margin: 4, pad: 30, topDown: true,
		                      labels: false, onActivate: (x, y) => this.click(x, y)});
		this.arrows = svg('g', {class: 'arrows'});
		this.grid.el.append(this.arrows);
		this.pass = el('button', {type: 'button', class: 'pass', on: {click: () => this.act('PASS')}},
		               'Pass (stay)');
		this.hint = el('p', {class: 'hint', 'aria-live': 'polite'});
		this.info = el('div', {class: 'xmas-info'});
		this.el = el('div', {class: 'board-wrap xmas'}, el('div', {class: 'board-box'}, this.grid.el),
		             el('div', {class: 'xmas-controls'}, this.pass), this.hint, this.info);
	}

	/* May the viewer act now? Only a player whose seat is to move and who has not acted. */
	canAct() {
		const v = this.view;
		return v && v.online && v.seat !== null && v.seat !== undefined && !v.over && !v.acted &&
		       (v.state.to_move || []).includes(v.seat);
	}

	act(text) {
		if (this.canAct())
			this.view.send(text);
	}

	update(v) {
		this.view = v;
		const pos = v.state.position || {};
		const board = pos.board || [];
		const s = this.grid.size;
		const players = pos.players || [];
		const names = v.state.players || [];
		const moveTurn = pos.turn_type === 'MOVE' && this.canAct();
		const reach = new Set(moveTurn ? (pos.reachable || []).map(([x, y]) => `${x},${y}`) : []);
		const quests = (seat) => new Set(((players[seat] || {}).quests) || []);
		const myQuests = v.seat === 0 || v.seat === 1 ? [v.seat] : [0, 1];
		const items = new Map();
		for (const it of pos.items || [])
			if (it.hand === undefined)
				items.set(`${it.x},${it.y}`, it);
		for (let y = 0; y < N; y++) {
			for (let x = 0; x < N; x++) {
				const tile = (board[y] || [])[x];
				const key = `${x},${y}`;
				const here = players.map((p, i) => (p.x === x && p.y === y ? i : -1)).filter((i) => i >= 0);
				const it = items.get(key);
				const g = this.grid.content(x, y, {
					cls: [reach.has(key) && 'legal'],
					label: `${x},${y}${it ? ` ${it.name} of player ${it.owner + 1}` : ''}${here.map((i) => ` player ${i + 1}`).join('')}`,
				});
				drawTile(g, tile, s);
				if (it)
					drawItem(g, it, s, myQuests.includes(it.owner) && quests(it.owner).has(it.name));
				for (const i of here)
					drawPawn(g, i, s, names[i] || `player ${i + 1}`);
			}
		}
		this.drawArrows(pos.turn_type === 'PUSH' && this.canAct());
		this.pass.hidden = !moveTurn;
		this.hint.textContent = this.hintText(pos);
		this.drawInfo(pos, names, myQuests);
	}

	hintText(pos) {
		const v = this.view;
		if (v.acted)
			return `Your action is in (${v.acted}); waiting for the other player.`;
		if (!this.canAct())
			return '';
		return pos.turn_type === 'PUSH' ? 'Push: click an arrow beside the board to push that row or column with your hand tile.'
		                                : 'Move: click a marked tile to walk there (your own tile passes).';
	}

	drawArrows(on) {
		this.arrows.replaceChildren();
		if (!on)
			return;
		const s = this.grid.size, m = this.grid.margin, p = this.grid.pad;
		const far = m + p + N * s;
		for (let i = 0; i < N; i++) {
			const mid = m + p + i * s + s / 2;
			this.arrow(`PUSH ${i} RIGHT`, m + p / 2, mid, 0);
			this.arrow(`PUSH ${i} LEFT`, far + p / 2, mid, 180);
			this.arrow(`PUSH ${i} DOWN`, mid, m + p / 2, 90);
			this.arrow(`PUSH ${i} UP`, mid, far + p / 2, 270);
		}
	}

	arrow(action, cx, cy, angle) {
		const g = svg('g', {class: 'arrow', tabindex: 0, role: 'button', 'aria-label': action,
		                    transform: `translate(${cx} ${cy}) rotate(${angle})`, dataset: {action}},
		              svg('title', {}, action),
		              svg('rect', {class: 'hit', x: -14, y: -14, width: 28, height: 28}),
		              svg('path', {d: 'M-9 -10 L10 0 L-9 10 Z'}));
		g.addEventListener('click', () => this.act(action));
		g.addEventListener('keydown', (ev) => {
			if (ev.key === 'Enter' || ev.key === ' ') {
				this.act(action);
				ev.preventDefault();
			}
		});
		this.arrows.append(g);
	}

	click(x, y) {
		const v = this.view;
		const pos = v.state.position || {};
		if (pos.turn_type !== 'MOVE' || !this.canAct())
			return;
		const me = (pos.players || [])[v.seat];
		if (!me || !(pos.reachable || []).some(([rx, ry]) => rx === x && ry === y))
			return;
		if (me.x === x && me.y === y) {
			this.act('PASS');
			return;
		}
		const path = pathTo(pos.board, me.x, me.y, x, y);
		if (path && path.length)
			this.act(`MOVE ${path.slice(0, MAX_STEPS).join(' ')}`);
	}

	drawInfo(pos, names, myQuests) {
		const players = pos.players || [];
		const s = 48;
		const sides = players.map((p, i) => {
			const hand = svg('g', {});
			drawTile(hand, p.hand, s);
			const it = (pos.items || []).find((t) => t.hand === i);
			if (it)
				drawItem(hand, it, s, false);
			const showQuests = myQuests.includes(i);
			return el('div', {class: `xmas-side ${SEAT_CLASS[i]}`},
			          el('div', {class: 'who'}, el('span', {class: `swatch ${SEAT_CLASS[i]}`, 'aria-hidden': 'true'}),
			             el('strong', {}, names[i] || `player ${i + 1}`),
			             ` — ${p.score} done, ${p.quests_left} to do`),
			          el('div', {class: 'hand'}, 'hand tile: ',
			             svg('svg', {class: 'hand-tile', viewBox: `0 0 ${s} ${s}`, width: s, height: s,
			                         role: 'img', 'aria-label': `hand tile ${p.hand}`}, hand)),
			          showQuests ?
			                  el('ul', {class: 'quests', 'aria-label': 'quests'},
			                     (p.quests || []).map((q) => el('li', {class: 'quest-card'}, q))) :
			                  el('p', {class: 'quests-hidden'}, `${(p.quests || []).length} quests showing`));
		});
		const turn = el('p', {class: 'turn'}, `Turn ${pos.turn ?? '?'} (${pos.turn_type || '?'}), ${pos.turns_left ?? '?'} turns left`);
		this.info.replaceChildren(turn, ...sides);
	}
}
