/*
 * cmd_replay.c - `bitarena replay FILE`: reads a game record and plays it
 * through the game's engine, drawing the position after every move (with
 * --delay-ms N, N ms apart, to watch it unfold). Stops with an error naming
 * the ply at the first move the engine refuses.
 *
 * The record is read by the server's own parser (record_parse, see
 * src/server/record.h: tags, numbered moves, quoted move texts, {comments},
 * PTN as other programs write it, a result token). The game comes from the
 * Game tag, else a Kind tag, else Tak when there is a Size tag; options,
 * size and seed are set up by record_replay() on the record without its
 * moves, so the start position is exactly the server's. Simultaneous games
 * (Xmas Rush) are not replayed here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli.h"
#include "server/record.h"

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

static int replay(const struct record *r, bool quiet, int delay_ms)
{
	const struct game_ops *ops = NULL;
	const char *kind = record_tag(r, "Game");
	if (kind == NULL && (kind = record_tag(r, "Kind")) != NULL &&
	    (ops = game_find(kind)) == NULL) {
		fprintf(stderr, "bitarena replay: unknown game '%s'\n", kind);
		return 1;
	}
	void *st = calloc(1, GAME_STATE_MAX);
	size_t blen = 16384;
	char *buf = malloc(blen);
	int rc = 1;
	if (st == NULL || buf == NULL)
		goto out;
	/* the start position: the record without its moves */
	struct record start = *r;
	start.nmoves = 0;
	int bad, e = record_replay(&start, ops, st, &ops, &bad);
	if (e < 0) {
		if (ops == NULL)
			fprintf(stderr,
			        "bitarena replay: the record names no known game (tag Game%s%s)\n",
			        kind ? ": " : "", kind ? kind : "");
		else
			fprintf(stderr, "bitarena replay: %s: %s\n", ops->name,
			        e == RECORD_EGAME ? "bad options, size or seed tags"
			                          : record_strerror(e));
		goto out;
	}
	printf("%s, %zu moves\n", ops->title, r->nmoves);
	if (!quiet)
		draw(ops, st, buf, blen);
	for (size_t i = 0; i < r->nmoves; i++) {
		int seat = game_seat_to_move(ops, st);
		game_move m;
		const char *why = NULL;
		if (seat < 0) {
			fprintf(stderr, "bitarena replay: ply %zu (%s): the game is already over\n",
			        i + 1, r->moves[i]);
			goto out;
		}
		e = ops->parse_move(st, seat, r->moves[i], &m, &why);
		if (e < 0) {
			fprintf(stderr, "bitarena replay: ply %zu (%s for %s): %s\n", i + 1,
			        r->moves[i], ops->seat_names[seat] ? ops->seat_names[seat] : "?",
			        why ? why : game_strerror(e));
			goto out;
		}
		char text[GAME_MOVE_TEXT];
		if (ops->format_move(st, m, text, sizeof text) < 0)
			snprintf(text, sizeof text, "%s", r->moves[i]);
		if ((e = ops->apply(st, m)) < 0) {
			fprintf(stderr, "bitarena replay: ply %zu (%s): %s\n", i + 1, r->moves[i],
			        game_strerror(e));
			goto out;
		}
		if (!quiet) {
			if (delay_ms > 0) {
				fflush(stdout);
				nanosleep(&(struct timespec){delay_ms / 1000,
				                             delay_ms % 1000 * 1000000L},
				          NULL);
			}
			printf("\n%zu. %s (%s)\n", i + 1, text,
			       ops->seat_names[seat] ? ops->seat_names[seat] : "?");
			draw(ops, st, buf, blen);
		}
	}
	struct game_result res;
	ops->result(st, &res);
	if (quiet)
		draw(ops, st, buf, blen);
	if (res.over)
		printf("result: %s (%s)\n", res.score, res.reason ? res.reason : "?");
	else
		printf("result: * (game not finished)\n");
	if (r->result != NULL && strcmp(r->result, "*") != 0 && res.over &&
	    strcmp(r->result, res.score) != 0)
		printf("note: the record says %s\n", r->result);
	rc = 0;
out:
	free(st);
	free(buf);
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
