/*
 * store.c - the storage interface (see store.h) above its back ends
 * (store_backend.h): argument checks done once for every back end, the
 * file-moved guard before writes, password hashing (libsodium), error
 * names, and the few operations built from the back end's primitives
 * (store_game_begin, account creation and login checks, a backup's file
 * written under another name and renamed once complete).
 */
#include "server/store/store.h"

#include <fcntl.h>
#include <sodium.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "games/game.h"
#include "server/store/store_backend.h"

_Static_assert(STORE_SEATS == GAME_MAX_PLAYERS, "one store seat per game seat");
_Static_assert(STORE_MOVE_TEXT == GAME_MOVE_TEXT, "a stored move holds any formatted move");
_Static_assert(STORE_HASH_MAX == crypto_pwhash_STRBYTES, "hash buffer fits crypto_pwhash_str");

/* the back ends this build has (./configure --without-postgresql leaves PostgreSQL out) */
static const struct store_backend *const backends[] = {
        &store_sqlite,
#if HAVE_POSTGRESQL
        &store_pg,
#endif
};

const char *store_strerror(int err)
{
	switch (err) {
	case STORE_OK:
		return "ok";
	case STORE_EIO:
		return "storage failure";
	case STORE_ENOMEM:
		return "out of memory";
	case STORE_ENAME:
		return "a name is 2 to 20 letters, digits or underscores";
	case STORE_EPASSWORD:
		return "a password is 6 to 128 bytes";
	case STORE_EEXISTS:
		return "that name is taken";
	case STORE_ENOTFOUND:
		return "no such account or game";
	case STORE_EAUTH:
		return "wrong password";
	case STORE_ESTATE:
		return "not possible in the game's current state";
	case STORE_EINVAL:
		return "invalid argument";
	case STORE_ESCHEMA:
		return "the database was written by a newer version";
	case STORE_ECRYPTO:
		return "password hashing failed";
	case STORE_EBUSY:
		return "the database is locked by another process";
	case STORE_EFULL:
		return "the disk is full";
	case STORE_EGONE:
		return "the database file was removed, replaced or emptied";
	case STORE_EUNAVAIL:
		return "the database server cannot be reached";
	}
	return "unknown error";
}

bool store_err_is_failure(int err)
{
	switch (err) {
	case STORE_EIO:
	case STORE_ENOMEM:
	case STORE_ESCHEMA:
	case STORE_ECRYPTO:
	case STORE_EBUSY:
	case STORE_EFULL:
	case STORE_EGONE:
	case STORE_EUNAVAIL:
		return true;
	default:
		return false;
	}
}

int64_t store_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* True when the fixed buffer holds a NUL-terminated string. */
static bool fits(const char *buf, size_t size)
{
	return memchr(buf, '\0', size) != NULL;
}

/* A seat's name: 1..STORE_PLAYER_MAX bytes. */
static bool player_valid(const char *name)
{
	return name != NULL && name[0] != '\0' &&
	       strnlen(name, STORE_PLAYER_MAX + 1) <= STORE_PLAYER_MAX;
}

/* ---- connections ------------------------------------------------------------------- */

int store_open_opts(const struct store_options *o, struct store **out)
{
	*out = NULL;
	if (o == NULL || o->busy_timeout_ms < 0 ||
	    (o->node != NULL && strnlen(o->node, STORE_NODE_MAX + 1) > STORE_NODE_MAX) ||
	    (o->sync != STORE_SYNC_FULL && o->sync != STORE_SYNC_LAZY))
		return STORE_EINVAL;
	const struct store_backend *be = NULL;
	for (size_t i = 0; i < sizeof backends / sizeof backends[0]; i++)
		if (be == NULL &&
		    (o->backend == NULL || strcmp(o->backend, backends[i]->name) == 0))
			be = backends[i]; /* the first: NULL is SQLite */
	if (be == NULL)
		return STORE_EINVAL;
	if (sodium_init() < 0)
		return STORE_ECRYPTO;
	struct store_options opts = *o;
	if (opts.busy_timeout_ms == 0)
		opts.busy_timeout_ms = STORE_BUSY_DEFAULT_MS;
	struct store *s = NULL;
	int err = be->open(&opts, &s);
	if (err)
		return err;
	s->be = be;
	s->opts = opts;
	s->opts.dir = NULL;
	s->opts.conninfo = NULL;
	s->opts.node = NULL;
	s->opts.backend = be->name;
	s->opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
	s->memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
	s->in_txn = false;
	*out = s;
	return STORE_OK;
}

int store_open(const char *dir, struct store **out)
{
	struct store_options o = {.dir = dir};
	return store_open_opts(&o, out);
}

void store_close(struct store *s)
{
	if (s == NULL)
		return;
	if (s->in_txn)
		s->be->rollback(s);
	sodium_memzero(s->dummy_hash, sizeof s->dummy_hash);
	s->be->close(s);
}

int store_schema_version(struct store *s)
{
	return s->be->schema_version(s);
}

const char *store_path(const struct store *s)
{
	return s->be->where(s);
}

const char *store_last_error(struct store *s)
{
	return s->be->last_error(s);
}

const struct store_options *store_options_of(const struct store *s)
{
	return &s->opts;
}

const char *store_backend_name(const struct store *s)
{
	return s->be->name;
}

int store_check(struct store *s)
{
	return s->be->check(s);
}

/*
 * Before a write: a reader never writes; outside a transaction the write is
 * its own commit, so the file it goes to is checked first (store_begin()
 * checks it for a transaction's writes).
 */
static int writable(struct store *s)
{
	if (s->opts.reader)
		return STORE_EINVAL;
	return s->in_txn ? STORE_OK : s->be->check(s);
}

/* ---- transactions -------------------------------------------------------------------- */

int store_begin(struct store *s)
{
	if (s->in_txn)
		return STORE_EINVAL;
	int err = writable(s);
	if (err == STORE_OK)
		err = s->be->begin(s);
	if (err == STORE_OK)
		s->in_txn = true;
	return err;
}

int store_commit(struct store *s)
{
	if (!s->in_txn)
		return STORE_EINVAL;
	int err = s->be->commit(s);
	if (err)
		s->be->rollback(s);
	s->in_txn = false;
	return err;
}

void store_rollback(struct store *s)
{
	s->be->rollback(s);
	s->in_txn = false;
}

int store_sync(struct store *s)
{
	return s->opts.reader ? STORE_OK : s->be->sync(s);
}

int store_reserve_ids(struct store *s, int64_t n, int64_t *first)
{
	if (n < 1 || n > 1000000)
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->reserve_ids(s, n, first);
}

/* ---- accounts ------------------------------------------------------------------------ */

bool store_name_valid(const char *name)
{
	if (!name)
		return false;
	size_t n = 0;
	for (; name[n]; n++) {
		char c = name[n];
		bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		          (c >= '0' && c <= '9') || c == '_';
		if (!ok || n >= STORE_NAME_MAX)
			return false;
	}
	return n >= STORE_NAME_MIN;
}

bool store_password_valid(const char *password)
{
	if (!password)
		return false;
	size_t n = strnlen(password, STORE_PASS_MAX + 1);
	return n >= STORE_PASS_MIN && n <= STORE_PASS_MAX;
}

int store_password_hash(const char *password, unsigned long long opslimit, size_t memlimit,
                        char out[STORE_HASH_MAX])
{
	if (!store_password_valid(password))
		return STORE_EPASSWORD;
	if (sodium_init() < 0)
		return STORE_ECRYPTO;
	if (crypto_pwhash_str(out, password, strlen(password), opslimit, memlimit) != 0)
		return STORE_ECRYPTO;
	return STORE_OK;
}

int store_password_check(const char *hash, const char *password)
{
	if (!hash || !password || !fits(hash, STORE_HASH_MAX))
		return STORE_EAUTH;
	if (sodium_init() < 0)
		return STORE_ECRYPTO;
	/* The same length limits as registration: nothing longer was ever hashed. */
	if (!store_password_valid(password))
		return STORE_EAUTH;
	return crypto_pwhash_str_verify(hash, password, strlen(password)) == 0 ? STORE_OK
	                                                                       : STORE_EAUTH;
}

void store_set_hash_cost(struct store *s, unsigned long long opslimit, size_t memlimit)
{
	s->opslimit = opslimit;
	s->memlimit = memlimit;
}

int store_account_insert(struct store *s, const char *name, const char *hash, int64_t now)
{
	if (!store_name_valid(name))
		return STORE_ENAME;
	if (!hash || !fits(hash, STORE_HASH_MAX))
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->account_insert(s, name, hash, now);
}

/* ---- an account's preferences ------------------------------------------------------------- */

int store_prefs_get(struct store *s, const char *name, struct store_prefs *out)
{
	memset(out, 0, sizeof *out);
	if (!store_name_valid(name))
		return STORE_ENOTFOUND;
	return s->be->prefs_get(s, name, out);
}

int store_prefs_put(struct store *s, const char *name, const struct store_prefs *p)
{
	if (!store_name_valid(name))
		return STORE_ENOTFOUND;
	if (p == NULL || !fits(p->accept, sizeof p->accept))
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->prefs_put(s, name, p);
}

/* ---- moderation ---------------------------------------------------------------------- */

int store_mod_write(struct store *s, const struct store_mod *m)
{
	if (m == NULL || (unsigned)m->kind > STORE_MOD_AUDIT || !fits(m->actor, sizeof m->actor) ||
	    !fits(m->action, sizeof m->action) || !fits(m->target, sizeof m->target) ||
	    !fits(m->reason, sizeof m->reason) || m->target[0] == '\0' ||
	    (m->kind == STORE_MOD_AUDIT && m->action[0] == '\0'))
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->mod_write(s, m);
}

int store_mod_list(struct store *s, enum store_mod_kind kind, int limit, struct store_mod **out,
                   size_t *n)
{
	*out = NULL;
	*n = 0;
	if ((unsigned)kind > STORE_MOD_AUDIT)
		return STORE_EINVAL;
	if (limit <= 0 || limit > 100000)
		limit = 100000;
	return s->be->mod_list(s, kind, limit, out, n);
}

int store_account_create(struct store *s, const char *name, const char *password, int64_t now)
{
	if (!store_name_valid(name))
		return STORE_ENAME;
	if (!store_password_valid(password))
		return STORE_EPASSWORD;
	/* Refuse a taken name before paying for the hash. */
	int ex = store_account_exists(s, name, NULL);
	if (ex < 0)
		return ex;
	if (ex == 1)
		return STORE_EEXISTS;
	char hash[STORE_HASH_MAX];
	int err = store_password_hash(password, s->opslimit, s->memlimit, hash);
	if (err == STORE_OK)
		err = store_account_insert(s, name, hash, now);
	sodium_memzero(hash, sizeof hash);
	return err;
}

int store_account_hash(struct store *s, const char *name, char canon[STORE_NAME_MAX + 1],
                       char hash[STORE_HASH_MAX])
{
	if (!store_name_valid(name))
		return STORE_ENOTFOUND;
	return s->be->account_get(s, name, canon, hash);
}

int store_account_exists(struct store *s, const char *name, char canon[STORE_NAME_MAX + 1])
{
	int err = store_account_hash(s, name, canon, NULL);
	if (err == STORE_ENOTFOUND)
		return 0;
	return err < 0 ? err : 1;
}

int store_account_verify(struct store *s, const char *name, const char *password,
                         char canon[STORE_NAME_MAX + 1])
{
	char c[STORE_NAME_MAX + 1], hash[STORE_HASH_MAX];
	int err = store_account_hash(s, name, c, hash);
	if (err == STORE_ENOTFOUND && store_password_valid(password)) {
		if (!s->dummy_hash[0] &&
		    store_password_hash("no such account", s->opslimit, s->memlimit,
		                        s->dummy_hash) != STORE_OK)
			s->dummy_hash[0] = '\0';
		if (s->dummy_hash[0])
			store_password_check(s->dummy_hash, password);
	}
	if (err)
		return err;
	err = store_password_check(hash, password);
	if (err == STORE_OK && canon)
		memcpy(canon, c, sizeof c);
	return err;
}

/* ---- ratings ------------------------------------------------------------------------- */

int store_rating_get(struct store *s, const char *name, const char *kind, struct store_rating *out)
{
	if (!store_name_valid(name))
		return STORE_ENOTFOUND;
	if (!kind || strnlen(kind, STORE_KIND_MAX) >= STORE_KIND_MAX)
		return STORE_EINVAL;
	return s->be->rating_get(s, name, kind, out);
}

int store_rating_put(struct store *s, const char *name, const char *kind,
                     const struct store_rating *r)
{
	if (!player_valid(name))
		return STORE_ENOTFOUND;
	if (!kind || strnlen(kind, STORE_KIND_MAX) >= STORE_KIND_MAX)
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->rating_put(s, name, kind, r);
}

int store_rating_top(struct store *s, const char *kind, struct store_rating_row *out, size_t cap)
{
	if (!kind || strnlen(kind, STORE_KIND_MAX) >= STORE_KIND_MAX)
		return STORE_EINVAL;
	if (cap > 100000)
		cap = 100000;
	return s->be->rating_top(s, kind, out, cap);
}

int store_rating_top_bots(struct store *s, const char *kind, struct store_rating_row *out,
                          size_t cap)
{
	if (!kind || strnlen(kind, STORE_KIND_MAX) >= STORE_KIND_MAX)
		return STORE_EINVAL;
	if (cap > 100000)
		cap = 100000;
	return s->be->rating_top_bots(s, kind, out, cap);
}

int store_ratings_of(struct store *s, const char *name, struct store_rating_row *out, size_t cap)
{
	if (!store_name_valid(name))
		return 0;
	if (cap > 100000)
		cap = 100000;
	return s->be->ratings_of(s, name, out, cap);
}

/* ---- games ------------------------------------------------------------------------------ */

/* A seat's token hash: "" or STORE_TOKEN_HASH lowercase hex digits, "" for an account. */
static bool token_hash_valid(const char *h, size_t size, bool guest)
{
	if (!fits(h, size))
		return false;
	size_t n = strlen(h);
	if (n == 0)
		return true;
	if (!guest || n != STORE_TOKEN_HASH)
		return false;
	return strspn(h, "0123456789abcdef") == n;
}

/* The fields of a game row that store_game_insert() reads are in range. */
static bool game_valid(const struct store_game *g)
{
	if (!fits(g->kind, sizeof g->kind) || !g->kind[0] || !fits(g->options, sizeof g->options))
		return false;
	for (int i = 0; i < STORE_SEATS; i++)
		if (!fits(g->players[i], sizeof g->players[i]) || !player_valid(g->players[i]) ||
		    !token_hash_valid(g->token_hash[i], sizeof g->token_hash[i], g->guest[i]))
			return false;
	return g->time_base_ms >= 0 && g->time_inc_ms >= 0;
}

int store_game_insert(struct store *s, const struct store_game *g, int64_t id)
{
	if (!game_valid(g) || id <= 0)
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->game_insert(s, g, id);
}

int store_game_begin(struct store *s, const struct store_game *g, int64_t *id)
{
	if (!game_valid(g)) /* before an id is spent on it */
		return STORE_EINVAL;
	bool own = !s->in_txn;
	int err = own ? store_begin(s) : STORE_OK;
	if (err)
		return err;
	int64_t first = 0;
	err = store_reserve_ids(s, 1, &first);
	if (err == STORE_OK)
		err = store_game_insert(s, g, first);
	if (own && err == STORE_OK)
		err = store_commit(s);
	else if (own)
		store_rollback(s);
	if (err == STORE_OK)
		*id = first;
	return err;
}

int store_move_append(struct store *s, int64_t id, const struct store_move *m)
{
	if (m->seat < 0 || m->seat >= STORE_SEATS || m->ply < 0 || !fits(m->text, sizeof m->text))
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->move_append(s, id, m);
}

int store_move_remove_last(struct store *s, int64_t id)
{
	int err = writable(s);
	return err ? err : s->be->moves_drop(s, id, 1, -1);
}

int store_moves_truncate(struct store *s, int64_t id, int from, int plies)
{
	if (from < 0 || from >= plies)
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->moves_drop(s, id, plies - from, plies);
}

int store_game_finish(struct store *s, int64_t id, const struct store_finish *f)
{
	if (f->status != STORE_FINISHED && f->status != STORE_ABORTED)
		return STORE_EINVAL;
	const char *result = f->result ? f->result : "", *reason = f->reason ? f->reason : "";
	if (strnlen(result, STORE_RESULT_MAX) >= STORE_RESULT_MAX ||
	    strnlen(reason, STORE_REASON_MAX) >= STORE_REASON_MAX || f->winner < -1 ||
	    f->winner >= STORE_SEATS)
		return STORE_EINVAL;
	int err = writable(s);
	if (err)
		return err;
	struct store_finish ff = *f;
	ff.result = result;
	ff.reason = reason;
	return s->be->game_finish(s, id, &ff);
}

int store_game_fetch(struct store *s, int64_t id, struct store_game *out)
{
	memset(out, 0, sizeof(*out));
	return s->be->game_fetch(s, id, out);
}

int store_games_in_progress(struct store *s, struct store_game **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	return s->be->games_in_progress(s, out, n);
}

int store_tourney_put(struct store *s, int64_t id, const char *state, const char *doc, int64_t now)
{
	if (id <= 0 || state == NULL || doc == NULL ||
	    strnlen(state, STORE_TOURNEY_STATE_MAX) >= STORE_TOURNEY_STATE_MAX ||
	    strnlen(doc, STORE_TOURNEY_DOC_MAX + 1) > STORE_TOURNEY_DOC_MAX)
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->tourney_put(s, id, state, doc, now);
}

int store_tourneys_open(struct store *s, struct store_tourney **out, size_t *n, int64_t *max_id)
{
	*out = NULL;
	*n = 0;
	*max_id = 0;
	return s->be->tourneys_open(s, out, n, max_id);
}

int store_ladder_put(struct store *s, int64_t id, const char *state, const char *doc, int64_t now)
{
	if (id <= 0 || state == NULL || doc == NULL ||
	    strnlen(state, STORE_TOURNEY_STATE_MAX) >= STORE_TOURNEY_STATE_MAX ||
	    strnlen(doc, STORE_TOURNEY_DOC_MAX + 1) > STORE_TOURNEY_DOC_MAX)
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->ladder_put(s, id, state, doc, now);
}

int store_ladders_open(struct store *s, struct store_tourney **out, size_t *n, int64_t *max_id)
{
	*out = NULL;
	*n = 0;
	*max_id = 0;
	return s->be->ladders_open(s, out, n, max_id);
}

int store_history(struct store *s, const char *name, int limit, struct store_game **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (!player_valid(name) || limit < 0)
		return STORE_EINVAL;
	return s->be->history(s, name, limit, out, n);
}

int store_games_claim(struct store *s, const char *from, struct store_game **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (s->be->games_claim == NULL || from == NULL ||
	    strnlen(from, STORE_NODE_MAX + 1) > STORE_NODE_MAX)
		return STORE_EINVAL;
	int err = writable(s);
	return err ? err : s->be->games_claim(s, from, out, n);
}

/* ---- finding and counting games, snapshots, backups ------------------------------------ */

int store_games_find(struct store *s, const struct store_game_query *q, int limit,
                     struct store_game **out, size_t *n)
{
	*out = NULL;
	*n = 0;
	if (q == NULL || limit < 1 || limit > STORE_FIND_MAX || q->rated < -1 || q->rated > 1 ||
	    q->since < 0 || q->until < 0 || q->before < 0 ||
	    (q->kind != NULL && strnlen(q->kind, STORE_KIND_MAX) >= STORE_KIND_MAX))
		return STORE_EINVAL;
	if (q->player != NULL && !player_valid(q->player))
		return STORE_OK; /* no seat has such a name */
	struct store_game_query b = *q;
	if (b.before == 0)
		b.before = INT64_MAX;
	return s->be->games_find(s, &b, limit, out, n);
}

int store_player_counts(struct store *s, const char *name, struct store_counts *out)
{
	memset(out, 0, sizeof *out);
	if (!player_valid(name))
		return name != NULL ? STORE_OK : STORE_EINVAL;
	return s->be->player_counts(s, name, out);
}

int store_snapshot_begin(struct store *s)
{
	if (!s->opts.reader || s->in_txn)
		return STORE_EINVAL;
	int err = s->be->snapshot_begin(s);
	if (err == STORE_OK)
		s->in_txn = true; /* the back end's reads join it */
	return err;
}

int store_snapshot_end(struct store *s)
{
	if (!s->opts.reader || !s->in_txn)
		return STORE_EINVAL;
	s->in_txn = false;
	int err = s->be->snapshot_end(s);
	if (err)
		s->be->rollback(s);
	return err;
}

/* fsync of the directory holding path (a rename in it made durable). */
static int sync_dir_of(const char *path)
{
	char *dir = strdup(path);
	if (dir == NULL)
		return STORE_ENOMEM;
	char *slash = strrchr(dir, '/');
	if (slash == dir)
		slash[1] = '\0';
	else if (slash != NULL)
		*slash = '\0';
	int fd = open(slash != NULL ? dir : ".", O_RDONLY | O_DIRECTORY);
	free(dir);
	if (fd < 0)
		return STORE_EIO;
	int r = fsync(fd);
	close(fd);
	return r == 0 ? STORE_OK : STORE_EIO;
}

int store_backup(struct store *s, const char *dest)
{
	if (dest == NULL || dest[0] == '\0' || s->be->backup == NULL || s->in_txn)
		return STORE_EINVAL;
	size_t len = strlen(dest) + sizeof ".partial";
	char *part = malloc(len);
	if (part == NULL)
		return STORE_ENOMEM;
	snprintf(part, len, "%s.partial", dest);
	struct stat sb;
	int err = STORE_OK;
	if (lstat(dest, &sb) == 0 || lstat(part, &sb) == 0)
		err = STORE_EEXISTS;
	if (err == STORE_OK && (err = s->be->backup(s, part)) != STORE_OK)
		unlink(part);
	if (err == STORE_OK && rename(part, dest) != 0) {
		unlink(part);
		err = STORE_EIO;
	}
	if (err == STORE_OK)
		err = sync_dir_of(dest);
	free(part);
	return err;
}
