/*
 * xmas.js - the Xmas Rush board: 7x7 tiles drawn from their openings (the tile text gives UP,
 * RIGHT, DOWN, LEFT as 0/1), the items on them (coloured by owner, the quests ringed), both
 * players, both hand tiles, and the quest cards.
 *
 * Play is driven by the state's `legal` list, which the server gives a seat until its action
 * for the turn is in: nothing here knows the rules. On a PUSH turn an arrow beside the board
 * stands for each listed push ("PUSH <id> <DIR>"); on a MOVE turn the tile each listed MOVE ends
 * on is marked (found by following the action's own steps from the pawn) and a click sends that
 * action, PASS on one's own tile or with the button.
 *
 * Players are named as the protocol names the seats (`games`: player0, player1; the pawns
 * carry the seat's number, 0 or 1, as the text view's do); a seat out of the game (the
 * referee's score of -1: a missed turn, an invalid action) is said so, never "-1". The board
 * has no sides, so it never turns (fixed).
 */
import {el, svg} from '../dom.js';
import {Grid} from './grid.js';

const SIDES = [[0, -1], [1, 0], [0, 1], [-1, 0]]; /* UP, RIGHT, DOWN, LEFT */
const STEP = {UP: [0, -1], RIGHT: [1, 0], DOWN: [0, 1], LEFT: [-1, 0]};
const N = 7;
const SEAT_CLASS = ['p0', 'p1'];
const SEATS = ['player0', 'player1']; /* until `games` has told the page */
const FAULTS = {timeout: 'missed a turn', invalid_action: 'an invalid action'};

function opens(tile, d) {
	return typeof tile === 'string' && tile[d] === '1';
}

/* "x,y" -> the action that takes a pawn at (x, y) there: PASS, or a MOVE by its steps. */
export function moveTargets(legal, x, y) {
	const out = new Map();
	for (const a of legal || []) {
		const w = a.split(' ');
		if (w[0] === 'PASS') {
			out.set(`${x},${y}`, a);
		} else if (w[0] === 'MOVE') {
			let tx = x, ty = y;
			for (const d of w.slice(1)) {
				tx += (STEP[d] || [0, 0])[0];
				ty += (STEP[d] || [0, 0])[1];
			}
			if (!out.has(`${tx},${ty}`))
				out.set(`${tx},${ty}`, a);
		}
	}
	return out;
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

/* Each item's symbol, drawn in a 16-unit box around 0,0: [path, filled]. Names the server
 * has and this table has not show their first three letters. */
const GLYPHS = {
	ARROW: ['M-6 6L5-5M0-6H6V0', false],
	BOOK: ['M0-4V6M0-4C-2-6-5-6-7-5V5C-5 4-2 4 0 6C2 4 5 4 7 5V-5C5-6 2-6 0-4Z', false],
	CANE: ['M-2 7V-2C-2-7 5-7 5-2', false],
	CANDY: ['M-3-3H3V3H-3ZM-3 0L-7-4V4ZM3 0L7-4V4Z', true],
	DIAMOND: ['M0-7L6 0 0 7-6 0Z', true],
	FISH: ['M-7 0C-3-5 3-5 4 0 3 5-3 5-7 0ZM4 0L8-4V4Z', true],
	MASK: ['M-7-4C-4-6 4-6 7-4 7 2 3 4 0 1-3 4-7 2-7-4ZM-4-2A1.5 1.5 0 1 0-4 0.1M4-2A1.5 1.5 0 1 0 4 0.1', true],
	KEY: ['M-7 0A3 3 0 1 0-1 0 3 3 0 1 0-7 0M-1 0H7M4 0V3M6 0V3', false],
	POTION: ['M-2-7H2V-3L6 6H-6L-2-3Z', true],
	SCROLL: ['M-5-6H5V6H-5ZM-2-3H3M-2 0H3M-2 3H2', false],
	SHIELD: ['M0-7L6-5V0C6 4 3 6 0 7-3 6-6 4-6 0V-5Z', true],
	SWORD: ['M-6 6L5-5M-5 0L0 5M-7 7L-5 5', false],
};

/* An item's disc of radius r with its symbol. */
function itemMark(name, r) {
	const glyph = GLYPHS[name];
	return [svg('circle', {r}),
	        glyph ? svg('path', {class: ['glyph', glyph[1] ? 'filled' : 'stroked'], d: glyph[0],
	                             transform: `scale(${r / 9})`}) :
	                svg('text', {y: 4, 'text-anchor': 'middle'}, name.slice(0, 3))];
}

function drawItem(g, item, s, quest, seats) {
	const cls = ['item', SEAT_CLASS[item.owner], quest && 'quest'].filter(Boolean).join(' ');
	g.append(svg('g', {class: cls, dataset: {item: item.name}, transform: `translate(${s * 0.74} ${s * 0.26})`},
	             svg('title', {}, `${item.name.toLowerCase()} (${seats[item.owner]}'s${quest ? ', a quest' : ''})`),
	             itemMark(item.name, s * 0.17)));
}

function drawPawn(g, seat, s, name) {
	g.append(svg('g', {class: `pawn ${SEAT_CLASS[seat]}`, dataset: {seat},
	                   transform: `translate(${seat ? s * 0.7 : s * 0.3} ${s * 0.72})`},
	             svg('title', {}, name),
	             svg('circle', {r: s * 0.14}),
	             svg('text', {y: 4, 'text-anchor': 'middle'}, String(seat))));
}

/* A seat's standing: "2 quests done, 3 to do" (and turns missed in a row, where a game for
 * people lets a missed turn pass), or out of the game and why. */
export function standingText(p, reason) {
	if (p.score < 0)
		return `out of the game${FAULTS[reason] ? ` (${FAULTS[reason]})` : ''}`;
	const missed = p.missed > 0 ? `; missed ${p.missed} turn${p.missed === 1 ? '' : 's'} (3 in a row: out)` : '';
	return `${p.score} quest${p.score === 1 ? '' : 's'} done, ${p.quests_left} to do${missed}`;
}

export class XmasBoard {
	static fixed = true; /* no sides: the board never turns */

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

	/* May the viewer act now? Only while the server lists actions for its seat. */
	canAct() {
		const v = this.view;
		return Boolean(v && v.online && !v.over && !v.acted && v.legal && v.legal.length);
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
		const seats = v.seats || SEATS;
		this.seats = seats;
		const moveTurn = pos.turn_type === 'MOVE' && this.canAct();
		const me = players[v.seat];
		this.targets = moveTurn && me ? moveTargets(v.legal, me.x, me.y) : new Map();
		const reach = this.targets;
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
					label: `${x},${y}${it ? ` ${it.name} of ${seats[it.owner]}` : ''}${here.map((i) => ` ${seats[i]}`).join('')}`,
				});
				drawTile(g, tile, s);
				if (it)
					drawItem(g, it, s, myQuests.includes(it.owner) && quests(it.owner).has(it.name), seats);
				for (const i of here)
					drawPawn(g, i, s, `${names[i] || seats[i]} (${seats[i]})`);
			}
		}
		this.drawArrows(pos.turn_type === 'PUSH' && this.canAct() ? v.legal : []);
		this.pass.hidden = !moveTurn || !v.legal.includes('PASS');
		this.hint.textContent = this.hintText(pos);
		this.drawInfo(pos, names, myQuests);
	}

	hintText(pos) {
		const v = this.view;
		if (v.acted)
			return `Your action is in${typeof v.acted === 'string' ? ` (${v.acted})` : ''}; ` +
			       'waiting for the other player.';
		if (!this.canAct())
			return '';
		return pos.turn_type === 'PUSH' ? 'Push: click an arrow beside the board to push that row or column with your hand tile.'
		                                : 'Move: click a marked tile to walk there (your own tile passes).';
	}

	/* An arrow beside the board for each listed push, on the side the tiles come in from. */
	drawArrows(legal) {
		this.arrows.replaceChildren();
		const s = this.grid.size, m = this.grid.margin, p = this.grid.pad;
		const near = m + p / 2, far = m + p + N * s + p / 2;
		for (const a of legal) {
			const w = /^PUSH ([0-6]) (UP|RIGHT|DOWN|LEFT)$/.exec(a);
			if (!w)
				continue;
			const mid = m + p + Number(w[1]) * s + s / 2;
			const [cx, cy, angle] = {RIGHT: [near, mid, 0], LEFT: [far, mid, 180],
			                         DOWN: [mid, near, 90], UP: [mid, far, 270]}[w[2]];
			this.arrow(a, cx, cy, angle);
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
		const a = this.targets && this.targets.get(`${x},${y}`);
		if (a)
			this.act(a);
	}

	drawInfo(pos, names, myQuests) {
		const players = pos.players || [];
		const s = 48;
		const sides = players.map((p, i) => {
			const hand = svg('g', {});
			drawTile(hand, p.hand, s);
			const it = (pos.items || []).find((t) => t.hand === i);
			if (it)
				drawItem(hand, it, s, false, this.seats);
			const showQuests = myQuests.includes(i);
			return el('div', {class: `xmas-side ${SEAT_CLASS[i]}`},
			          el('div', {class: 'who'}, el('span', {class: `swatch ${SEAT_CLASS[i]}`, 'aria-hidden': 'true'}),
			             el('strong', {}, names[i] || this.seats[i]), ` (${this.seats[i]})`,
			             el('span', {class: ['standing', p.score < 0 && 'out']}, ` — ${standingText(p, pos.reason)}`)),
			          el('div', {class: 'hand'}, 'hand tile: ',
			             svg('svg', {class: 'hand-tile', viewBox: `0 0 ${s} ${s}`, width: s, height: s,
			                         role: 'img', 'aria-label': `hand tile ${p.hand}`}, hand)),
			          showQuests ?
			                  el('ul', {class: 'quests', 'aria-label': 'quests'},
			                     (p.quests || []).map((q) => el('li', {class: 'quest-card', dataset: {item: q}},
			                             svg('svg', {class: `item ${SEAT_CLASS[i]} quest-icon`, viewBox: '-10 -10 20 20',
			                                         'aria-hidden': 'true'}, itemMark(q, 9.5)), ` ${q.toLowerCase()}`))) :
			                  el('p', {class: 'quests-hidden'}, `${(p.quests || []).length} quests showing`));
		});
		const turn = el('p', {class: 'turn'}, pos.reason ? `Over at turn ${pos.turn ?? '?'}.` :
		                `Turn ${pos.turn ?? '?'} (${pos.turn_type || '?'}), ${pos.turns_left ?? '?'} turns left`);
		this.info.replaceChildren(turn, ...sides);
	}
}
