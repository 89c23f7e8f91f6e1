/*
 * fuzz_proto.c - fuzz target for the text protocol without sockets: bytes
 * through the line framer (src/server/framing.h), then every complete line
 * the way the server takes it: frame_line_valid(), proto_parse() and, by
 * verb, the login name, id, seek option, time control and move parsers
 * (src/server/proto.h).
 *
 * Checked:
 *  - the framer gives the same events and lines whether the input comes in
 *    one piece or in small chunks (sizes taken from the input itself), and a
 *    line holds at most FRAME_MAX bytes and no CR or LF;
 *  - a telnet negotiation is answered as framing.h says: WILL TIMING-MARK to
 *    DO TIMING-MARK, WONT to any other DO, DONT to WILL, nothing to WONT and
 *    DONT (so no negotiation can loop);
 *  - a valid line (frame_line_valid) holds no NUL;
 *  - a parsed request respects the command table: argc within min..max,
 *    every argument but a rest-of-line one is a non-empty word without
 *    blanks, a tag is 1..32 word characters; ids are 1..2^53-1;
 *  - an accepted seek's options make a game, its time control writes back
 *    (seek_format_time) to a text that parses to the same times, and its
 *    option text fits;
 *  - a move text is refused or parsed like any move (seat to move, start
 *    position) in each game.
 */
#include <ctype.h>
#include <stdalign.h>
#include <string.h>

#include "fuzz.h"
#include "server/net/framing.h"
#include "server/cmd/commands.h"
#include "server/msg/proto.h"

const char fuzz_target_name[] = "proto";

/* One framer fed from data, chunk by chunk (chunk sizes from sizes[], 0 = all at once). */
struct feed {
	struct framer f;
	char line[FRAME_MAX + 1];
	const uint8_t *data;
	size_t size, at, chunk_end, nchunk;
	const uint8_t *sizes;
	size_t nsizes;
};

static void feed_init(struct feed *fd, const uint8_t *data, size_t size, const uint8_t *sizes,
                      size_t nsizes)
{
	memset(fd, 0, sizeof *fd);
	framer_init(&fd->f, fd->line);
	fd->data = data;
	fd->size = size;
	fd->sizes = sizes;
	fd->nsizes = nsizes;
	fd->chunk_end = 0;
}

/* The next event; FRAME_NEED_MORE only once every byte has been fed. */
static enum frame_event feed_next(struct feed *fd)
{
	for (;;) {
		if (fd->at == fd->chunk_end) {
			if (fd->at == fd->size)
				return FRAME_NEED_MORE;
			size_t k = fd->size - fd->at;
			if (fd->nsizes > 0) {
				size_t c = fd->sizes[fd->nchunk++ % fd->nsizes] % 17 + 1;
				if (c < k)
					k = c;
			}
			fd->chunk_end = fd->at + k;
		}
		size_t used = 0;
		enum frame_event ev =
		        framer_feed(&fd->f, fd->data + fd->at, fd->chunk_end - fd->at, &used);
		FUZZ_CHECK(used <= fd->chunk_end - fd->at);
		fd->at += used;
		if (ev != FRAME_NEED_MORE)
			return ev;
		FUZZ_CHECK(fd->at == fd->chunk_end);
	}
}

/* A negotiation is seen alike in one piece and in chunks, and answered as framing.h says. */
static void check_telnet(const struct framer *a, const struct framer *b)
{
	FUZZ_CHECK(a->tn_cmd == b->tn_cmd && a->tn_opt == b->tn_opt);
	unsigned char out[TELNET_ANSWER_MAX];
	struct framer t = *a; /* the server never offered its ECHO here: answers as ever */
	size_t n = telnet_answer(&t, a->tn_cmd, a->tn_opt, out);
	if (a->tn_cmd == TELNET_AYT) { /* are you there: a line that says yes */
		FUZZ_CHECK(a->tn_opt == 0 && n == sizeof TELNET_AYT_ANSWER - 1 &&
		           memcmp(out, TELNET_AYT_ANSWER, n) == 0);
		return;
	}
	FUZZ_CHECK(a->tn_cmd >= TELNET_WILL && a->tn_cmd <= TELNET_DONT);
	if (a->tn_cmd == TELNET_WONT || a->tn_cmd == TELNET_DONT) {
		FUZZ_CHECK(n == 0); /* never an answer to a refusal: no loop */
		return;
	}
	FUZZ_CHECK(n == 3 && out[0] == TELNET_IAC && out[2] == a->tn_opt);
	if (a->tn_cmd == TELNET_WILL)
		FUZZ_CHECK(out[1] == TELNET_DONT);
	else
		FUZZ_CHECK(out[1] == (a->tn_opt == TELNET_TIMING_MARK ? TELNET_WILL : TELNET_WONT));
}

static bool is_blank(char c)
{
	return c == ' ' || c == '\t';
}

static bool word_chars(const char *s)
{
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static void check_seek(const struct proto_req *rq)
{
	const struct game_ops *ops = game_find(rq->argv[0]);
	if (ops == NULL)
		return;
	struct seek_opts so;
	char err[160];
	err[0] = '\0';
	if (seek_opts_parse(ops, rq->argc - 1, rq->argv + 1, &so, err, sizeof err) < 0) {
		FUZZ_CHECK(err[0] != '\0' && strlen(err) < sizeof err);
		return;
	}
	alignas(max_align_t) static unsigned char st[GAME_STATE_MAX];
	FUZZ_CHECK(ops->state_size <= sizeof st && ops->init(st, &so.params, 0) == GAME_OK);
	FUZZ_CHECK(so.color >= -1 && so.color <= 1);
	if (ops->flags & GAME_SIMULTANEOUS)
		FUZZ_CHECK(!so.timed && so.turn_ms >= SEEK_TURN_MS_MIN &&
		           so.turn_ms <= SEEK_TURN_MS_MAX);
	if (so.timed) {
		char t[64];
		int64_t base = -1, inc = -1;
		seek_format_time(so.base_ms, so.inc_ms, t, sizeof t);
		FUZZ_CHECK(seek_parse_time(t, &base, &inc));
		if (base != so.base_ms || inc != so.inc_ms)
			fprintf(stderr, "time %lld+%lld ms written '%s' reads %lld+%lld\n",
			        (long long)so.base_ms, (long long)so.inc_ms, t, (long long)base,
			        (long long)inc);
		FUZZ_CHECK(base == so.base_ms && inc == so.inc_ms);
	}
	char opts[256];
	FUZZ_CHECK(game_params_text(ops, &so.params, false, opts, sizeof opts) >= 0);
	FUZZ_CHECK(game_params_text(ops, &so.params, true, opts, sizeof opts) >= 0);
}

/*
 * The move text of "move <game> <text>" in every game's start position. The start positions
 * are made once, on the first call (init() with the default options and seed 1 makes the
 * same position every time; Xmas Rush's, shuffling a league, cost more than the parsing).
 */
#define MAX_GAMES 16
static void check_move_text(const char *text)
{
	alignas(max_align_t) static unsigned char starts[MAX_GAMES][GAME_STATE_MAX];
	static int nstarts = -1;
	if (nstarts < 0) {
		for (nstarts = 0; game_table[nstarts] != NULL; nstarts++) {
			const struct game_ops *ops = game_table[nstarts];
			struct game_params p;
			FUZZ_CHECK(nstarts < MAX_GAMES && ops->state_size <= GAME_STATE_MAX);
			game_params_default(ops, &p);
			FUZZ_CHECK(ops->init(starts[nstarts], &p, 1) == GAME_OK);
		}
	}
	for (int i = 0; i < nstarts; i++) {
		const struct game_ops *ops = game_table[i];
		const void *st = starts[i];
		unsigned seats = ops->to_move(st);
		for (int s = 0; s < ops->nplayers; s++) {
			game_move m = 0;
			const char *why = NULL;
			int err = ops->parse_move(st, s, text, &m, &why);
			if (err != GAME_OK)
				continue;
			FUZZ_CHECK(seats & 1u << s);
			char back[GAME_MOVE_TEXT];
			FUZZ_CHECK(ops->format_move(st, m, back, sizeof back) > 0);
		}
	}
}

static void check_line(char *line, size_t len)
{
	if (!frame_line_valid(line, len))
		return;
	FUZZ_CHECK(strlen(line) == len);
	struct proto_req rq;
	int err = proto_parse(line, &commands_table, &rq);
	FUZZ_CHECK(strlen(rq.verb) < sizeof rq.verb);
	if (rq.tagged)
		FUZZ_CHECK(strlen(rq.tag) >= 1 && strlen(rq.tag) <= PROTO_TAG_MAX &&
		           word_chars(rq.tag));
	if (err == PROTO_EMPTY) {
		for (size_t i = 0; i < len; i++)
			FUZZ_CHECK(is_blank(line[i]));
		return;
	}
	if (err == PROTO_EUNKNOWN)
		FUZZ_CHECK(rq.cmd == NULL && proto_find(&commands_table, rq.verb) == NULL);
	if (err != PROTO_OK) {
		FUZZ_CHECK(err == PROTO_EBADTAG || err == PROTO_EUNKNOWN || err == PROTO_EARGS);
		return;
	}
	const struct proto_cmd *c = rq.cmd;
	FUZZ_CHECK(c != NULL && proto_find(&commands_table, c->name) == c);
	FUZZ_CHECK(rq.argc >= c->min && rq.argc <= c->max && rq.argc <= PROTO_MAX_ARGS);
	for (int i = 0; i < rq.argc; i++) {
		const char *a = rq.argv[i];
		FUZZ_CHECK(a >= line && a < line + len && a[0] != '\0' && !is_blank(a[0]));
		bool rest = (c->flags & PROTO_REST) && i == c->max - 1;
		if (!rest)
			FUZZ_CHECK(strchr(a, ' ') == NULL && strchr(a, '\t') == NULL);
		else
			FUZZ_CHECK(!is_blank(a[strlen(a) - 1]));
	}

	uint64_t id = 0;
	if (strcmp(c->name, "login") == 0 && proto_name_valid(rq.argv[0]))
		FUZZ_CHECK(strlen(rq.argv[0]) >= PROTO_NAME_MIN &&
		           strlen(rq.argv[0]) <= PROTO_NAME_MAX && word_chars(rq.argv[0]));
	if (strcmp(c->name, "seek") == 0)
		check_seek(&rq);
	if (strcmp(c->name, "move") == 0)
		check_move_text(rq.argv[1]);
	/* the verbs whose first argument the dispatcher resolves as an id */
	if ((c->flags & (CMD_GAME | CMD_GAME_ID | CMD_SEEK)) && proto_parse_id(rq.argv[0], &id))
		FUZZ_CHECK(id >= 1 && id <= PROTO_MAX_ID);
	if (strcmp(c->name, "help") == 0 && rq.argc == 1)
		(void)proto_find(&commands_table, rq.argv[0]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct feed *whole = malloc(sizeof *whole), *chunked = malloc(sizeof *chunked);
	char *line = malloc(FRAME_MAX + 1); /* all three owned here */
	if (whole == NULL || chunked == NULL || line == NULL)
		abort();
	/* chunk sizes: the first 8 bytes of the input, as they are */
	feed_init(whole, data, size, NULL, 0);
	feed_init(chunked, data, size, data, size < 8 ? size : 8);
	for (;;) {
		enum frame_event a = feed_next(whole), b = feed_next(chunked);
		FUZZ_CHECK(a == b);
		if (a == FRAME_NEED_MORE)
			break;
		if (a == FRAME_TOO_LONG || a == FRAME_SB_TOO_LONG)
			continue;
		if (a == FRAME_TELNET) {
			check_telnet(&whole->f, &chunked->f);
			continue;
		}
		size_t n = whole->f.linelen;
		FUZZ_CHECK(n <= FRAME_MAX && whole->f.line[n] == '\0');
		FUZZ_CHECK(n == chunked->f.linelen &&
		           memcmp(whole->f.line, chunked->f.line, n) == 0);
		FUZZ_CHECK(memchr(whole->f.line, '\n', n) == NULL &&
		           memchr(whole->f.line, '\r', n) == NULL);
		memcpy(line, whole->f.line, n + 1);
		check_line(line, n);
	}
	free(whole);
	free(chunked);
	free(line);
	return 0;
}
