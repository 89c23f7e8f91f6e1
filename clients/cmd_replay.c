/*
 * cmd_replay.c - `bitarena replay FILE`: reads a game record and plays it
 * through the game's engine, drawing the position after every move. Stops
 * with an error naming the ply at the first move the engine refuses.
 *
 * The reader is tolerant (the format is that of src/server/record.h; PTN as
 * other programs write it works too): tag lines [Key "value"] anywhere,
 * {comments}, move numbers ("1.", "1...", also glued to a move: "1.a1"),
 * moves in double quotes when they hold spaces, and a result token
 * ("1-0", "0-1", "1/2-1/2", "R-0", "0-F", "*", ...) that ends the moves.
 * The kind comes from the Game or Kind tag (a Size tag alone means Tak);
 * options from the Options tag ("m=5 n=5 k=4") and from Size; the seed from
 * Seed. Simultaneous games (Xmas Rush) are not replayed here.
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli.h"

#define REPLAY_MAX_FILE (16 * 1024 * 1024)
#define REPLAY_TAGS     32

struct tag {
	char key[33];
	char value[1025];
};

struct rec {
	struct tag tags[REPLAY_TAGS];
	int ntags;
	char **moves; /* owned */
	size_t nmoves, cap;
	char result[32];
};

static const char *tag_value(const struct rec *r, const char *key)
{
	for (int i = 0; i < r->ntags; i++)
		if (strcasecmp(r->tags[i].key, key) == 0)
			return r->tags[i].value;
	return NULL;
}

static void rec_free(struct rec *r)
{
	for (size_t i = 0; i < r->nmoves; i++)
		free(r->moves[i]);
	free(r->moves);
}

static int add_move(struct rec *r, const char *text, size_t len)
{
	if (len == 0 || len >= GAME_MOVE_TEXT)
		return -1;
	if (r->nmoves == r->cap) {
		size_t cap = r->cap ? 2 * r->cap : 64;
		char **m = realloc(r->moves, cap * sizeof *m);
		if (m == NULL)
			return -1;
		r->moves = m;
		r->cap = cap;
	}
	if ((r->moves[r->nmoves] = strndup(text, len)) == NULL)
		return -1;
	r->nmoves++;
	return 0;
}

/* "1-0", "0-1", "1/2-1/2", "R-0", "0-F", "5-3", "*": a result, not a move. */
static bool is_result(const char *t, size_t len)
{
	if (len == 1 && t[0] == '*')
		return true;
	const char *dash = memchr(t, '-', len);
	if (dash == NULL || dash == t || dash == t + len - 1)
		return false;
	for (int side = 0; side < 2; side++) {
		const char *a = side ? dash + 1 : t;
		size_t n = side ? (size_t)(t + len - dash - 1) : (size_t)(dash - t);
		bool ok = (n == 1 && (a[0] == 'R' || a[0] == 'F')) ||
		          (n == 3 && strncmp(a, "1/2", 3) == 0);
		if (!ok) {
			ok = n > 0;
			for (size_t i = 0; i < n; i++)
				ok = ok && isdigit((unsigned char)a[i]);
		}
		if (!ok)
			return false;
	}
	return true;
}

/* Parses a tag line starting at p ('['); returns the position after ']' or NULL. */
static const char *parse_tag(struct rec *r, const char *p, int line)
{
	const char *k = ++p;
	while (isalnum((unsigned char)*p) || *p == '_')
		p++;
	size_t klen = (size_t)(p - k);
	while (*p == ' ' || *p == '\t')
		p++;
	if (klen == 0 || klen >= sizeof r->tags[0].key || *p != '"') {
		fprintf(stderr, "bitarena replay: line %d: malformed tag\n", line);
		return NULL;
	}
	char value[sizeof r->tags[0].value];
	size_t n = 0;
	for (p++; *p != '"'; p++) {
		if (*p == '\0' || *p == '\n' || n + 1 >= sizeof value) {
			fprintf(stderr, "bitarena replay: line %d: unterminated tag value\n", line);
			return NULL;
		}
		if (*p == '\\' && (p[1] == '"' || p[1] == '\\'))
			p++;
		value[n++] = *p;
	}
	value[n] = '\0';
	for (p++; *p == ' ' || *p == '\t'; p++)
		;
	if (*p != ']') {
		fprintf(stderr, "bitarena replay: line %d: tag without ']'\n", line);
		return NULL;
	}
	if (r->ntags < REPLAY_TAGS) {
		struct tag *t = &r->tags[r->ntags++];
		memcpy(t->key, k, klen);
		t->key[klen] = '\0';
		memcpy(t->value, value, n + 1);
	}
	return p + 1;
}

static int parse_record(const char *text, struct rec *r)
{
	int line = 1;
	for (const char *p = text; *p;) {
		if (*p == '\n')
			line++;
		if (isspace((unsigned char)*p)) {
			p++;
		} else if (*p == '[') {
			if ((p = parse_tag(r, p, line)) == NULL)
				return -1;
		} else if (*p == '{') {
			const char *end = strchr(p, '}');
			if (end == NULL) {
				fprintf(stderr, "bitarena replay: line %d: unterminated comment\n", line);
				return -1;
			}
			for (; p < end; p++)
				line += *p == '\n';
			p = end + 1;
		} else if (r->result[0] != '\0') {
			fprintf(stderr, "bitarena replay: line %d: text after the result\n", line);
			return -1;
		} else if (*p == '"') {
			const char *end = strchr(p + 1, '"');
			if (end == NULL || memchr(p, '\n', (size_t)(end - p)) != NULL ||
			    add_move(r, p + 1, (size_t)(end - p - 1)) < 0) {
				fprintf(stderr, "bitarena replay: line %d: bad quoted move\n", line);
				return -1;
			}
			p = end + 1;
		} else {
			const char *s = p;
			while (*p && !isspace((unsigned char)*p) && *p != '{' && *p != '[')
				p++;
			size_t len = (size_t)(p - s);
			size_t d = 0;
			while (d < len && isdigit((unsigned char)s[d]))
				d++;
			if (d > 0 && d < len && s[d] == '.') { /* a move number, maybe glued */
				while (d < len && s[d] == '.')
					d++;
				s += d;
				len -= d;
				if (len == 0)
					continue;
			}
			if (is_result(s, len)) {
				snprintf(r->result, sizeof r->result, "%.*s", (int)len, s);
			} else if (add_move(r, s, len) < 0) {
				fprintf(stderr, "bitarena replay: line %d: bad move '%.*s'\n", line,
				        (int)len, s);
				return -1;
			}
		}
	}
	return 0;
}

static char *read_file(const char *path)
{
	FILE *f = strcmp(path, "-") == 0 ? stdin : fopen(path, "rb");
	if (f == NULL)
		return NULL;
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	while (buf != NULL) {
		if (n + 1 >= cap) {
			char *b = cap < REPLAY_MAX_FILE ? realloc(buf, cap *= 2) : NULL;
			if (b == NULL) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = b;
		}
		size_t got = fread(buf + n, 1, cap - n - 1, f);
		n += got;
		if (got == 0)
			break;
	}
	if (buf != NULL && (ferror(f) || memchr(buf, '\0', n) != NULL)) {
		free(buf);
		buf = NULL;
	}
	if (buf != NULL)
		buf[n] = '\0';
	if (f != stdin)
		fclose(f);
	return buf;
}

/* Sets the engine's parameters from the Options and Size tags. */
static int record_params(const struct game_ops *ops, const struct rec *r, struct game_params *p)
{
	game_params_default(ops, p);
	const char *opts = tag_value(r, "Options"), *size = tag_value(r, "Size");
	char buf[1100];
	if (opts == NULL && size != NULL) {
		snprintf(buf, sizeof buf, "size=%s", size);
		opts = buf;
	} else if (opts != NULL) {
		snprintf(buf, sizeof buf, "%s", opts);
		opts = buf;
	}
	if (opts == NULL)
		return 0;
	char *save = NULL;
	for (char *w = strtok_r(buf, " \t,", &save); w; w = strtok_r(NULL, " \t,", &save)) {
		const char *why = NULL;
		if (game_param_word(ops, p, w, &why) < 0) { /* words the engine does not own are skipped */
			fprintf(stderr, "bitarena replay: option %s: %s\n", w, why ? why : "rejected");
			return -1;
		}
	}
	return 0;
}

static void draw(const struct game_ops *ops, const void *st, char *buf, size_t len)
{
	if (ops->render_text != NULL && ops->render_text(st, -1, buf, len) >= 0)
		printf("%s%s", buf, buf[0] && buf[strlen(buf) - 1] == '\n' ? "" : "\n");
}

static int replay(const struct rec *r, bool quiet)
{
	const char *kind = tag_value(r, "Game");
	if (kind == NULL)
		kind = tag_value(r, "Kind");
	if (kind == NULL && tag_value(r, "Size") != NULL)
		kind = "tak";
	if (kind == NULL) {
		fprintf(stderr, "bitarena replay: the record names no game (tag Game or Kind)\n");
		return 1;
	}
	const struct game_ops *ops = game_find(kind);
	if (ops == NULL) {
		fprintf(stderr, "bitarena replay: unknown game '%s'\n", kind);
		return 1;
	}
	if (ops->apply == NULL) {
		fprintf(stderr, "bitarena replay: %s has simultaneous turns; replay needs a sequential game\n",
		        ops->name);
		return 1;
	}
	struct game_params p;
	if (record_params(ops, r, &p) < 0)
		return 1;
	const char *seed_tag = tag_value(r, "Seed");
	uint64_t seed = seed_tag ? strtoull(seed_tag, NULL, 10) : 0;
	void *st = calloc(1, ops->state_size);
	size_t blen = 16384;
	char *buf = malloc(blen);
	int rc = 1;
	if (st == NULL || buf == NULL)
		goto out;
	int e = ops->init(st, &p, seed);
	if (e < 0) {
		fprintf(stderr, "bitarena replay: %s: %s\n", ops->name, game_strerror(e));
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
			fprintf(stderr, "bitarena replay: ply %zu (%s): the game is already over\n", i + 1,
			        r->moves[i]);
			goto out;
		}
		e = ops->parse_move(st, seat, r->moves[i], &m, &why);
		if (e < 0) {
			fprintf(stderr, "bitarena replay: ply %zu (%s for %s): %s\n", i + 1, r->moves[i],
			        ops->seat_names[seat] ? ops->seat_names[seat] : "?",
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
	if (r->result[0] && strcmp(r->result, "*") != 0 && res.over &&
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
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--quiet") == 0)
			quiet = true;
		else if (path == NULL && (argv[i][0] != '-' || strcmp(argv[i], "-") == 0))
			path = argv[i];
		else
			return cli_usage("replay");
	}
	if (path == NULL)
		return cli_usage("replay");
	char *text = read_file(path);
	if (text == NULL) {
		fprintf(stderr, "bitarena replay: cannot read %s (missing, unreadable, binary or over 16 MiB)\n",
		        path);
		return 1;
	}
	struct rec *r = calloc(1, sizeof *r);
	int rc = 1;
	if (r != NULL && parse_record(text, r) == 0)
		rc = replay(r, quiet);
	if (r != NULL)
		rec_free(r);
	free(r);
	free(text);
	return rc;
}
