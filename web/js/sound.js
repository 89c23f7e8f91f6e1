/*
 * sound.js - the page's sounds, made with Web Audio (no sound files): a click for a move, a
 * chord for the end of a game, a beep when one's own clock runs low. The mute switch in the
 * header is remembered in localStorage ("bitarena.mute"). `played` keeps the names of the last
 * sounds asked for while not muted (what the browser tests read; a headless browser may keep
 * the audio context suspended, which changes nothing here).
 */

const MUTE_KEY = 'bitarena.mute';
const TONES = {
	move: [[660, 0, 0.06]],
	end: [[523, 0, 0.25], [659, 0.08, 0.25], [784, 0.16, 0.35]],
	low: [[880, 0, 0.08], [880, 0.15, 0.08]],
};

export class Sounds {
	constructor(button) {
		this.button = button;
		this.ctx = null;
		this.played = [];
		try {
			this.muted = localStorage.getItem(MUTE_KEY) === '1';
		} catch (e) {
			this.muted = false;
		}
		button.addEventListener('click', () => this.setMuted(!this.muted));
		this.show();
	}

	setMuted(m) {
		this.muted = m;
		try {
			localStorage.setItem(MUTE_KEY, m ? '1' : '0');
		} catch (e) {
			/* storage refused (private mode): muted for this page only */
		}
		this.show();
	}

	show() {
		this.button.setAttribute('aria-pressed', String(this.muted));
		this.button.textContent = this.muted ? 'sound: off' : 'sound: on';
		this.button.title = this.muted ? 'sounds are off: click to turn them on' : 'click to turn the sounds off';
	}

	play(name) {
		if (this.muted || !TONES[name])
			return;
		this.played.push(name);
		if (this.played.length > 20)
			this.played.shift();
		const AC = window.AudioContext || window.webkitAudioContext;
		if (!AC)
			return;
		try {
			this.ctx = this.ctx || new AC();
			const t0 = this.ctx.currentTime;
			for (const [freq, at, len] of TONES[name]) {
				const o = this.ctx.createOscillator(), g = this.ctx.createGain();
				o.frequency.value = freq;
				g.gain.setValueAtTime(0.0001, t0 + at);
				g.gain.exponentialRampToValueAtTime(0.15, t0 + at + 0.01);
				g.gain.exponentialRampToValueAtTime(0.0001, t0 + at + len);
				o.connect(g).connect(this.ctx.destination);
				o.start(t0 + at);
				o.stop(t0 + at + len + 0.02);
			}
		} catch (e) {
			/* no audio here: silence */
		}
	}
}
