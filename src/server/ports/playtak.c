/*
 * playtak.c - playtak.com client lines, moves and the server's seek and game
 * lines as pure functions; see playtak.h. Each reader follows the playtak
 * server's pattern for its command (tak.md section 3): anchored at the start,
 * trailing text ignored except for PING and quit, which must be the whole
 * line. Each writer follows the server's code (Seek.buildSeekStringArray,
 * Game.stringForm, Client.createGameStartString).
 */
#include "server/ports/playtak.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/util/text.h"

/* Matches the literal word at *p and moves past it. */
static bool lit(const char **p, const char *word)
{
	size_t n = strlen(word);
	if (strncmp(*p, word, n) != 0)
		return false;
	*p += n;
	return true;
}

/* \d+ (at most max digits read into *v, which must fit a long); false when none. */
static bool digits(const char **p, int max, long *v)
{
	const char *s = *p;
	long x = 0;
	int n = 0;
	while (isdigit((unsigned char)*s)) {
		if (n < max)
			x = x * 10 + (*s - '0');
		else
			return false; /* more digits than we take: not a number we can hold */
		n++;
		s++;
	}
	if (n == 0)
		return false;
	*v = x;
	*p = s;
	return true;
}

/*
 * A run of bytes from a set (min..max of them) into out; false when too few. A
 * run that the limit cuts ends before a UTF-8 sequence the cut would split
 * (the sets of rooms and passwords take every byte above the blank).
 */
static bool run(const char **p, bool (*in)(int c), int min, int max, char *out, size_t outlen)
{
	const char *s = *p;
	int n = 0;
	while (*s && in((unsigned char)*s) && n < max) {
		s++;
		n++;
	}
	if (n == max)
		n = (int)text_cut(*p, (size_t)n);
	if (n < min)
		return false;
	snprintf(out, outlen, "%.*s", n, *p);
	*p += n;
	return true;
}

/* Text to the end of the line, at most PT_TEXT_MAX bytes, cut before a UTF-8 sequence a cut
   would split (Shout, ShoutRoom, Tell: what everyone reads stays UTF-8). */
static void text_rest(const char *p, char out[PT_TEXT_MAX + 1])
{
	snprintf(out, PT_TEXT_MAX + 1, "%.*s", (int)text_cut(p, PT_TEXT_MAX), p);
}

static bool is_client_char(int c)
{
	return isalnum(c) || c == '-' || c == '.';
}
static bool is_name_char(int c)
{
	return isalnum(c) || c == '_';
}
static bool is_pass_char(int c)
{
	return c > ' ' && c != 0x7F;
}
static bool is_lower(int c)
{
	return c >= 'a' && c <= 'z';
}
static bool is_room_char(int c)
{
	return c > ' ' && c != 0x7F;
}

/* [A-Z]\d: a square as playtak writes it. */
static bool square(const char **p, char sq[3])
{
	const char *s = *p;
	if (!(s[0] >= 'A' && s[0] <= 'Z') || !isdigit((unsigned char)s[1]))
		return false;
	sq[0] = s[0];
	sq[1] = s[1];
	sq[2] = '\0';
	*p = s + 2;
	return true;
}

static bool flag01(const char **p, bool *v)
{
	if (**p != '0' && **p != '1')
		return false;
	*v = **p == '1';
	(*p)++;
	return true;
}

/* The seek shapes, tried longest first as the server does (V3, V2, V1). */
static bool parse_seek(const char *p, struct pt_seek *k)
{
	long size, t, inc, komi, pieces, caps, trig, amount;
	bool unrated, tour;
	char colour = 'A';
	memset(k, 0, sizeof *k);
	/* ^Seek (\d) (\d+) (\d+) */
	if (!isdigit((unsigned char)p[0]))
		return false;
	size = p[0] - '0';
	p++;
	if (!lit(&p, " ") || !digits(&p, 9, &t) || !lit(&p, " ") || !digits(&p, 9, &inc))
		return false;
	k->size = (int)size;
	k->time_s = t;
	k->incr_s = inc;
	k->color = 'A';
	k->pieces = 0;
	k->caps = -1;
	const char *rest = p;
	/* V2/V3: " ([WBA]) (\d+) (\d+) (\d+) (0|1) (0|1) ..." */
	if (p[0] == ' ' && (p[1] == 'W' || p[1] == 'B' || p[1] == 'A') && p[2] == ' ') {
		colour = p[1];
		p += 3;
		if (digits(&p, 9, &komi) && lit(&p, " ") && digits(&p, 9, &pieces) &&
		    lit(&p, " ") && digits(&p, 9, &caps) && lit(&p, " ") && flag01(&p, &unrated) &&
		    lit(&p, " ") && flag01(&p, &tour) && lit(&p, " ")) {
			const char *v3 = p;
			/* V3: (\d+) (\d+) ([A-Za-z0-9_]*) */
			if (digits(&p, 9, &trig) && lit(&p, " ") && digits(&p, 9, &amount) &&
			    lit(&p, " ")) {
				k->shape = 3;
				k->trigger = trig;
				k->amount = amount;
			} else {
				p = v3;
				k->shape = 2;
			}
			run(&p, is_name_char, 0, PT_NAME_MAX, k->opponent, sizeof k->opponent);
			k->color = colour;
			k->komi = (int)komi;
			k->pieces = (int)pieces;
			k->caps = (int)caps;
			k->unrated = unrated;
			k->tournament = tour;
			return true;
		}
		p = rest;
	}
	/* V1: "( [WB])?" */
	k->shape = 1;
	if (p[0] == ' ' && (p[1] == 'W' || p[1] == 'B'))
		k->color = p[1];
	return true;
}

enum pt_cmd pt_parse(const char *line, struct pt_line *l)
{
	const char *p = line;
	long v;
	memset(l, 0, sizeof *l);
	if (strcmp(line, "PING") == 0)
		return l->cmd = PT_PING;
	if (strcmp(line, "quit") == 0)
		return l->cmd = PT_QUIT;
	if (lit(&p, "Client ")) {
		if (run(&p, is_client_char, 1, 60, l->name, sizeof l->name))
			l->cmd = PT_CLIENT;
	} else if (lit(&p, "Protocol ")) {
		if (*p >= '1' && *p <= '9' && digits(&p, 9, &v)) {
			l->protocol = v;
			l->cmd = PT_PROTOCOL;
		}
	} else if (lit(&p, "Login Guest")) {
		/* ^Login Guest ?(([a-z]{20})?) */
		lit(&p, " ");
		char tok[PT_NAME_MAX + 1] = "";
		if (run(&p, is_lower, 20, 20, tok, sizeof tok))
			snprintf(l->name, sizeof l->name, "%s", tok);
		l->cmd = PT_LOGIN_GUEST;
	} else if (lit(&p, "Login ")) {
		/* ^Login ([a-zA-Z][a-zA-Z0-9_]{3,15}) ([^\n\r\s]{6,50}) */
		if (isalpha((unsigned char)*p) &&
		    run(&p, is_name_char, 4, 16, l->name, sizeof l->name) && lit(&p, " ") &&
		    run(&p, is_pass_char, 6, 50, l->pass, sizeof l->pass))
			l->cmd = PT_LOGIN;
	} else if (lit(&p, "Register ")) {
		if (isalpha((unsigned char)*p) &&
		    run(&p, is_name_char, 4, 16, l->name, sizeof l->name) && lit(&p, " ") &&
		    run(&p, is_pass_char, 1, PT_NAME_MAX, l->pass, sizeof l->pass))
			l->cmd = PT_REGISTER;
	} else if (lit(&p, "Seek ")) {
		if (parse_seek(p, &l->seek))
			l->cmd = PT_SEEK;
	} else if (lit(&p, "Accept ")) {
		if (digits(&p, 18, &v)) {
			l->game = v;
			l->cmd = PT_ACCEPT;
		}
	} else if (lit(&p, "GameList")) {
		l->cmd = PT_GAMELIST;
	} else if (lit(&p, "List")) {
		l->cmd = PT_LIST;
	} else if (lit(&p, "Observe ") || lit(&p, "Unobserve ")) {
		if (digits(&p, 18, &v)) {
			l->game = v;
			l->cmd = line[0] == 'U' ? PT_UNOBSERVE : PT_OBSERVE;
		}
	} else if (lit(&p, "Shout ")) {
		if (*p != '\0') { /* ^Shout ([^\n\r]{1,256}) */
			text_rest(p, l->text);
			l->cmd = PT_SHOUT;
		}
	} else if (lit(&p, "JoinRoom ") || lit(&p, "LeaveRoom ")) {
		/* ^JoinRoom ([^\n\r\s]{1,64}) */
		if (run(&p, is_room_char, 1, 64, l->name, sizeof l->name))
			l->cmd = line[0] == 'J' ? PT_JOIN_ROOM : PT_LEAVE_ROOM;
	} else if (lit(&p, "ShoutRoom ")) {
		/* ^ShoutRoom ([^\n\r\s]{1,64}) ([^\n\r]{1,256}) */
		if (run(&p, is_room_char, 1, 64, l->name, sizeof l->name) && lit(&p, " ") &&
		    *p != '\0') {
			text_rest(p, l->text);
			l->cmd = PT_SHOUT_ROOM;
		}
	} else if (lit(&p, "Rematch ")) {
		if (digits(&p, 18, &v)) {
			l->game = v;
			l->cmd = PT_REMATCH;
		}
	} else if (lit(&p, "Tell ")) {
		if (run(&p, is_name_char, 1, PT_NAME_MAX, l->name, sizeof l->name) &&
		    lit(&p, " ") && *p != '\0') {
			text_rest(p, l->text);
			l->cmd = PT_TELL;
		}
	} else if (lit(&p, "Game#")) {
		if (!digits(&p, 18, &v) || !lit(&p, " "))
			return l->cmd;
		l->game = v;
		static const struct {
			const char *word;
			enum pt_cmd cmd;
		} simple[] = {{"OfferDraw", PT_OFFER_DRAW},
		              {"RemoveDraw", PT_REMOVE_DRAW},
		              {"RequestUndo", PT_REQUEST_UNDO},
		              {"RemoveUndo", PT_REMOVE_UNDO},
		              {"Resign", PT_RESIGN},
		              {"Show", PT_SHOW}};
		for (size_t i = 0; i < sizeof simple / sizeof simple[0]; i++)
			if (lit(&p, simple[i].word))
				return l->cmd = simple[i].cmd;
		if (lit(&p, "P ") && square(&p, l->from)) {
			/* ( C)?( W)? */
			if (lit(&p, " C"))
				l->piece = 'C';
			if (l->piece == 0 && lit(&p, " W"))
				l->piece = 'W';
			l->cmd = PT_PLACE;
		} else if (lit(&p, "M ") && square(&p, l->from) && lit(&p, " ") &&
		           square(&p, l->to)) {
			/* (( \d)+) */
			while (l->ndrops < 8 && p[0] == ' ' && isdigit((unsigned char)p[1])) {
				l->drops[l->ndrops++] = p[1] - '0';
				p += 2;
			}
			if (l->ndrops > 0)
				l->cmd = PT_MOVE;
		}
	}
	return l->cmd;
}

static bool on_board(const char sq[3])
{
	return sq[0] >= 'A' && sq[0] <= 'H' && sq[1] >= '1' && sq[1] <= '8';
}

int pt_to_ptn(const struct pt_line *l, char *buf, size_t len)
{
	int n;
	if (l->cmd == PT_PLACE) {
		if (!on_board(l->from))
			return -1;
		n = snprintf(buf, len, "%s%c%c",
		             l->piece == 'C'   ? "C"
		             : l->piece == 'W' ? "S"
		                               : "",
		             tolower((unsigned char)l->from[0]), l->from[1]);
		return n < 0 || (size_t)n >= len ? -1 : n;
	}
	if (l->cmd != PT_MOVE || !on_board(l->from) || !on_board(l->to))
		return -1;
	int dx = l->to[0] - l->from[0], dy = l->to[1] - l->from[1];
	char dir = dx > 0 && dy == 0   ? '>'
	           : dx < 0 && dy == 0 ? '<'
	           : dy > 0 && dx == 0 ? '+'
	           : dy < 0 && dx == 0 ? '-'
	                               : 0;
	int dist = abs(dx) + abs(dy), count = 0;
	if (dir == 0 || dist != l->ndrops)
		return -1;
	char drops[9];
	for (int i = 0; i < l->ndrops; i++) {
		if (l->drops[i] < 1)
			return -1;
		count += l->drops[i];
		drops[i] = (char)('0' + l->drops[i]);
	}
	drops[l->ndrops] = '\0';
	if (count > 8)
		return -1;
	n = snprintf(buf, len, "%d%c%c%c%s", count, tolower((unsigned char)l->from[0]), l->from[1],
	             dir, drops);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

int pt_from_ptn(const char *ptn, char *buf, size_t len)
{
	const char *p = ptn;
	int count = 0, n;
	char stone = 0;
	if (*p == 'F' || *p == 'S' || *p == 'C')
		stone = *p++;
	else if (*p >= '1' && *p <= '8')
		count = *p++ - '0';
	if (p[0] < 'a' || p[0] > 'h' || p[1] < '1' || p[1] > '8')
		return -1;
	char file = (char)toupper((unsigned char)p[0]), rank = p[1];
	p += 2;
	const char *dirs = "+-<>";
	if (*p == '\0' || strchr("'\"*!?", *p) != NULL) {
		if (count != 0)
			return -1;
		n = snprintf(buf, len, "P %c%c%s", file, rank,
		             stone == 'S'   ? " W"
		             : stone == 'C' ? " C"
		                            : "");
		return n < 0 || (size_t)n >= len ? -1 : n;
	}
	if (stone != 0 || strchr(dirs, *p) == NULL)
		return -1;
	char dir = *p++;
	if (count == 0)
		count = 1;
	int drops[8], nd = 0, sum = 0;
	while (*p >= '1' && *p <= '8' && nd < 8) {
		drops[nd] = *p++ - '0';
		sum += drops[nd++];
	}
	if (nd == 0) {
		drops[nd++] = count;
		sum = count;
	}
	if (sum != count)
		return -1;
	if (*p == 'F' || *p == 'S' || *p == 'C')
		p++;
	while (*p != '\0' && strchr("'\"*!?", *p) != NULL)
		p++;
	if (*p != '\0')
		return -1;
	int tx = file + (dir == '>' ? nd : dir == '<' ? -nd : 0);
	int ty = rank + (dir == '+' ? nd : dir == '-' ? -nd : 0);
	if (tx < 'A' || tx > 'H' || ty < '1' || ty > '8')
		return -1;
	n = snprintf(buf, len, "M %c%c %c%c", file, rank, tx, ty);
	for (int i = 0; i < nd && n >= 0 && (size_t)n < len; i++)
		n += snprintf(buf + n, len - (size_t)n, " %d", drops[i]);
	return n < 0 || (size_t)n >= len ? -1 : n;
}

/* snprintf's result as a length that fits, or -1. */
static int fitted(int n, size_t len)
{
	return n < 0 || (size_t)n >= len ? -1 : n;
}

int pt_format_seek(char *buf, size_t len, long protocol, const struct pt_seekinfo *k)
{
	int n = snprintf(buf, len, "%lld %s %d %ld %ld %c %d %d %d %d %d %ld %ld ", k->id, k->name,
	                 k->size, k->time_s, k->incr_s, k->color, k->komi, k->pieces, k->caps,
	                 k->unrated, k->tournament, k->trigger, k->amount);
	if (fitted(n, len) < 0)
		return -1;
	const char *opp = k->opponent != NULL ? k->opponent : "";
	if (protocol <= 1)
		return fitted(n + snprintf(buf + n, len - (size_t)n, "%s", opp), len);
	return fitted(n + snprintf(buf + n, len - (size_t)n, "%s %d", opp[0] ? opp : "0", k->bot),
	              len);
}

int pt_format_game(char *buf, size_t len, const struct pt_gameinfo *g)
{
	return fitted(snprintf(buf, len, "%lld %s %s %d %ld %ld %d %d %d %d %d %ld %ld", g->id,
	                       g->white, g->black, g->size, g->time_s, g->incr_s, g->komi,
	                       g->pieces, g->caps, g->unrated, g->tournament, g->trigger,
	                       g->amount),
	              len);
}

int pt_format_game_start(char *buf, size_t len, long protocol, const struct pt_gameinfo *g,
                         bool white)
{
	const char *colour = white ? "white" : "black";
	if (protocol < 2)
		return fitted(snprintf(buf, len,
		                       "Game Start %lld %d %s vs %s %s %ld %d %d %d %ld %ld", g->id,
		                       g->size, g->white, g->black, colour, g->time_s, g->komi,
		                       g->pieces, g->caps, g->trigger, g->amount),
		              len);
	return fitted(snprintf(buf, len,
	                       "Game Start %lld %s vs %s %s %d %ld %ld %d %d %d %d %d %ld %ld %d",
	                       g->id, g->white, g->black, colour, g->size, g->time_s, g->incr_s,
	                       g->komi, g->pieces, g->caps, g->unrated, g->tournament, g->trigger,
	                       g->amount, g->bot),
	              len);
}
