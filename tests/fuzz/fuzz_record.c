/*
 * fuzz_record.c - fuzz target for game records (src/games/record.h).
 *
 * The input is given to record_parse() as it is (not NUL-terminated). When
 * it parses, these must hold:
 *  - record_write() succeeds (a parsed record is always writable);
 *  - the written text parses again to the same tags (keys, values, order),
 *    moves and result;
 *  - writing that second record gives the same text (the writer is a fixed point);
 *  - record_replay() through its engine returns one of its documented codes,
 *    and the step-wise replay (record_replay_start/_move) stops at the same move.
 */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"
#include "games/record.h"

const char fuzz_target_name[] = "record";

static bool same_str(const char *a, const char *b)
{
	return (a == NULL && b == NULL) || (a != NULL && b != NULL && strcmp(a, b) == 0);
}

static void check_same(const struct record *a, const struct record *b)
{
	FUZZ_CHECK(a->ntags == b->ntags);
	for (size_t i = 0; i < a->ntags; i++) {
		FUZZ_CHECK(strcmp(a->tags[i].key, b->tags[i].key) == 0);
		FUZZ_CHECK(strcmp(a->tags[i].value, b->tags[i].value) == 0);
	}
	FUZZ_CHECK(a->nmoves == b->nmoves);
	for (size_t i = 0; i < a->nmoves; i++)
		FUZZ_CHECK(strcmp(a->moves[i], b->moves[i]) == 0);
	FUZZ_CHECK(same_str(a->result, b->result));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct record r, r2;
	int line = 0;
	int err = record_parse((const char *)data, size, &r, &line);
	if (err != RECORD_OK) {
		FUZZ_CHECK(err == RECORD_ESYNTAX || err == RECORD_ENOMEM);
		/* a failed parse leaves the record empty */
		FUZZ_CHECK(r.ntags == 0 && r.nmoves == 0 && r.result == NULL);
		FUZZ_CHECK(err != RECORD_ESYNTAX || line >= 1);
		return 0;
	}
	for (size_t i = 0; i < r.nmoves; i++)
		FUZZ_CHECK(strlen(r.moves[i]) < GAME_MOVE_TEXT);

	char *text = NULL, *text2 = NULL; /* both malloc'd by record_write, freed here */
	size_t len = 0, len2 = 0;
	FUZZ_CHECK(record_write(&r, &text, &len) == RECORD_OK);
	FUZZ_CHECK(text != NULL && strlen(text) == len);
	err = record_parse(text, len, &r2, &line);
	if (err != RECORD_OK)
		fprintf(stderr, "written record does not parse (line %d):\n%s\n", line, text);
	FUZZ_CHECK(err == RECORD_OK);
	check_same(&r, &r2);
	FUZZ_CHECK(record_write(&r2, &text2, &len2) == RECORD_OK);
	FUZZ_CHECK(len == len2 && memcmp(text, text2, len) == 0);
	free(text);
	free(text2);
	record_clear(&r2);

	/* replay through the engine its tags name (tak, ttt, mnk, xmas) */
	_Alignas(max_align_t) static unsigned char st[GAME_STATE_MAX], st2[GAME_STATE_MAX];
	const struct game_ops *ops = NULL;
	int bad = -2;
	err = record_replay(&r, NULL, st, &ops, &bad);
	FUZZ_CHECK(err == RECORD_OK || err == RECORD_EGAME || err == RECORD_EPARTIAL);
	if (err != RECORD_OK)
		FUZZ_CHECK(bad >= -1 && (bad < 0 || (size_t)bad < r.nmoves));
	if (err == RECORD_OK) {
		FUZZ_CHECK(ops != NULL && bad == -1);
		struct game_result res;
		ops->result(st, &res);
	}
	struct game_replay rp;
	if (record_replay_start(&r, NULL, st2, &rp, NULL) != RECORD_OK) {
		FUZZ_CHECK(err == RECORD_EGAME && bad == -1);
	} else {
		size_t i = 0;
		while (i < r.nmoves && record_replay_move(&r, i, &rp, NULL) >= 0)
			i++;
		if (err == RECORD_EGAME)
			FUZZ_CHECK(i == (size_t)bad);
		else
			FUZZ_CHECK(i == r.nmoves &&
			           rp.whole == (err == RECORD_OK ? i : (size_t)bad));
		if (err != RECORD_EGAME) /* the same final position either way */
			FUZZ_CHECK(memcmp(st, st2, ops->state_size) == 0);
	}
	record_clear(&r);
	return 0;
}
