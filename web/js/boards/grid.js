/*
 * grid.js - a board of square cells drawn as one SVG, shared by the m,n,k, Tak and Xmas Rush
 * views. Each cell is a focusable <g> (tabindex, role=button, an aria-label the game sets) that
 * stays the same element across redraws, so keyboard focus survives a new state: Tab reaches
 * the board, the arrow keys move between cells, Enter or Space acts like a click.
 *
 * Cells are addressed by (x, y) with x from the left; y = 0 is the bottom row for chess-like
 * boards (a1 in the lower left) or the top row when topDown is set (Xmas Rush's coordinates).
 * The caller fills cells through content(x, y) (a cleared group, 0..size in both axes) and
 * draws anything across cells in the `over` layer, in board pixels (see px()). setFlip(true)
 * turns the board around (the last row and column nearest the viewer); the arrow keys then
 * move as they look.
 */
import {clear, svg} from '../dom.js';

export class Grid {
	constructor({cols, rows, size = 60, margin = 22, pad = 0, topDown = false, labels = true,
	             label, onActivate}) {
		this.cols = cols;
		this.rows = rows;
		this.size = size;
		this.margin = margin;
		this.pad = pad; /* extra room around the board (Xmas Rush's push arrows) */
		this.topDown = topDown;
		this.onActivate = onActivate;
		this.focus = {x: 0, y: 0};
		this.flipped = false;
		this.labelFn = label;
		this.labels = labels;
		const w = cols * size + 2 * (margin + pad), h = rows * size + 2 * (margin + pad);
		this.el = svg('svg', {class: 'board', viewBox: `0 0 ${w} ${h}`, role: 'grid',
		                      'aria-label': 'board'});
		this.under = svg('g', {class: 'under'});
		this.cellLayer = svg('g', {class: 'cells'});
		this.over = svg('g', {class: 'over'});
		this.el.append(this.under, this.cellLayer, this.over);
		this.cells = [];
		for (let y = 0; y < rows; y++) {
			for (let x = 0; x < cols; x++) {
				const [px, py] = this.px(x, y);
				const g = svg('g', {class: 'cell', tabindex: y === 0 && x === 0 ? 0 : -1,
				                    role: 'button', transform: `translate(${px} ${py})`,
				                    dataset: {x, y}});
				g.addEventListener('click', () => this.activate(x, y));
				g.addEventListener('focus', () => { this.focus = {x, y}; });
				this.cells.push(g);
				this.cellLayer.append(g);
			}
		}
		if (labels)
			this.drawLabels(label);
		this.el.addEventListener('keydown', (ev) => this.key(ev));
	}

	/* The top-left pixel of cell (x, y). */
	px(x, y) {
		let row = this.topDown ? y : this.rows - 1 - y, col = x;
		if (this.flipped) {
			row = this.rows - 1 - row;
			col = this.cols - 1 - col;
		}
		return [this.margin + this.pad + col * this.size, this.margin + this.pad + row * this.size];
	}

	/* Turns the board around (true) or back; the cells keep their elements (and focus). */
	setFlip(flip) {
		if (this.flipped === Boolean(flip))
			return;
		this.flipped = Boolean(flip);
		for (let y = 0; y < this.rows; y++)
			for (let x = 0; x < this.cols; x++) {
				const [px, py] = this.px(x, y);
				this.cell(x, y).setAttribute('transform', `translate(${px} ${py})`);
			}
		clear(this.under);
		if (this.labels)
			this.drawLabels(this.labelFn);
	}

	cell(x, y) {
		return this.cells[y * this.cols + x];
	}

	/* The cell's group, emptied, with a hit rectangle and the given classes and label. */
	content(x, y, {cls = [], label = ''} = {}) {
		const g = clear(this.cell(x, y));
		g.setAttribute('class', ['cell', ...cls].filter(Boolean).join(' '));
		g.setAttribute('aria-label', label);
		g.append(svg('rect', {class: 'hit', width: this.size, height: this.size}));
		return g;
	}

	drawLabels(label = (axis, i) => (axis === 'x' ? String.fromCharCode(97 + i) : String(i + 1))) {
		for (let x = 0; x < this.cols; x++) {
			const [px] = this.px(x, 0);
			const t = svg('text', {class: 'coord', x: px + this.size / 2,
			                       y: this.margin + this.pad + this.rows * this.size + 15,
			                       'text-anchor': 'middle'}, label('x', x));
			this.under.append(t);
		}
		for (let y = 0; y < this.rows; y++) {
			const [, py] = this.px(0, y);
			this.under.append(svg('text', {class: 'coord', x: this.pad + this.margin - 8,
			                               y: py + this.size / 2 + 5, 'text-anchor': 'end'},
			                          label('y', y)));
		}
	}

	activate(x, y) {
		this.focusCell(x, y, false);
		if (this.onActivate)
			this.onActivate(x, y);
	}

	focusCell(x, y, move = true) {
		for (const c of this.cells)
			c.setAttribute('tabindex', -1);
		const g = this.cell(x, y);
		g.setAttribute('tabindex', 0);
		this.focus = {x, y};
		if (move)
			g.focus();
	}

	key(ev) {
		const {x, y} = this.focus;
		const up = this.topDown ? -1 : 1, turn = this.flipped ? -1 : 1;
		const d = {ArrowLeft: [-turn, 0], ArrowRight: [turn, 0], ArrowUp: [0, up * turn],
		           ArrowDown: [0, -up * turn]}[ev.key];
		if (d) {
			const nx = x + d[0], ny = y + d[1];
			if (nx >= 0 && nx < this.cols && ny >= 0 && ny < this.rows)
				this.focusCell(nx, ny);
			ev.preventDefault();
		} else if ((ev.key === 'Enter' || ev.key === ' ') && ev.target.classList.contains('cell')) {
			this.activate(x, y);
			ev.preventDefault();
		}
	}
}

/* "a1" for (0, 0) on boards with a1 in the lower left. */
export function squareName(x, y) {
	return String.fromCharCode(97 + x) + String(y + 1);
}
