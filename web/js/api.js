/*
 * api.js - the page's reads of the HTTP API (/api on the page's own host, PROTOCOL.md §14):
 * JSON and NDJSON answers, errors as ServerError with the protocol's codes, and the ratings
 * the page shows beside names (/api/user, for accounts only), each player's cached for a while
 * so that a lobby redrawn every few seconds asks again only every CACHE_MS.
 */
import {ServerError} from './conn.js';

const CACHE_MS = 30000;

async function get(path, accept) {
	const r = await fetch(path, {headers: {Accept: accept}});
	if (!r.ok) {
		const body = await r.json().catch(() => null);
		throw new ServerError(body && body.code ? body :
		                      {code: 'HTTP_ERROR', message: `${r.status} ${r.statusText}`});
	}
	return r;
}

export async function apiJSON(path) {
	return (await get(path, 'application/json')).json();
}

/* An NDJSON list, read whole: one object a line. */
export async function apiList(path) {
	const text = await (await get(path, 'application/x-ndjson')).text();
	return text.split('\n').filter((l) => l.trim()).map((l) => JSON.parse(l));
}

/* A player's rated games of every kind, oldest first, as [{kind, game, started, ended, rating}]:
 * the rating each game left them with (games rated before the server kept them have none). */
export async function ratingHistory(name, max = 200) {
	const games = await apiList(`/api/games?user=${encodeURIComponent(name)}&rated=1&moves=0&max=${max}`);
	const key = name.toLowerCase();
	const out = [];
	for (const g of games) {
		const seat = g.players.findIndex((p) => p.toLowerCase() === key);
		const r = g.ratings && seat >= 0 ? g.ratings[seat] : null;
		if (typeof r === 'number')
			out.push({kind: g.kind, game: g.id, started: g.started, ended: g.ended, rating: r});
	}
	return out.sort((a, b) => a.ended - b.ended || a.game - b.game);
}

/* Ratings beside names: ratings.get(name, kind) is the cached rating (a number), null when the
 * player has none in that kind, or undefined while unknown (a fetch is then started and
 * onChange called when it lands). */
export class Ratings {
	constructor(onChange) {
		this.onChange = onChange;
		this.users = new Map(); /* lowercased name -> {at, ratings: {kind: rating} | null} */
		this.busy = new Set();
		this.registered = new Map(); /* lowercased name -> an account (true) or a guest (false) */
		this.learnedAt = -Infinity;
	}

	/* Who is an account: [{name, registered}] (the lobby's `who`, /api/online, /api/games/live).
	 * Only accounts are asked for (a guest has no rating, and one gone is a 404). */
	note(users) {
		for (const u of users)
			this.registered.set(u.name.toLowerCase(), Boolean(u.registered));
	}

	/* Names not known yet: who is online and who plays, at most every 10 s. */
	async learn() {
		if (performance.now() - this.learnedAt < 10000)
			return;
		this.learnedAt = performance.now();
		try {
			const [online, live] = await Promise.all([apiJSON('/api/online'), apiJSON('/api/games/live')]);
			this.note(online.users);
			this.note(live.games.flatMap((g) => g.players));
			this.onChange();
		} catch (e) {
			/* no HTTP API here: no ratings beside names */
		}
	}

	fresh(entry) {
		return entry && performance.now() - entry.at < CACHE_MS;
	}

	get(name, kind) {
		if (!name || !kind)
			return null;
		const reg = this.registered.get(name.toLowerCase());
		if (reg === undefined)
			this.learn();
		if (!reg)
			return reg === false ? null : undefined;
		const u = this.users.get(name.toLowerCase());
		if (!this.fresh(u))
			this.fetchUser(name);
		if (!u)
			return undefined;
		return u.ratings ? u.ratings[kind] ?? null : null;
	}

	async fetchUser(name) {
		const k = name.toLowerCase();
		if (this.busy.has(k))
			return;
		this.busy.add(k);
		let ratings = null;
		try {
			const u = await apiJSON(`/api/user/${encodeURIComponent(name)}`);
			ratings = Object.fromEntries(u.ratings.map((r) => [r.kind, r.rating]));
		} catch (e) {
			/* no such user (a guest gone) or no store: no rating */
		} finally {
			this.busy.delete(k);
		}
		this.users.set(k, {at: performance.now(), ratings});
		this.onChange();
	}

	/* All of a player's ratings, {kind: rating} ({} unknown or none; a fetch as for get()). */
	all(name) {
		this.get(name, '-');
		const u = this.users.get(name.toLowerCase());
		return (u && u.ratings) || {};
	}

	/* Forgets a player's ratings (after a game of theirs ends). */
	forget(name) {
		this.users.delete(name.toLowerCase());
	}
}

/* "1523" for a rating, "" without one. */
export function ratingText(r) {
	return typeof r === 'number' ? String(Math.round(r)) : '';
}
