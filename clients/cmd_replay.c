/*
 * cmd_replay.c - `bitarena replay FILE`: reads a game record and plays it
 * through the game's engine, drawing the position after every ply, or after
 * every turn of a simultaneous game (with --delay-ms N, N ms apart, to watch
 * it unfold). Stops with an error naming the ply at the first move the
 * engine refuses.
 *
 * The record format and its replay are the core's (src/games/record.h:
 * tags, numbered moves, quoted move texts, {comments}, PTN as other
 * programs write it, a result token). The game comes from the Game tag,
 * else a Kind tag, else Tak when there is a Size tag; options, size and seed
 * are set up by record_replay_start(), so the start position is exactly the
 * server's, and every move goes through the one move-list replayer
 * (record_replay_move()).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "games/record.h"

#define REPLAY_MAX_FILE (16 * 1024 * 1024)

/* Reads a whole file (or stdin for "-"); *len its size. NULL on error. Caller frees. */
static char *read_file(const char *path, size_t *len)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (f == NULL)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf != NULL) {
		if (n == cap) {
			char *b = cap < REPLAY_MAX_FILE ? realloc(buf, cap *= 2) : NULL;
			if (b == NULL) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n, f);
		n += got;
		if (got == 0)
			break;
	}
	if (buf != NULL && ferror(f)) {
		free(buf);
		buf = NULL;
	}
	if (f != stdin)
		fclose(f);
	*len = n;
	return buf;
}

static void draw(const struct game_ops *ops, const void *st, char *buf, size_t len)
{
	if (ops->render_text != NULL && ops->render_text(st, -1, buf, len) >= 0)
		printf("%s%s", buf, buf[0] && buf[strlen(buf) - 1] == '\n' ? "" : "\n");
}

static const char *seat_name(const struct game_ops *ops, int seat)
{
	return seat >= 0 && seat < ops->nplayers && ops->seat_names[seat] ? ops->seat_names[seat]
	                                                                  : "?";
}

/* The canonical text of move i of r, played for seat in position before (else as written). */
static void move_text(const struct game_ops *ops, const void *before, const struct record *r,
                      size_t i, int seat, char *out, size_t len)
{
	game_move m;
	const char *text = r->moves[i];
	switch (game_act_of_text(text)) {
	case GAME_ACT_NONE:
		snprintf(out, len, "(nothing in time)");
		return;
	case GAME_ACT_INVALID:
		snprintf(out, len, "(invalid)");
		return;
	case GAME_ACT_MOVE:
		break;
	}
	if (ops->parse_move(before, seat, text, &m, NULL) < 0 ||
	    ops->format_move(before, m, out, len) < 0)
		snprintf(out, len, "%s", text);
}

/* The seat move i is for: the seat to move, or the next of the open simultaneous turn. */
static int seat_of(const struct game_replay *rp)
{
	unsigned open = rp->ops->to_move(rp->st) & ~rp->acted;
	return open ? __builtin_ctz(open) : -1;
}

static int replay(const struct record *r, bool quiet, int delay_ms)
{
	const struct game_ops *ops = NULL;
	const char *kind = record_tag(r, "Game");
	if (kind == NULL && (kind = record_tag(r, "Kind")) != NULL &&
	    (ops = game_find(kind)) == NULL) {
		fprintf(stderr, "bitarena replay: unknown game '%s'\n", kind);
		return 1;
	}
	void *st = calloc(1, GAME_STATE_MAX), *before = calloc(1, GAME_STATE_MAX);
	size_t blen = 16384;
	char *buf = malloc(blen), *line = malloc(blen);
	int rc = 1;
	if (st == NULL || before == NULL || buf == NULL || line == NULL)
		goto out;
	struct game_replay rp;
	if (record_replay_start(r, ops, st, &rp, &ops) < 0) {
		if (ops == NULL)
			fprintf(stderr,
			        "bitarena replay: the record names no known game (tag Game%s%s)\n",
			        kind ? ": " : "", kind ? kind : "");
		else
			fprintf(stderr, "bitarena replay: %s: bad options, size or seed tags\n",
			        ops->name);
		goto out;
	}
	bool sim = (ops->flags & GAME_SIMULTANEOUS) != 0;
	printf("%s, %zu moves\n", ops->title, r->nmoves);
	if (!quiet)
		draw(ops, st, buf, blen);
	line[0] = '\0';
	for (size_t i = 0; i < r->nmoves; i++) {
		int seat = seat_of(&rp);
		const char *why = NULL;
		char text[GAME_MOVE_TEXT];
		memcpy(before, st, ops->state_size);
		int e = record_replay_move(r, i, &rp, &why);
		if (e == GAME_EOVER) {
			fprintf(stderr, "bitarena replay: ply %zu (%s): the game is already over\n",
			        i + 1, r->moves[i]);
			goto out;
		}
		if (e < 0) {
			fprintf(stderr, "bitarena replay: ply %zu (%s for %s): %s\n", i + 1,
			        r->moves[i], seat_name(ops, seat), why ? why : game_strerror(e));
			goto out;
		}
		move_text(ops, before, r, i, seat, text, sizeof text);
		size_t at = strlen(line);
		snprintf(line + at, blen - at, "%s%s (%s)", at ? "; " : "", text,
		         seat_name(ops, seat));
		if (e != GAME_REPLAY_MADE)
			continue;
		if (!quiet) {
			if (delay_ms > 0) {
				fflush(stdout);
				nanosleep(&(struct timespec){delay_ms / 1000,
				                             delay_ms % 1000 * 1000000L},
				          NULL);
			}
			printf("\n%s%zu. %s\n", sim ? "turn " : "", sim ? (size_t)rp.ply : i + 1,
			       line);
			draw(ops, st, buf, blen);
		}
		line[0] = '\0';
	}
	if (rp.entries > rp.whole)
		printf("note: the last turn is not complete (%s)\n", line);
	struct game_result res;
	ops->result(st, &res);
	if (quiet)
		draw(ops, st, buf, blen);
	if (res.over)
		printf("result: %s (%s)\n", game_result_score(&res), res.reason ? res.reason : "?");
	else
		printf("result: * (game not finished)\n");
	if (r->result != NULL && strcmp(r->result, "*") != 0 && res.over &&
	    strcmp(r->result, game_result_score(&res)) != 0)
		printf("note: the record says %s\n", r->result);
	rc = 0;
out:
	free(st);
	free(before);
	free(buf);
	free(line);
	return rc;
}

int cmd_replay(int argc, char **argv)
{
	const char *path = NULL;
	bool quiet = false;
	int delay_ms = 0;
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quiet") == 0)
			quiet = true;
		else if (strcmp(argv[i], "--delay-ms") == 0 && i + 1 < argc &&
		         (delay_ms = atoi(argv[i + 1])) >= 0 && delay_ms <= 60000)
			i++;
		else if (path == NULL && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0))
			path = argv[i];
		else
			return cli_usage("replay");
	}
	if (path == NULL)
		return cli_usage("replay");
	size_t len;
	char *text = read_file(path, &len);
	if (text == NULL) {
		fprintf(stderr,
		        "bitarena replay: cannot read %s (missing, unreadable or over 16 MiB)\n",
		        path);
		return 1;
	}
	struct record r;
	int line = 0, rc = 1, e = record_parse(text, len, &r, &line);
	if (e == RECORD_ESYNTAX)
		fprintf(stderr, "bitarena replay: %s:%d: %s\n", path, line, record_strerror(e));
	else if (e < 0)
		fprintf(stderr, "bitarena replay: %s: %s\n", path, record_strerror(e));
	else
		rc = replay(&r, quiet, delay_ms);
	record_clear(&r);
	free(text);
	return rc;
}
