/*
 * dom.js - building the page's elements. Every piece of text (names, chat, options, moves,
 * server sentences) goes in as a text node or an attribute value, never as markup: nothing in
 * the page parses HTML from data, so a hostile name or chat line shows as the characters it is.
 */

const SVG_NS = 'http://www.w3.org/2000/svg';

function fill(node, attrs, children) {
	for (const [k, v] of Object.entries(attrs || {})) {
		if (v === undefined || v === null || v === false)
			continue;
		if (k === 'on') {
			for (const [ev, fn] of Object.entries(v))
				node.addEventListener(ev, fn);
		} else if (k === 'class') {
			node.setAttribute('class', Array.isArray(v) ? v.filter(Boolean).join(' ') : v);
		} else if (k === 'text') {
			node.textContent = String(v);
		} else if (k === 'dataset') {
			for (const [dk, dv] of Object.entries(v))
				node.dataset[dk] = String(dv);
		} else if (k === 'value' && 'value' in node) {
			node.value = String(v);
		} else if (k === 'checked' || k === 'disabled' || k === 'hidden' || k === 'selected') {
			node[k] = Boolean(v);
		} else {
			node.setAttribute(k, v === true ? '' : String(v));
		}
	}
	append(node, children);
	return node;
}

/* Appends children: nodes as they are, strings and numbers as text, arrays flattened. */
export function append(node, children) {
	for (const c of children) {
		if (c === undefined || c === null || c === false)
			continue;
		if (Array.isArray(c))
			append(node, c);
		else
			node.append(c instanceof Node ? c : document.createTextNode(String(c)));
	}
	return node;
}

/* el('button', {class: 'x', on: {click: f}}, 'text', child, ...) */
export function el(tag, attrs, ...children) {
	return fill(document.createElement(tag), attrs, children);
}

export function svg(tag, attrs, ...children) {
	return fill(document.createElementNS(SVG_NS, tag), attrs, children);
}

export function clear(node) {
	while (node.firstChild)
		node.removeChild(node.firstChild);
	return node;
}

/* Replaces node's children. */
export function put(node, ...children) {
	return append(clear(node), children);
}

export function $(sel, root = document) {
	return root.querySelector(sel);
}

/* m:ss for a clock, with tenths under ten seconds; '–' when untimed. */
export function clockText(ms) {
	if (ms === null || ms === undefined)
		return '–';
	ms = Math.max(0, ms);
	if (ms < 10000)
		return `0:0${Math.floor(ms / 1000)}.${Math.floor((ms % 1000) / 100)}`;
	const s = Math.floor(ms / 1000); /* as the server writes clocks in text */
	const h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
	const mm = h ? String(m).padStart(2, '0') : String(m);
	return `${h ? h + ':' : ''}${mm}:${String(r).padStart(2, '0')}`;
}

/* "5+3" from a seek's or game's {base_ms, inc_ms}; 'untimed' for null. */
export function timeControlText(t) {
	if (!t)
		return 'untimed';
	const min = t.base_ms / 60000;
	const base = Number.isInteger(min) ? String(min) : clockText(t.base_ms);
	return `${base}+${Math.round(t.inc_ms / 1000)}`;
}

/* "size=5 komi=4" from an options object, leaving out those at their defaults ({name: value},
 * as `games` lists them) when given. */
export function optionsText(o, defaults = {}) {
	return Object.entries(o || {}).filter(([k, v]) => defaults[k] !== v)
		.map(([k, v]) => `${k}=${v}`).join(' ');
}

/* A table with a caption for screen readers and a header row; `empty` (a sentence) when no rows. */
export function table(caption, head, rows, empty) {
	if (!rows.length)
		return el('p', {class: 'empty'}, empty);
	return el('table', {}, el('caption', {class: 'sr-only'}, caption),
	          el('thead', {}, el('tr', {}, head.map((h) => el('th', {scope: 'col'}, h)))),
	          el('tbody', {}, rows));
}

export function cells(...values) {
	return values.map((v) => el('td', {}, v));
}

/* A link to a player's page. */
export function userLink(name, attrs = {}) {
	return el('a', {class: 'user', href: `#/user/${encodeURIComponent(name)}`, ...attrs}, name);
}

/* "2026-11-28 09:14" (local time) of ms since the epoch. */
export function dateText(ms) {
	const d = new Date(ms);
	const p = (n) => String(n).padStart(2, '0');
	return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())} ${p(d.getHours())}:${p(d.getMinutes())}`;
}

/* "size=5 komi=2" (a stored game's options) -> {size: 5, komi: 2} (numbers where they are). */
export function parseOptions(text) {
	return Object.fromEntries(String(text || '').split(/\s+/).filter((w) => w.includes('='))
		.map((w) => {
			const [k, v] = w.split('=');
			return [k, /^-?\d+$/.test(v) ? Number(v) : v];
		}));
}
