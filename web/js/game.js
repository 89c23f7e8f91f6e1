/*
 * game.js - one game as the page knows it (GameModel: the latest state, the move list, chat,
 * offers, the result), and its view (GameView: players and both clocks, the board, the move
 * list, offers, chat, spectators).
 *
 * Each state says all the page shows: the time control, the offers standing, the spectator
 * count (kept current by `watchers` messages), and in simultaneous games whether our action is
 * in; offer messages change the offers between states. The move list starts from the game's
 * record (`record <id>`) and then grows by each state's last_move; a takeback (lower ply) cuts
 * it, and a gap (a spectator given only the newest state) fetches the record again. The chat
 * the server resends on watch and on coming back (chat_history) fills in what the page has not
 * seen. Clocks tick in the page from the state's values and the time it arrived; the server's
 * clock is the one that counts.
 *
 * Looking back while the game goes on: the move list's buttons, the arrow keys (off the board
 * and the text fields) and the look-back bar's buttons show the position after an earlier ply,
 * read-only; the states the page saw serve, and those it did not (a page reloaded, a spectator
 * come late) come from the server's `replay <id> 0` once. A new move leaves a look-back where
 * it is (the bar says how far the game has gone); "Back to the game", Escape or End return.
 */
import {apiJSON, apiList, ratingText} from './api.js';
import {clockText, el, optionsText, put, timeControlText, userLink} from './dom.js';
import {recordMoves} from './record.js';
import {MnkBoard} from './boards/mnk.js';
import {TakBoard} from './boards/tak.js';
import {XmasBoard} from './boards/xmas.js';

export const BOARDS = {ttt: MnkBoard, mnk: MnkBoard, tak: TakBoard, xmas: XmasBoard};
const OFFER_WORDS = {draw: 'a draw', undo: 'a takeback', abort: 'to abort', rematch: 'a rematch'};
const OFFER_NAMES = {draw: 'draw offer', undo: 'takeback request', abort: 'abort offer', rematch: 'rematch offer'};
/* How a game ended, in words after "wins" (or after "Draw"). */
const REASONS = {road: 'by a road', flats: 'on flats', line: 'with a line', resign: 'by resignation',
                 timeout: 'on time', abandoned: 'by abandonment', agreement: 'by agreement',
                 board_full: 'with a full board', draw: 'on equal flats or a stale position', max_plies: 'at the move limit',
                 max_turns: 'after the last turn', deadlock: 'by deadlock',
                 all_quests_completed: 'with all quests done', invalid_action: 'by an invalid action'};
/* Simultaneous games: a seat's fault that ended it (the referee's), said of who made it. */
const FAULTS = {timeout: 'missed a turn', invalid_action: 'made an invalid action'};

export class GameModel {
	constructor(id, conn) {
		this.id = id;
		this.conn = conn;
		this.start = null; /* the game_start message, for players */
		this.state = null;
		this.receivedAt = 0;
		this.moves = []; /* sequential: one text per ply; simultaneous: [seat0, seat1] per turn */
		this.history = []; /* the states seen, by ply (for looking back; gaps before joining) */
		this.chat = [];
		this.chatSeen = 0; /* chat lines of the game received (live or resent) */
		this.offers = new Map(); /* what -> offer message still standing */
		this.result = null;
		this.finalClocks = null;
		this.watchers = null;
		this.acted = null; /* simultaneous: our action for the current turn (or true) */
		this.watching = false;
		this.views = new Set();
		this.fetching = false;
		this.replaying = false; /* a `replay` of the positions the page has not seen: true while it
		                         * runs, then 'done' (up to ply replayedTo) or 'failed' */
		this.replayedTo = 0;
	}

	get seat() {
		const s = this.state ? this.state.seat : this.start ? this.start.seat : null;
		return s === undefined ? null : s;
	}

	/* Over by the state or by a game_over (an agreed draw, a resignation) not yet in a state. */
	get over() {
		return Boolean(this.result || (this.state && this.state.over));
	}

	get playing() {
		return this.seat !== null;
	}

	get simultaneous() {
		return Boolean(this.state && this.state.turn_ms !== undefined);
	}

	changed() {
		for (const v of this.views)
			v.render();
	}

	onStart(msg) {
		this.start = msg;
		this.changed();
	}

	onState(st) {
		const prev = this.state;
		this.state = st;
		this.receivedAt = performance.now();
		if (!prev || prev.seq !== st.seq)
			this.acted = null;
		if (st.acted)
			this.acted = this.acted || true;
		if (typeof st.watchers === 'number')
			this.watchers = st.watchers;
		if (Array.isArray(st.offers))
			this.offers = new Map(st.offers.map((o) => [o.what, o]));
		if (st.over && st.result)
			this.result = st.result;
		this.history[st.ply] = st;
		this.history.length = st.ply + 1; /* a takeback forgets what it took back */
		this.syncMoves(st);
		this.changed();
	}

	syncMoves(st) {
		const lm = st.last_move;
		const entry = lm === null || lm === undefined ? null :
		              typeof lm === 'object' ? [lm['0'] ?? null, lm['1'] ?? null] : lm;
		if (st.ply === this.moves.length + 1 && entry !== null)
			this.moves.push(entry);
		else if (st.ply < this.moves.length)
			this.moves.length = st.ply;
		else if (st.ply !== this.moves.length)
			this.fetchRecord();
	}

	async fetchRecord() {
		if (this.fetching)
			return;
		this.fetching = true;
		try {
			const r = await this.conn.request(`record ${this.id}`);
			const texts = recordMoves(r.record);
			const ply = this.state ? this.state.ply : texts.length;
			if (this.simultaneous) {
				const turns = [];
				for (let i = 0; i + 1 < texts.length; i += 2)
					turns.push([texts[i], texts[i + 1]]);
				this.moves = turns.slice(0, ply);
			} else {
				this.moves = texts.slice(0, ply);
			}
		} catch (e) {
			/* no record (a server without storage): the list starts here */
		} finally {
			this.fetching = false;
		}
		this.changed();
	}

	/* The positions of the plies this page has not seen, asked from the server (the game's
	 * record replayed; the states seen stay as they are): once, or again for a gap left since
	 * the last replay (a state missed). */
	fillHistory() {
		const ply = this.state ? this.state.ply : 0;
		if (this.replaying === true || this.replaying === 'failed' || !this.conn.ready ||
		    (this.replaying === 'done' && ply <= this.replayedTo))
			return;
		this.replaying = true;
		this.replayedTo = ply;
		this.conn.request(`replay ${this.id} 0`).catch(() => { this.replaying = 'failed'; this.changed(); });
	}

	onReplay(m) {
		if (!this.history[m.ply] && this.state && m.ply < this.state.ply)
			this.history[m.ply] = {game: this.id, kind: m.kind, players: m.players, position: m.position,
			                       last_move: m.last_move, ply: m.ply, seq: -1 - m.ply, to_move: []};
		if (m.done)
			this.replaying = 'done';
		this.changed();
	}

	onGameOver(msg) {
		this.result = msg.result;
		this.finalClocks = msg.clocks;
		for (const w of ['draw', 'undo', 'abort'])
			this.offers.delete(w);
		this.changed();
	}

	onChat(msg) {
		this.chat.push({from: msg.from, text: msg.text});
		this.chatSeen++;
		this.changed();
	}

	/* The latest lines (of `total` said): those after what this page has already received. */
	onChatHistory(msg) {
		const lines = msg.lines || [];
		const known = this.chatSeen - (msg.total - lines.length);
		for (const l of lines.slice(Math.max(0, known)))
			this.chat.push({from: l.from, text: l.text});
		this.chatSeen = Math.max(this.chatSeen, msg.total);
		this.changed();
	}

	onWatchers(n) {
		this.watchers = n;
		this.changed();
	}

	onInfo(msg) {
		if (msg.message)
			this.chat.push({system: true, text: msg.message});
		this.changed();
	}

	/* An offer, its answer or its end: the standing offers change, and the chat gets one plain
	 * line (not the server's sentence, which tells a telnet user what to type). */
	onOffer(msg) {
		if (msg.event === 'offer')
			this.offers.set(msg.what, msg);
		else
			this.offers.delete(msg.what);
		this.lastOffer = msg;
		this.chat.push({system: true, text: offerLine(msg)});
		this.changed();
	}

	/* Clocks now: the state's values, the running ones less the time since it came. */
	clocksNow() {
		const st = this.state;
		if (this.finalClocks)
			return this.finalClocks;
		if (!st || !st.clocks)
			return null;
		const spent = performance.now() - this.receivedAt;
		return st.clocks.map((ms, i) => (!this.over && (st.to_move || []).includes(i) ? ms - spent : ms));
	}

	/* Simultaneous games: ms left of the turn's deadline (as far as the page can tell). */
	turnLeft() {
		const st = this.state;
		if (!st || this.over || typeof st.turn_left_ms !== 'number')
			return null;
		return st.turn_left_ms - (performance.now() - this.receivedAt);
	}
}

export class GameView {
	constructor(model, app) {
		this.model = model;
		this.app = app;
		this.conn = app.conn;
		this.board = null;
		this.boardKind = null;
		this.chatShown = 0;
		this.resignArmed = false;
		this.heard = null; /* {ply, over, low} last sounded for: a sound per new move, end, low clock */
		this.lookAt = null; /* a ply looked back at (the move list), or null: the game as it stands */

		this.title = el('h1', {class: 'game-title'});
		this.seats = [0, 1].map(() => ({
			box: el('div', {class: 'seat'}),
			name: el('span', {class: 'name'}),
			rating: el('span', {class: 'rating'}),
			clock: el('span', {class: 'clock', role: 'timer'}),
			note: el('span', {class: 'seat-note'}),
		}));
		for (const s of this.seats)
			s.box.append(s.name, s.rating, s.note, s.clock);
		this.flipped = null; /* the viewer's choice, or null: one's own seat at the bottom */
		this.seatTop = el('div', {class: 'seat-slot top'});
		this.seatBottom = el('div', {class: 'seat-slot bottom'});
		this.flipButton = el('button', {type: 'button', class: 'flip small-control', title: 'turn the board around',
		                                on: {click: () => { this.flipped = !this.flip(); this.render(); }}},
		                     '⇅ Flip');
		this.endPanel = el('section', {class: 'end-panel', 'aria-label': 'game over', hidden: true});
		this.endRatings = null; /* [{after, delta}] per seat once fetched, or 'pending' */
		this.endActions = el('div', {class: 'actions end-actions'});
		const step = (label, title, cls, fn) => el('button', {type: 'button', class: ['small-control', cls], title,
		                                                      'aria-label': title, on: {click: fn}}, label);
		this.lookText = el('span', {class: 'look-text'});
		this.lookBar = el('div', {class: 'look-back', role: 'status', hidden: true}, this.lookText,
		                  el('span', {class: 'look-steps'},
		                     step('◀', 'previous move (←)', 'look-prev', () => this.step(-1)),
		                     step('▶', 'next move (→)', 'look-next', () => this.step(1))),
		                  el('button', {type: 'button', class: 'back-to-game', on: {click: () => this.look(null)}},
		                     'Back to the game'));
		this.moveNav = el('div', {class: 'move-nav', role: 'group', 'aria-label': 'look back at the moves'},
		                  step('|◀', 'the first position (Home)', 'look-first', () => this.look(0)),
		                  step('◀', 'previous move (←)', 'look-prev', () => this.step(-1)),
		                  step('▶', 'next move (→)', 'look-next', () => this.step(1)),
		                  step('▶|', 'the game as it stands (End)', 'look-live', () => this.look(null)));
		this.onKey = (ev) => this.key(ev);
		document.addEventListener('keydown', this.onKey);
		this.status = el('p', {class: 'game-status', 'aria-live': 'polite'});
		this.boardBox = el('div', {class: 'board-area'});
		this.moveInput = el('input', {type: 'text', class: 'move-input', list: `legal-${model.id}`,
		                              'aria-label': 'type a move', placeholder: 'type a move, Enter sends',
		                              maxlength: 200, autocomplete: 'off', spellcheck: 'false'});
		this.legalList = el('datalist', {id: `legal-${model.id}`});
		this.moveForm = el('form', {class: 'move-form', on: {submit: (ev) => {
			ev.preventDefault();
			const t = this.moveInput.value.trim();
			if (t)
				this.send(t).then(() => { this.moveInput.value = ''; });
		}}}, this.moveInput, this.legalList, el('button', {type: 'submit'}, 'Play'));
		this.actions = el('span', {class: 'action-buttons', role: 'group', 'aria-label': 'offers'});
		this.offerBox = el('div', {class: 'offers', 'aria-live': 'polite'});
		this.moveList = el('ol', {class: 'moves', 'aria-label': 'moves'});
		this.watchers = el('p', {class: 'watchers'});
		this.chatLog = el('ul', {class: 'chat-log', 'aria-live': 'polite', 'aria-label': 'chat'});
		this.chatInput = el('input', {type: 'text', maxlength: 500, 'aria-label': 'chat message',
		                              placeholder: 'say something', autocomplete: 'off'});
		this.chatForm = el('form', {class: 'chat-form', on: {submit: (ev) => {
			ev.preventDefault();
			const t = this.chatInput.value.trim();
			if (t)
				this.app.run(this.conn.request(`say ${model.id} ${t}`)).then(() => { this.chatInput.value = ''; });
		}}}, this.chatInput, el('button', {type: 'submit'}, 'Send'));
		this.el = el('section', {class: 'game', 'aria-label': `game ${model.id}`},
		             el('div', {class: 'game-main'}, this.title, this.endPanel, this.status,
		                this.offerBox, this.lookBar, this.seatTop, this.boardBox, this.seatBottom,
		                this.moveForm, el('div', {class: 'actions'}, this.actions, this.flipButton)),
		             el('aside', {class: 'game-side'},
		                el('h2', {}, 'Moves'), this.moveList, this.moveNav, this.watchers,
		                el('h2', {}, 'Chat'), this.chatLog, this.chatForm));
		model.views.add(this);
		this.render();
	}

	destroy() {
		this.model.views.delete(this);
		document.removeEventListener('keydown', this.onKey);
	}

	/* Shows the position after ply (null or the last: the game as it stands); one the page has
	 * not seen is asked for (model.fillHistory) and shown when it comes. */
	look(ply) {
		const m = this.model, st = m.state;
		this.lookAt = ply === null || !st || ply >= st.ply ? null : Math.max(0, ply);
		if (this.lookAt !== null && !m.history[this.lookAt])
			m.fillHistory();
		this.render();
	}

	/* One ply back (-1) or forward (+1) from the position shown; forward from the last but one
	 * is the game as it stands. */
	step(d) {
		const st = this.model.state;
		if (!st)
			return;
		const at = this.lookAt === null ? st.ply : this.lookAt;
		this.look(at + d >= st.ply ? null : at + d);
	}

	/* The arrow keys step (Home, End; Escape returns), except on the board (whose arrow keys
	 * move between its cells) and in the text fields. */
	key(ev) {
		const t = ev.target;
		if (ev.altKey || ev.ctrlKey || ev.metaKey || !this.el.isConnected)
			return;
		if (t && (/^(INPUT|TEXTAREA|SELECT)$/.test(t.tagName) || (t.closest && t.closest('svg.board'))))
			return;
		const go = {ArrowLeft: () => this.step(-1), ArrowRight: () => this.step(1), Home: () => this.look(0),
		            End: () => this.look(null), Escape: () => this.look(null)}[ev.key];
		if (!go || (ev.key === 'Escape' && this.lookAt === null) || !this.model.state)
			return;
		ev.preventDefault();
		go();
	}

	send(text) {
		const m = this.model;
		return this.app.run(this.conn.request(`move ${m.id} ${text}`).then((ok) => {
			if (ok.pending) {
				m.acted = text;
				m.changed();
			}
			return ok;
		}));
	}

	/* Is the board turned (the second seat at the bottom)? A player sits at the bottom unless
	 * they turned it; spectators see the first seat at the bottom until they turn it. */
	flip() {
		return this.flipped !== null ? this.flipped : this.model.seat === 1;
	}

	render() {
		const m = this.model, st = m.state;
		if (!st) {
			put(this.status, m.start ? 'Waiting for the first position…' : 'Loading the game…');
			return;
		}
		const players = st.players || [];
		const seat = m.seat;
		const seats = this.app.seatNames(st.kind);
		this.el.dataset.kind = st.kind;
		const time = st.turn_ms ? `${st.turn_ms / 1000} s/turn` : timeControlText(st.time);
		put(this.title, `Game ${m.id}: ${st.kind}`,
		    el('small', {}, ` ${optionsText(st.options, this.app.defaults(st.kind))} ${time}`));
		document.title = `${players.join(' vs ')} – bitarena`;
		const flip = this.flip();
		this.seats.forEach((s, i) => {
			put(s.name, (st.bots || [])[i] ? el('span', {class: 'bot-title', title: 'a bot'}, 'BOT ') : '',
			    players[i] ? userLink(players[i]) : '?');
			const r = this.app.ratings.get(players[i], st.kind);
			s.rating.textContent = ratingText(r);
			s.rating.title = typeof r === 'number' ? `${st.kind} rating` : '';
			s.box.className = ['seat', `seat-${i}`, (st.to_move || []).includes(i) && !m.over && 'to-move',
			                   seat === i && 'you'].filter(Boolean).join(' ');
			s.note.textContent = seats ? ` (${seats[i]}${seat === i ? ', you' : ''})` : seat === i ? ' (you)' : '';
		});
		if (this.seatTop.firstChild !== this.seats[flip ? 0 : 1].box) {
			this.seatTop.replaceChildren(this.seats[flip ? 0 : 1].box);
			this.seatBottom.replaceChildren(this.seats[flip ? 1 : 0].box);
		}
		this.el.dataset.flipped = String(flip);
		this.tick();

		const Board = BOARDS[st.kind];
		if (Board && this.boardKind !== st.kind) {
			this.board = new Board();
			this.boardKind = st.kind;
			this.boardBox.replaceChildren(this.board.el);
		} else if (!Board) {
			this.boardBox.replaceChildren(el('pre', {class: 'raw-position'}, JSON.stringify(st.position, null, 1)));
		}
		/* Looking back: the position after ply lookAt (the live one while it is being asked
		 * for), read-only; nothing to play either while offline or once over. */
		if (this.lookAt !== null && this.lookAt >= st.ply)
			this.lookAt = null;
		const looking = this.lookAt !== null;
		const past = looking ? m.history[this.lookAt] || null : null;
		const legal = (!looking && this.conn.ready && !m.over && st.legal) || null;
		if (this.board)
			this.board.update({state: past || st, seat, legal, acted: looking ? null : m.acted, over: m.over,
			                   online: this.conn.ready, flip, seats,
			                   send: (t) => this.send(t)});
		this.flipButton.hidden = Boolean(Board && Board.fixed);
		this.lookBar.hidden = !looking;
		this.el.dataset.looking = looking ? String(this.lookAt) : '';
		if (looking) {
			const what = this.lookAt === 0 ? 'the position before the first move' :
			             `the position after move ${this.lookAt}`;
			this.lookText.textContent = past ? `You are looking at ${what}; the game is at move ${st.ply}.` :
			        m.replaying === 'failed' || m.replaying === 'done' ? `The server did not give ${what}.` :
			        `Loading ${what}…`;
		}
		this.legalList.replaceChildren(...(legal || []).map((t) => el('option', {value: t})));
		this.moveForm.hidden = !m.playing || m.over || looking;

		put(this.status, this.statusText());
		this.status.hidden = m.over && Boolean(m.result); /* the end panel says it, once */
		this.renderEnd();
		this.renderMoves();
		this.sound();
		this.renderActions();
		this.renderChat();
		const user = Boolean(this.conn.user);
		this.chatInput.disabled = !user;
		this.chatInput.placeholder = user ? 'say something' : 'log in to chat';
		this.watchers.textContent = m.watchers === null ? '' :
		        `${m.watchers} spectator${m.watchers === 1 ? '' : 's'}`;
	}

	statusText() {
		const m = this.model, st = m.state;
		if (m.over)
			return 'Game over.';
		if (!this.conn.ready)
			return 'Connection lost: reconnecting…';
		const who = (st.to_move || []).map((i) => st.players[i]).join(' and ');
		if (m.acted)
			return `Your action is in; waiting for ${who}.`;
		if (m.playing && (st.to_move || []).includes(m.seat))
			return m.simultaneous ? 'Your turn (both players act at once).' : 'Your move.';
		return `${who} to move.`;
	}

	/* A sound for a move, the end, or one's clock under 10 s (once a game), not for what was
	 * there when the view opened. */
	sound(clocks) {
		const m = this.model, st = m.state, snd = this.app.sounds;
		if (!st)
			return;
		if (this.heard === null) {
			this.heard = {ply: st.ply, over: m.over, low: false};
			return;
		}
		if (clocks) {
			if (m.playing && !m.over && !this.heard.low && clocks[m.seat] < 10000 && clocks[m.seat] > 0) {
				this.heard.low = true;
				snd.play('low');
			}
			return;
		}
		if (m.over && !this.heard.over)
			snd.play('end');
		else if (st.ply > this.heard.ply)
			snd.play('move');
		this.heard.ply = st.ply;
		this.heard.over = m.over;
	}

	/* A simultaneous turn's deadline under 10 s while one's action is not in: the low-time
	 * sound, once a turn (a missed turn may lose the game). */
	soundTurn(left) {
		const m = this.model, st = m.state;
		if (!this.heard || !m.playing || m.over || m.acted || !(st.to_move || []).includes(m.seat) ||
		    left >= 10000 || left <= 0 || this.heard.lowTurn === st.seq)
			return;
		this.heard.lowTurn = st.seq;
		this.app.sounds.play('low');
	}

	/* Both clocks (and a simultaneous turn's deadline); called every 100 ms by the app. */
	tick() {
		const m = this.model;
		const clocks = m.clocksNow();
		const left = m.turnLeft();
		if (clocks)
			this.sound(clocks);
		else if (left !== null)
			this.soundTurn(left);
		this.seats.forEach((s, i) => {
			const turn = left !== null && (m.state.to_move || []).includes(i);
			if (clocks)
				s.clock.textContent = clockText(clocks[i]);
			else if (turn)
				s.clock.textContent = `turn ${clockText(left)}`;
			else
				s.clock.textContent = '';
			s.clock.classList.toggle('low', clocks ? clocks[i] < 10000 : turn && left < 10000);
		});
	}

	/* The moves, each a button that shows the position after it (the live one for the last),
	 * and the buttons that step through them. */
	renderMoves() {
		const m = this.model, st = m.state;
		const shown = this.lookAt === null ? m.moves.length : this.lookAt;
		const ply = (text, n) => el('button', {type: 'button', class: ['ply', n === shown && 'current'],
		                                       dataset: {ply: n}, disabled: !m.history[n] && m.replaying === 'failed',
		                                       'aria-current': n === shown ? 'step' : false,
		                                       on: {click: () => this.look(n)}}, text);
		const items = [];
		if (m.simultaneous) {
			m.moves.forEach((t, i) => items.push(el('li', {}, ply(`${t[0] ?? '—'} | ${t[1] ?? '—'}`, i + 1))));
		} else {
			for (let i = 0; i < m.moves.length; i += 2)
				items.push(el('li', {}, ply(m.moves[i], i + 1), ' ',
				              i + 1 < m.moves.length ? ply(m.moves[i + 1], i + 2) : el('span', {class: 'ply'}, '')));
		}
		this.moveList.replaceChildren(...items);
		if (this.lookAt === null)
			this.moveList.scrollTop = this.moveList.scrollHeight;
		else
			scrollInto(this.moveList, this.moveList.querySelector('.current'));
		const at = this.lookAt === null ? st.ply : this.lookAt;
		for (const b of this.moveNav.querySelectorAll('button'))
			b.disabled = b.classList.contains('look-first') || b.classList.contains('look-prev') ? at === 0 :
			             this.lookAt === null;
		for (const b of this.lookBar.querySelectorAll('.look-steps button'))
			b.disabled = b.classList.contains('look-prev') ? at === 0 : this.lookAt === null;
	}

	button(label, line, cls) {
		return el('button', {type: 'button', class: cls, dataset: {cmd: line.split(' ')[0]},
		                     on: {click: () => this.app.run(this.conn.request(line))}}, label);
	}

	renderActions() {
		const m = this.model, st = m.state, id = m.id;
		const acts = [], offers = [];
		if (m.playing) {
			const mine = (o) => o && o.seat === m.seat;
			const theirs = (o) => o && o.seat !== m.seat;
			if (!m.over) {
				const resign = el('button', {type: 'button', class: 'danger', dataset: {cmd: 'resign'},
				                             on: {click: () => this.resign(resign)}},
				                  this.resignArmed ? 'Really resign?' : 'Resign');
				acts.push(resign);
				const draw = m.offers.get('draw');
				if (!draw)
					acts.push(this.button('Offer a draw', `draw ${id}`));
				else if (mine(draw))
					acts.push(this.pendingButton('Draw offered: withdraw', `draw ${id} withdraw`));
				if (!m.simultaneous) {
					const undo = m.offers.get('undo');
					if (!undo)
						acts.push(this.button('Ask for a takeback', `undo ${id}`));
					else if (mine(undo))
						acts.push(this.pendingButton('Takeback asked: withdraw', `undo ${id} withdraw`));
				}
				for (const o of m.offers.values())
					if (mine(o) && o.what !== 'rematch')
						offers.push(el('div', {class: 'offer mine', dataset: {what: o.what}},
						               `You offer ${OFFER_WORDS[o.what] || o.what}; waiting for ${this.opponent()}.`));
				if (st.ply < (m.simultaneous ? 1 : 2))
					acts.push(this.button('Abort', `abort ${id}`));
				if (theirs(draw))
					offers.push(this.offerLine(draw, `draw ${id} accept`, `draw ${id} decline`));
				if (theirs(m.offers.get('undo')))
					offers.push(this.offerLine(m.offers.get('undo'), `undo ${id}`, `undo ${id} decline`));
			} else {
				const re = m.offers.get('rematch');
				if (!re)
					acts.push(this.button('Rematch', `rematch ${id}`));
				else if (mine(re))
					acts.push(this.pendingButton(`Rematch offered: withdraw`, `rematch ${id} withdraw`));
				else
					offers.push(this.offerLine(re, `rematch ${id}`, `rematch ${id} decline`));
			}
			/* the answer to an offer of mine, until the next move */
			const last = m.lastOffer;
			if (last && last.seat !== m.seat && ['decline', 'lapse'].includes(last.event) &&
			    last.stateSeq === undefined)
				last.stateSeq = st.seq;
			if (last && last.seat !== m.seat && last.stateSeq === st.seq)
				offers.push(el('div', {class: 'offer answer'}, offerLine(last)));
		}
		if (m.over)
			acts.push(el('button', {type: 'button', class: 'new-game', on: {click: () => this.newGame()}}, 'New game'));
		if (!m.playing || m.over)
			acts.push(el('a', {class: 'button', href: '#/'}, 'Back to the lobby'));
		(m.over ? this.endActions : this.actions).replaceChildren(...acts);
		(m.over ? this.actions : this.endActions).replaceChildren();
		this.offerBox.replaceChildren(...offers);
	}

	/* A button for an offer of mine that stands: pressed; a click withdraws it. */
	pendingButton(label, line) {
		const b = this.button(label, line, 'pending');
		b.setAttribute('aria-pressed', 'true');
		return b;
	}

	opponent() {
		const st = this.model.state;
		return (st.players || [])[1 - this.model.seat] || 'your opponent';
	}

	/* To the lobby with a seek of this game's kind ready to send. */
	newGame() {
		this.app.lobby.prefer(this.model.state.kind);
		location.hash = '#/';
	}

	/* The end: who won and how, each player's rating after it and its change (rated games,
	 * from the API once the end is stored), rematch and a new game. */
	renderEnd() {
		const m = this.model, st = m.state;
		this.endPanel.hidden = !m.over || !m.result;
		if (this.endPanel.hidden)
			return;
		if (this.endRatings === null && m.result.reason !== 'aborted')
			this.fetchEndRatings();
		const players = st.players || [];
		const r = m.result;
		const won = r.winner === null || r.winner === undefined ? null : r.winner;
		const head = r.reason === 'aborted' ? 'Game aborted' : won === null ? 'Draw' :
		             m.playing ? (won === m.seat ? 'You won' : 'You lost') : `${players[won]} won`;
		const how = r.reason === 'aborted' ? 'No result, no rating change.' :
		            endSentence(r, players, this.app.seatNames(st.kind), m.simultaneous);
		const rows = Array.isArray(this.endRatings) ? this.endRatings.map((x, i) => x && el('li', {class: 'end-rating', dataset: {seat: i}},
		        userLink(players[i]), ' ', el('strong', {}, ratingText(x.after)),
		        typeof x.delta === 'number' ? el('span', {class: ['delta', x.delta >= 0 ? 'up' : 'down']},
		                                         ` ${x.delta >= 0 ? '+' : '−'}${Math.abs(Math.round(x.delta))}`) : '')) : [];
		put(this.endPanel, el('h2', {class: ['end-head', m.playing && won !== null && (won === m.seat ? 'won' : 'lost')]}, head),
		    el('p', {class: 'end-how'}, how),
		    rows.filter(Boolean).length ? el('ul', {class: 'end-ratings', 'aria-label': 'rating changes'}, rows) :
		    this.endRatings === 'pending' ? el('p', {class: 'fine'}, 'Updating the ratings…') : '',
		    this.endActions);
	}

	/* Each seat's rating after the game (the stored game) and before it (the player's previous
	 * rated game of the kind; 1500 when this was the first). */
	async fetchEndRatings() {
		const m = this.model, id = m.id;
		this.endRatings = 'pending';
		let g = null;
		for (let i = 0; i < 20 && !(g && g.status !== 'in_progress'); i++) {
			if (i)
				await new Promise((ok) => setTimeout(ok, 250));
			g = await apiJSON(`/api/game/${id}`).catch(() => null);
		}
		if (!g || !g.rated || !Array.isArray(g.ratings)) {
			this.endRatings = [];
			this.render();
			return;
		}
		this.endRatings = await Promise.all(g.players.map(async (p, i) => {
			const after = g.ratings[i];
			if (typeof after !== 'number')
				return null;
			this.app.ratings.forget(p);
			const rows = await apiList(`/api/games?user=${encodeURIComponent(p)}&kind=${encodeURIComponent(g.kind)}` +
			                           `&rated=1&moves=0&until=${g.ended}&max=3`).catch(() => null);
			const prev = rows && rows.find((x) => x.id !== id);
			const seat = prev ? prev.players.findIndex((q) => q.toLowerCase() === p.toLowerCase()) : -1;
			const before = !rows ? null : !prev ? 1500 : prev.ratings ? prev.ratings[seat] : null;
			return {after, delta: typeof before === 'number' ? after - before : null};
		}));
		this.render();
	}

	offerLine(o, yes, no) {
		return el('div', {class: 'offer'}, `${o.by} offers ${OFFER_WORDS[o.what] || o.what}`,
		          o.plies ? ` (${o.plies} ${o.plies === 1 ? 'ply' : 'plies'})` : '', ': ',
		          this.button('Accept', yes, 'accept'), ' ', this.button('Decline', no));
	}

	resign(button) {
		if (!this.resignArmed) {
			this.resignArmed = true;
			button.textContent = 'Really resign?';
			setTimeout(() => {
				this.resignArmed = false;
				if (button.isConnected)
					button.textContent = 'Resign';
			}, 4000);
			return;
		}
		this.resignArmed = false;
		this.app.run(this.conn.request(`resign ${this.model.id}`));
	}

	renderChat() {
		const chat = this.model.chat;
		if (chat.length < this.chatShown)
			this.chatShown = 0;
		for (; this.chatShown < chat.length; this.chatShown++) {
			const c = chat[this.chatShown];
			this.chatLog.append(c.system ? el('li', {class: 'system'}, c.text) :
			                    el('li', {}, el('strong', {class: 'from'}, c.from), ': ',
			                       el('span', {class: 'text'}, c.text)));
		}
		this.chatLog.scrollTop = this.chatLog.scrollHeight;
	}
}

/* Scrolls list (only it, not the page) so that item shows. */
function scrollInto(list, item) {
	if (!item)
		return;
	const r = item.getBoundingClientRect(), l = list.getBoundingClientRect();
	if (r.top < l.top)
		list.scrollTop -= l.top - r.top;
	else if (r.bottom > l.bottom)
		list.scrollTop += r.bottom - l.bottom;
}

/* One plain line for an offer message: "bob offers a draw", "alice declines the draw offer". */
export function offerLine(o) {
	const what = OFFER_NAMES[o.what] || o.what;
	switch (o.event) {
	case 'offer':
		return `${o.by} offers ${OFFER_WORDS[o.what] || o.what}${o.plies ? ` (${o.plies} ${o.plies === 1 ? 'ply' : 'plies'})` : ''}.`;
	case 'accept':
		return `${o.by} accepts the ${what}.`;
	case 'decline':
		return `${o.by} declines the ${what}.`;
	case 'withdraw':
		return `${o.by} withdraws the ${what}.`;
	case 'lapse':
		return `The ${what} lapsed.`;
	default:
		return `The ${what} ended.`;
	}
}

/* The result in one line, as the viewer heads a finished game: "R-0: alice wins (road)." */
export function resultText(r, players, seats) {
	if (!r)
		return '';
	if (r.reason === 'aborted')
		return 'Aborted, no result.';
	const who = r.winner === null || r.winner === undefined ? 'Draw' :
	            `${r.winner_name || players[r.winner] || `seat ${r.winner}`} wins`;
	return `${scoreText(r, players, seats)}: ${who} (${r.reason}).`;
}

/* The end panel's sentence: who won and how, and the score. "alice wins by a road, R-0.",
 * "ben wins: ann missed a turn; ann (player0) out, ben (player1) 3." */
export function endSentence(r, players, seats, simultaneous) {
	const won = r.winner === null || r.winner === undefined ? null : r.winner;
	const who = won === null ? 'Draw' : `${players[won]} wins`;
	const sc = seatScores(r);
	const out = sc ? players.filter((p, i) => sc[i] < 0) : won === null ? [] : [players[1 - won]];
	const why = simultaneous && FAULTS[r.reason] && out.length ? `: ${out.join(' and ')} ${FAULTS[r.reason]};` :
	            ` ${REASONS[r.reason] || `(${r.reason})`},`;
	return `${who}${why} ${scoreText(r, players, seats)}.`;
}

/* Each seat's score in a game of scores (Xmas Rush): the result's "scores", else read from a
 * score such as "-1-3" (a stored game's); null for other games. */
export function seatScores(r) {
	if (Array.isArray(r.scores))
		return r.scores;
	const two = /^(-?\d+)-(-?\d+)$/.exec(r.score || '');
	return two && (two[1].startsWith('-') || two[2].startsWith('-')) ? [Number(two[1]), Number(two[2])] : null;
}

/* The score as people read it: "R-0", or in a game of scores each seat's by name and seat,
 * a seat out of the game (the referee's -1) as "out": "ann (player0) out, ben (player1) 3". */
export function scoreText(r, players, seats) {
	const sc = seatScores(r);
	if (!sc)
		return r.score;
	return sc.map((v, i) => `${players[i] || `seat ${i}`}${seats ? ` (${seats[i]})` : ''} ${v < 0 ? 'out' : v}`)
		.join(', ');
}

