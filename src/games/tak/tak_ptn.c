/*
 * tak_ptn.c - Tak notation: PTN moves in and out (tak.md 2.1), TPS positions
 * in and out (2.3), and whole PTN game records with tags (2.2), including the
 * tags a bitarena record carries for a game's options (game_ops.record_tags).
 * It calls the rules (tak.c), which never call it.
 *
 * Input is checked for syntax here and for legality by tak_check_move(); every
 * refusal comes with a sentence. Nothing allocates: callers own every buffer.
 */
#include "games/tak/tak.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "games/tak/tak_slide.h"

static const char dir_char[] = "+>-<"; /* BB_N, BB_E, BB_S, BB_W */

static int fail(const char **why, const char *w, int err)
{
	if (why)
		*why = w;
	return err;
}

/* --- PTN moves --------------------------------------------------------------------- */

int tak_parse_ptn(const struct tak_state *s, const char *text, game_move *m, const char **why)
{
	static const char usage[] = "a Tak move is a placement (a1, Sa1 wall, Ca1 capstone) or a "
	                            "slide (count, square, direction + - < >, drops: 3c3>12)";
	char t[32];
	while (isspace((unsigned char)*text))
		text++;
	size_t len = strlen(text);
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		len--;
	while (len > 0 && strchr("'\"*!?", text[len - 1]) != NULL)
		len--; /* annotations: tak ' tinue '' ! ? and * for a flattening */
	if (len == 0 || len >= sizeof t)
		return fail(why, usage, GAME_ESYNTAX);
	memcpy(t, text, len);
	t[len] = '\0';

	/* Either case, as people type it ("A5", "sd3", "3C3>12"): the piece letters to upper
	   case where a square follows them, the square's file to lower case (PTN writes both
	   so; "c3" is a square, "cc3" a capstone on it). */
	char *q = t;
	if (strchr("FSCfsc", *q) != NULL && isalpha((unsigned char)q[1]))
		*q = (char)toupper((unsigned char)*q), q++;
	else if (isdigit((unsigned char)*q))
		q++;
	*q = (char)tolower((unsigned char)*q);
	if (len > 2 && strchr("fsc", t[len - 1]) != NULL && q != t + len - 1)
		t[len - 1] = (char)toupper((unsigned char)t[len - 1]); /* 3c3>12s: the moving top */

	const char *p = t;
	int kind = -1, count = 0;
	if (*p == 'F' || *p == 'S' || *p == 'C') {
		kind = *p == 'F' ? TAK_FLAT : *p == 'S' ? TAK_WALL : TAK_CAP;
		p++;
	} else if (*p >= '0' && *p <= '9') {
		count = *p++ - '0';
		if (count == 0)
			return fail(why, "a slide carries at least one piece", GAME_ESYNTAX);
	}
	if (p[0] < 'a' || p[0] > 'h' || p[1] < '1' || p[1] > '8')
		return fail(why, usage, GAME_ESYNTAX);
	const int n = s->size, x = p[0] - 'a', y = p[1] - '1';
	p += 2;
	if (*p == '\0') {
		if (count)
			return fail(why, "a count needs a direction: 3c3>", GAME_ESYNTAX);
		if (x >= n || y >= n)
			return fail(why, "that square is not on the board", GAME_EILLEGAL);
		*m = tak_move_place(y * n + x, kind < 0 ? TAK_FLAT : (enum tak_kind)kind);
		return tak_check_move(s, *m, why);
	}
	if (kind >= 0)
		return fail(why, usage, GAME_ESYNTAX);
	const char *d = strchr(dir_char, *p);
	if (*p == '\0' || d == NULL)
		return fail(why, usage, GAME_ESYNTAX);
	const int dir = (int)(d - dir_char);
	p++;
	if (count == 0)
		count = 1;
	uint32_t pattern = 0;
	int ndrops = 0, sum = 0;
	for (; *p >= '0' && *p <= '9'; p++) {
		if (*p == '0')
			return fail(why, "every square passed gets at least one piece",
			            GAME_ESYNTAX);
		if (ndrops == 8)
			return fail(why, "the move runs off the board", GAME_EILLEGAL);
		pattern |= (uint32_t)(*p - '0') << (4 * ndrops++);
		sum += *p - '0';
	}
	if (ndrops == 0)
		pattern = (uint32_t)count;
	else if (sum != count)
		return fail(why, "the drops must add up to the number of pieces carried",
		            GAME_EILLEGAL);
	int stone = -1; /* an optional letter naming the moving top stone */
	if (*p == 'F')
		stone = TAK_FLAT;
	else if (*p == 'S')
		stone = TAK_WALL;
	else if (*p == 'C')
		stone = TAK_CAP;
	if (stone >= 0)
		p++;
	if (*p != '\0')
		return fail(why, usage, GAME_ESYNTAX);
	if (x >= n || y >= n)
		return fail(why, "that square is not on the board", GAME_EILLEGAL);
	*m = tak_move_slide(y * n + x, dir, pattern);
	int err = tak_check_move(s, *m, why);
	if (err < 0)
		return err;
	if (stone >= 0) {
		bb_t b = bb_bit(y * n + x);
		int top = s->caps & b ? TAK_CAP : s->walls & b ? TAK_WALL : TAK_FLAT;
		if (top != stone)
			return fail(why,
			            "the stone letter does not match the top of the moving stack",
			            GAME_EILLEGAL);
	}
	return GAME_OK;
}

int tak_format_ptn(const struct tak_state *s, game_move m, char *buf, size_t len)
{
	char t[32];
	int at = 0;
	const int n = s->size, sq = tak_move_square(m), kd = tak_move_kind_or_dir(m);
	if (sq >= n * n)
		return GAME_EILLEGAL;
	if (!tak_move_is_slide(m)) {
		if (kd == TAK_WALL)
			t[at++] = 'S';
		else if (kd == TAK_CAP)
			t[at++] = 'C';
		else if (kd != TAK_FLAT)
			return GAME_ESYNTAX;
	}
	uint32_t p = tak_move_pattern(m);
	int k = 0;
	if (tak_move_is_slide(m)) {
		if (p == 0)
			return GAME_ESYNTAX;
		k = tak_pattern_carry(p);
		if (k > 9)
			return GAME_ESYNTAX;
		if (k > 1)
			t[at++] = (char)('0' + k);
	}
	t[at++] = (char)('a' + sq % n);
	t[at++] = (char)('1' + sq / n);
	if (tak_move_is_slide(m)) {
		t[at++] = dir_char[kd];
		if (p > 15)
			for (; p; p >>= 4)
				t[at++] = (char)('0' + (p & 15));
	}
	t[at] = '\0';
	if ((size_t)at >= len)
		return GAME_ENOSPACE;
	memcpy(buf, t, (size_t)at + 1);
	return at;
}

/* --- TPS ------------------------------------------------------------------------------ */

int tak_stack_text(const struct tak_state *s, int sq, char *buf, size_t len)
{
	int h = s->height[sq];
	size_t at = 0;
	if (len == 0)
		return GAME_ENOSPACE;
	for (int i = h - 1; i >= 0; i--) {
		if (at + 1 >= len)
			return GAME_ENOSPACE;
		buf[at++] = (char)('1' + tak_piece_colour(s, sq, i));
	}
	bb_t b = bb_bit(sq);
	if (h > 0 && (s->walls | s->caps) & b) {
		if (at + 1 >= len)
			return GAME_ENOSPACE;
		buf[at++] = s->walls & b ? 'S' : 'C';
	}
	buf[at] = '\0';
	return (int)at;
}

int tak_save_tps(const struct tak_state *s, char *buf, size_t len)
{
	const int n = s->size;
	size_t at = 0;
	char cell[200];
#define EMIT(...)                                                                                  \
	do {                                                                                       \
		int k_ = snprintf(at < len ? buf + at : NULL, at < len ? len - at : 0,             \
		                  __VA_ARGS__);                                                    \
		at += k_ > 0 ? (size_t)k_ : 0;                                                     \
	} while (0)
	for (int y = n - 1; y >= 0; y--) {
		int run = 0;
		for (int x = 0; x < n; x++) {
			int sq = y * n + x;
			if (s->height[sq] == 0) {
				run++;
				continue;
			}
			if (run)
				EMIT(run > 1 ? "x%d," : "x,", run);
			run = 0;
			if (tak_stack_text(s, sq, cell, sizeof cell) < 0)
				return GAME_ENOSPACE;
			EMIT("%s%s", cell, x < n - 1 ? "," : "");
		}
		if (run)
			EMIT(run > 1 ? "x%d" : "x", run);
		EMIT("%s", y > 0 ? "/" : "");
	}
	EMIT(" %u %u", (unsigned)(s->ply & 1) + 1, (unsigned)(s->ply / 2 + 1));
#undef EMIT
	if (at >= len)
		return GAME_ENOSPACE;
	return (int)at;
}

int tak_load_tps(struct tak_state *st, const struct game_params *p, const char *text)
{
	struct game_params q;
	struct tak_state s;
	const char *c = text;
	int n = 1;
	if (p == NULL)
		game_opts_default(tak_opts, TAK_NOPTS, &q);
	else
		q = *p;
	while (isspace((unsigned char)*c))
		c++;
	/* The size is the number of rows. */
	for (const char *e = c; *e && !isspace((unsigned char)*e); e++)
		n += *e == '/';
	if (n < TAK_MIN_SIZE || n > TAK_MAX_SIZE)
		return GAME_EPOSITION;
	if (q.set[TAK_OPT_SIZE] && q.v[TAK_OPT_SIZE] != n)
		return GAME_EPOSITION;
	q.v[TAK_OPT_SIZE] = n;
	if (tak_setup(&s, &q, NULL) < 0)
		return GAME_EOPT;
	int used[2][2] = {{0, 0}, {0, 0}};
	for (int y = n - 1; y >= 0; y--) {
		int x = 0;
		for (;;) {
			if (*c == 'x') {
				int run = 1;
				c++;
				if (isdigit((unsigned char)*c)) {
					run = 0;
					while (isdigit((unsigned char)*c) && run <= 8)
						run = run * 10 + (*c++ - '0');
				}
				if (run < 1 || x + run > n)
					return GAME_EPOSITION;
				x += run;
			} else if (*c == '1' || *c == '2') {
				if (x >= n)
					return GAME_EPOSITION;
				int sq = y * n + x++, colour = 0;
				for (; *c == '1' || *c == '2'; c++) {
					colour = *c - '1';
					/* a capstone top (next char 'C') is counted below */
					if (c[1] != 'C' && ++used[colour][TAK_STONES] >
					                           s.start_reserve[TAK_STONES])
						return GAME_EPOSITION;
					tak_push_piece(&s, sq, colour);
				}
				s.top[colour] |= bb_bit(sq);
				if (*c == 'S' || *c == 'C') {
					if (*c == 'S') {
						s.walls |= bb_bit(sq);
					} else {
						s.caps |= bb_bit(sq);
						if (++used[colour][TAK_CAPS] >
						    s.start_reserve[TAK_CAPS])
							return GAME_EPOSITION;
					}
					c++;
				}
			} else {
				return GAME_EPOSITION;
			}
			if (*c != ',')
				break;
			c++;
		}
		if (x != n)
			return GAME_EPOSITION;
		if (y > 0 && *c++ != '/')
			return GAME_EPOSITION;
	}
	if (!isspace((unsigned char)*c))
		return GAME_EPOSITION;
	while (isspace((unsigned char)*c))
		c++;
	if (*c != '1' && *c != '2')
		return GAME_EPOSITION;
	int turn = *c++ - '1';
	if (!isspace((unsigned char)*c))
		return GAME_EPOSITION;
	while (isspace((unsigned char)*c))
		c++;
	long move = 0;
	if (!isdigit((unsigned char)*c))
		return GAME_EPOSITION;
	while (isdigit((unsigned char)*c) && move <= 100000000)
		move = move * 10 + (*c++ - '0');
	while (isspace((unsigned char)*c))
		c++;
	if (*c != '\0' || move < 1 || move > 100000000)
		return GAME_EPOSITION;
	s.ply = (uint32_t)(2 * (move - 1) + turn);
	for (int col = 0; col < 2; col++)
		for (int r = 0; r < 2; r++)
			s.reserve[col][r] = (uint8_t)(s.start_reserve[r] - used[col][r]);
	tak_update_result_after_load(&s);
	memcpy(st, &s, sizeof s);
	return GAME_OK;
}

/* --- PTN game records ---------------------------------------------------------------- */

/* [Name "value"] with '"' and '\' escaped by a backslash. */
static void emit_tag(struct game_text *o, const char *name, const char *value)
{
	if (value == NULL)
		return;
	game_text_put(o, "[%s \"", name);
	for (const char *v = value; *v; v++) {
		if (*v == '\n' || *v == '\r')
			continue;
		game_text_put(o, (*v == '"' || *v == '\\') ? "\\%c" : "%c", *v);
	}
	game_text_put(o, "\"]\n");
}

int tak_write_ptn_game(const struct tak_state *start, const game_move *moves, size_t nmoves,
                       const struct tak_ptn_tags *tags, char *buf, size_t len)
{
	struct game_text o;
	struct tak_state s;
	char t[64];
	const struct tak_ptn_tags none = {NULL, NULL, NULL, NULL, NULL, -1, -1, -1, -1};
	if (tags == NULL)
		tags = &none;
	if (len == 0)
		return GAME_ENOSPACE;
	game_text_init(&o, buf, len);
	memcpy(&s, start, sizeof s);
	emit_tag(&o, "Player1", tags->player1);
	emit_tag(&o, "Player2", tags->player2);
	emit_tag(&o, "Date", tags->date);
	snprintf(t, sizeof t, "%d", tags->size > 0 ? tags->size : s.size);
	emit_tag(&o, "Size", t);
	int komi = tags->komi >= 0 ? tags->komi : s.komi;
	snprintf(t, sizeof t, "%d%s", komi / 2, komi & 1 ? ".5" : "");
	emit_tag(&o, "Komi", t);
	snprintf(t, sizeof t, "%d", tags->flats >= 0 ? tags->flats : s.start_reserve[TAK_STONES]);
	emit_tag(&o, "Flats", t);
	snprintf(t, sizeof t, "%d", tags->caps >= 0 ? tags->caps : s.start_reserve[TAK_CAPS]);
	emit_tag(&o, "Caps", t);
	emit_tag(&o, "Clock", tags->clock);
	if (s.ply != 0 || (s.top[0] | s.top[1]) != 0) {
		char tps[1024];
		if (tak_save_tps(&s, tps, sizeof tps) < 0)
			return GAME_ENOSPACE;
		emit_tag(&o, "TPS", tps);
	}
	/* Replay first: the Result tag may come from the final position. */
	struct tak_state fin = s;
	for (size_t i = 0; i < nmoves; i++)
		if (tak_apply(&fin, moves[i]) < 0)
			return GAME_EILLEGAL;
	struct game_result r;
	tak_result(&fin, &r);
	const char *res = tags->result ? tags->result : r.score;
	emit_tag(&o, "Result", res);
	game_text_put(&o, "\n");
	for (size_t i = 0; i < nmoves; i++) {
		bool white = (s.ply & 1) == 0;
		if (white || i == 0)
			game_text_put(&o, "%s%u.%s", i ? "\n" : "", (unsigned)(s.ply / 2 + 1),
			              white ? "" : " --");
		if (tak_format_ptn(&s, moves[i], t, sizeof t) < 0)
			return GAME_EILLEGAL;
		game_text_put(&o, " %s", t);
		tak_apply(&s, moves[i]);
	}
	game_text_put(&o, "%s%s\n", nmoves ? "\n" : "", res);
	return game_text_end(&o);
}

/* Size, Komi, Flats and Caps of a record: from the options, else playtak's standard table. */
int tak_record_tags(const char *options, game_tag_fn tag, void *ctx)
{
	long size = game_options_value(options, "size", 5);
	if (size < TAK_MIN_SIZE || size > TAK_MAX_SIZE)
		size = 5;
	/* Options are integers: komi counts half flats (playtak's convention). */
	long half = game_options_value(options, "komi", 0);
	/* The engine's "pieces=0" and "caps=-1" (or no word) mean the standard count. */
	long f = game_options_value(options, "pieces", 0);
	long c = game_options_value(options, "caps", -1);
	if (f <= 0)
		f = tak_std_stones((int)size);
	if (c < 0)
		c = tak_std_caps((int)size);
	char v[32];
	int err;
	snprintf(v, sizeof v, "%ld", size);
	if ((err = tag(ctx, "Size", v)))
		return err;
	if (half % 2)
		snprintf(v, sizeof v, "%s%ld.5", half < 0 ? "-" : "", labs(half) / 2);
	else
		snprintf(v, sizeof v, "%ld", half / 2);
	if ((err = tag(ctx, "Komi", v)))
		return err;
	snprintf(v, sizeof v, "%ld", f);
	if ((err = tag(ctx, "Flats", v)))
		return err;
	snprintf(v, sizeof v, "%ld", c);
	return tag(ctx, "Caps", v);
}
