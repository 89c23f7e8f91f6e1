/*
 * export.c - bitarenad export and bitarenad backup (see export.h): a reader connection,
 * one snapshot, pages of STORE_FIND_MAX games with their moves, each game written as the
 * API writes it (api_render.h).
 */
#include "server/api/export.h"

#include <stdlib.h>
#include <string.h>

#include "server/api/api_query.h"
#include "server/api/api_render.h"

/* Opens a reader connection of so; 0, or 1 with why. */
static int open_reader(const struct store_options *so, struct store **db, char *why, size_t len)
{
	struct store_options o = *so;
	o.reader = true;
	int r = store_open_opts(&o, db);
	if (r != STORE_OK) {
		snprintf(why, len, "cannot open the store%s%s: %s (a server must have made it)",
		         so->dir != NULL && so->conninfo == NULL ? " in " : "",
		         so->dir != NULL && so->conninfo == NULL ? so->dir : "", store_strerror(r));
		return 1;
	}
	return 0;
}

/* Writes one game; false when out cannot take it. */
static bool write_game(FILE *out, const struct store_game *g, bool ptn, bool first)
{
	if (ptn) {
		char *text = NULL;
		size_t n = 0;
		bool ok = api_game_ptn(g, &text, &n) == 0 && (first || fputc('\n', out) != EOF) &&
		          fwrite(text, 1, n, out) == n;
		free(text);
		return ok;
	}
	char space[16384];
	struct json_buf jb;
	json_buf_init(&jb, space, sizeof space);
	bool ok = api_game_json(&jb, g, true) && fwrite(jb.p, 1, jb.len, out) == jb.len;
	json_buf_free(&jb);
	return ok;
}

int api_export(const struct store_options *so, const char *since, const char *format, FILE *out,
               int64_t *count, char *why, size_t len)
{
	*count = 0;
	bool ptn = format != NULL && strcmp(format, "ptn") == 0;
	if (format != NULL && !ptn && strcmp(format, "ndjson") != 0) {
		snprintf(why, len, "--format is ndjson or ptn, not '%s'", format);
		return 2;
	}
	struct store_game_query q = {.rated = -1, .moves = true};
	if (since != NULL && !api_time_parse(since, &q.since)) {
		snprintf(why, len,
		         "--since is a time: milliseconds since 1970-01-01 UTC, or a UTC date "
		         "YYYY-MM-DD[THH:MM:SS]; not '%s'",
		         since);
		return 2;
	}
	struct store *db;
	if (open_reader(so, &db, why, len) != 0)
		return 1;
	int r = store_snapshot_begin(db);
	bool ok = true;
	while (r == STORE_OK && ok) {
		struct store_game *v;
		size_t n;
		r = store_games_find(db, &q, STORE_FIND_MAX, &v, &n);
		for (size_t i = 0; r == STORE_OK && ok && i < n; i++, ++*count)
			ok = write_game(out, &v[i], ptn, *count == 0);
		if (n > 0)
			q.before = v[n - 1].id;
		store_games_free(v, n);
		if (n < STORE_FIND_MAX)
			break;
	}
	if (r == STORE_OK)
		r = store_snapshot_end(db);
	if (r != STORE_OK)
		snprintf(why, len, "reading the store failed: %s (%s)", store_strerror(r),
		         store_last_error(db));
	store_close(db);
	if (r == STORE_OK && (!ok || fflush(out) != 0)) {
		snprintf(why, len, "cannot write the export");
		return 1;
	}
	return r == STORE_OK ? 0 : 1;
}

int api_backup(const struct store_options *so, const char *dest, char *why, size_t len)
{
	if (so->backend != NULL && strcmp(so->backend, "sqlite") != 0) {
		snprintf(why, len,
		         "backup copies a SQLite store; a PostgreSQL store is copied with "
		         "pg_dump (README, Backups)");
		return 1;
	}
	struct store *db;
	if (open_reader(so, &db, why, len) != 0)
		return 1;
	int r = store_backup(db, dest);
	if (r != STORE_OK)
		snprintf(why, len, "cannot back up into %s: %s%s%s", dest,
		         r == STORE_EEXISTS ? "it exists already" : store_strerror(r),
		         r == STORE_EEXISTS ? "" : ": ",
		         r == STORE_EEXISTS ? "" : store_last_error(db));
	store_close(db);
	return r == STORE_OK ? 0 : 1;
}
