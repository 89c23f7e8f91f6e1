/*
 * mnk.js - tic-tac-toe and m,n,k boards. The position's `board` holds the rows from the top
 * ("x.o/..."), so row 0 of it is rank n. A cell is clickable when its name ("b2") is in the
 * state's `legal` list; a click sends exactly that move.
 */
import {el, svg} from '../dom.js';
import {Grid, squareName} from './grid.js';

export class MnkBoard {
	constructor() {
		this.grid = null;
		this.el = el('div', {class: 'board-wrap'});
	}

	update(v) {
		const pos = v.state.position || {};
		const cols = pos.m || 3, rows = pos.n || 3;
		if (!this.grid || this.grid.cols !== cols || this.grid.rows !== rows) {
			this.grid = new Grid({cols, rows, size: 70, onActivate: (x, y) => this.click(x, y)});
			this.el.replaceChildren(this.grid.el);
		}
		this.grid.setFlip(v.flip);
		this.view = v;
		const legal = new Set(v.legal || []);
		const board = pos.board || [];
		const s = this.grid.size;
		for (let y = 0; y < rows; y++) {
			for (let x = 0; x < cols; x++) {
				const name = squareName(x, y);
				const c = ((board[rows - 1 - y] || '')[x] || '.').toLowerCase();
				const mark = c === 'x' ? 'X' : c === 'o' ? 'O' : '';
				const g = this.grid.content(x, y, {
					cls: [legal.has(name) && 'legal', pos.last === name && 'last'],
					label: `${name} ${mark || 'empty'}`,
				});
				g.append(svg('rect', {class: 'sq', x: 1, y: 1, width: s - 2, height: s - 2}));
				if (mark === 'X') {
					const a = s * 0.25, b = s * 0.75;
					g.append(svg('path', {class: 'mark-x', d: `M${a} ${a}L${b} ${b}M${b} ${a}L${a} ${b}`}));
				} else if (mark === 'O') {
					g.append(svg('circle', {class: 'mark-o', cx: s / 2, cy: s / 2, r: s * 0.27}));
				}
			}
		}
	}

	click(x, y) {
		const name = squareName(x, y);
		if (this.view && (this.view.legal || []).includes(name))
			this.view.send(name);
	}
}
