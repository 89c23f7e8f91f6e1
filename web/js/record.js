/*
 * record.js - the move list of a game record (the `record <game>` reply's text): the tag lines
 * and the blank line are skipped, then move numbers ("12."), {comments} and the result token are
 * dropped, and double-quoted moves ("PUSH 3 LEFT", with \" and \\ escapes) are unquoted.
 * Returns one text per ply, in order.
 */

const RESULT = /^(\*|1-0|0-1|1\/2-1\/2|[0-9RF]+-[0-9RF]+)$/;

export function recordMoves(text) {
	const lines = String(text).split('\n');
	let i = 0;
	while (i < lines.length && lines[i].startsWith('['))
		i++;
	const body = lines.slice(i).join('\n');
	const moves = [];
	let at = 0;
	while (at < body.length) {
		const c = body[at];
		if (/\s/.test(c)) {
			at++;
		} else if (c === '{') {
			const end = body.indexOf('}', at);
			at = end < 0 ? body.length : end + 1;
		} else if (c === '"') {
			let s = '';
			at++;
			while (at < body.length && body[at] !== '"') {
				if (body[at] === '\\' && at + 1 < body.length)
					at++;
				s += body[at++];
			}
			at++;
			moves.push({text: s, quoted: true});
		} else {
			let end = at;
			while (end < body.length && !/\s/.test(body[end]))
				end++;
			moves.push({text: body.slice(at, end), quoted: false});
			at = end;
		}
	}
	return moves
		.filter((m) => m.quoted || !/^\d+\.+$/.test(m.text))
		.filter((m, k, all) => m.quoted || k < all.length - 1 || !RESULT.test(m.text))
		.map((m) => m.text);
}
