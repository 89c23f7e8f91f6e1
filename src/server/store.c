/*
 * store.c - the SQLite storage of the server (see store.h): schema and
 * migrations, statements prepared once, accounts with Argon2id hashes,
 * ratings, games and the move journal.
 *
 * Durability: WAL with synchronous=FULL makes SQLite fsync the WAL at every
 * commit, so a write call that returned 0 survives kill -9 and power loss.
 * Each write is one autocommit statement or one explicit transaction (one
 * fsync per call). Statements are reset right after use so no read
 * transaction stays open between calls.
 */
#include "server/store.h"

#include <errno.h>
#include <sodium.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "games/game.h"

_Static_assert(STORE_SEATS == GAME_MAX_PLAYERS, "one store seat per game seat");
_Static_assert(STORE_MOVE_TEXT == GAME_MOVE_TEXT, "a stored move holds any formatted move");
_Static_assert(STORE_HASH_MAX == crypto_pwhash_STRBYTES, "hash buffer fits crypto_pwhash_str");

/*
 * The migrations, in order: migration i brings user_version from i to i+1.
 * Never edit one that has shipped; append a new one.
 */
static const char *const migrations[] = {
        /* 1: the first schema. */
        "CREATE TABLE accounts ("
        "  id INTEGER PRIMARY KEY,"
        "  name TEXT NOT NULL,"            /* as registered */
        "  name_key TEXT NOT NULL UNIQUE," /* lowercased: case-insensitive uniqueness */
        "  pwhash TEXT NOT NULL,"          /* crypto_pwhash_str output (Argon2id) */
        "  created INTEGER NOT NULL"
        ");"
        "CREATE TABLE ratings ("
        "  account INTEGER NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
        "  kind TEXT NOT NULL,"
        "  rating REAL NOT NULL, rd REAL NOT NULL, volatility REAL NOT NULL,"
        "  games INTEGER NOT NULL DEFAULT 0,"
        "  updated INTEGER NOT NULL,"
        "  PRIMARY KEY (account, kind)"
        ");"
        "CREATE INDEX ratings_top ON ratings(kind, rating DESC);"
        "CREATE TABLE games ("
        "  id INTEGER PRIMARY KEY AUTOINCREMENT," /* never reused */
        "  kind TEXT NOT NULL,"
        "  options TEXT NOT NULL DEFAULT '',"
        "  seed INTEGER NOT NULL," /* the uint64 seed stored as its int64 bit pattern */
        "  player0 TEXT NOT NULL, player1 TEXT NOT NULL,"
        "  player0_key TEXT NOT NULL, player1_key TEXT NOT NULL,"
        "  guest0 INTEGER NOT NULL, guest1 INTEGER NOT NULL,"
        "  rated INTEGER NOT NULL,"
        "  time_base_ms INTEGER NOT NULL, time_inc_ms INTEGER NOT NULL,"
        "  started INTEGER NOT NULL,"
        "  ended INTEGER NOT NULL DEFAULT 0,"
        "  status TEXT NOT NULL DEFAULT 'in_progress'"
        "    CHECK (status IN ('in_progress', 'finished', 'aborted')),"
        "  result TEXT NOT NULL DEFAULT '',"
        "  winner INTEGER NOT NULL DEFAULT -1,"
        "  reason TEXT NOT NULL DEFAULT '',"
        "  clock0_ms INTEGER NOT NULL, clock1_ms INTEGER NOT NULL" /* start, then final */
        ");"
        "CREATE INDEX games_status ON games(status);"
        "CREATE INDEX games_player0 ON games(player0_key, ended);"
        "CREATE INDEX games_player1 ON games(player1_key, ended);"
        "CREATE TABLE moves ("
        "  game INTEGER NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
        "  ply INTEGER NOT NULL,"
        "  seat INTEGER NOT NULL,"
        "  move TEXT NOT NULL,"
        "  ms_used INTEGER NOT NULL,"
        "  clock0_ms INTEGER NOT NULL, clock1_ms INTEGER NOT NULL," /* after the move */
        "  at INTEGER NOT NULL,"
        "  PRIMARY KEY (game, ply)"
        ") WITHOUT ROWID;",
};
#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

#define GAME_COLS                                                                                  \
	"g.id, g.kind, g.options, g.seed, g.player0, g.player1, g.guest0, g.guest1, g.rated, "     \
	"g.time_base_ms, g.time_inc_ms, g.started, g.ended, g.status, g.result, g.winner, "        \
	"g.reason, g.clock0_ms, g.clock1_ms, "                                                     \
	"(SELECT count(*) FROM moves m WHERE m.game = g.id)"

#define RATING_COLS "a.name, r.kind, r.rating, r.rd, r.volatility, r.games, r.updated"

enum stmt_id {
	S_BEGIN,
	S_BEGIN_READ,
	S_COMMIT,
	S_ROLLBACK,
	S_ACC_INSERT,
	S_ACC_GET,
	S_RATING_GET,
	S_RATING_PUT,
	S_RATING_TOP,
	S_RATINGS_OF,
	S_GAME_INSERT,
	S_GAME_GET,
	S_MOVE_INSERT,
	S_MOVE_DELETE_LAST,
	S_GAME_FINISH,
	S_MOVES_OF,
	S_IN_PROGRESS,
	S_HISTORY,
	S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
        [S_BEGIN] = "BEGIN IMMEDIATE",
        [S_BEGIN_READ] = "BEGIN", /* a read snapshot */
        [S_COMMIT] = "COMMIT",
        [S_ROLLBACK] = "ROLLBACK",
        [S_ACC_INSERT] =
                "INSERT INTO accounts(name, name_key, pwhash, created) VALUES (?, ?, ?, ?)",
        [S_ACC_GET] = "SELECT name, pwhash FROM accounts WHERE name_key = ?",
        [S_RATING_GET] = "SELECT " RATING_COLS " FROM ratings r JOIN accounts a ON a.id = r.account"
                         " WHERE a.name_key = ? AND r.kind = ?",
        [S_RATING_PUT] =
                "INSERT INTO ratings(account, kind, rating, rd, volatility, games, updated)"
                " SELECT id, ?2, ?3, ?4, ?5, ?6, ?7 FROM accounts WHERE name_key = ?1"
                " ON CONFLICT(account, kind) DO UPDATE SET rating = excluded.rating,"
                " rd = excluded.rd, volatility = excluded.volatility,"
                " games = excluded.games, updated = excluded.updated",
        [S_RATING_TOP] = "SELECT " RATING_COLS " FROM ratings r JOIN accounts a ON a.id = r.account"
                         " WHERE r.kind = ? AND r.games > 0"
                         " ORDER BY r.rating DESC, r.rd ASC, a.name_key ASC LIMIT ?",
        [S_RATINGS_OF] = "SELECT " RATING_COLS " FROM ratings r JOIN accounts a ON a.id = r.account"
                         " WHERE a.name_key = ? ORDER BY r.kind LIMIT ?",
        [S_GAME_INSERT] =
                "INSERT INTO games(kind, options, seed, player0, player1, player0_key,"
                " player1_key, guest0, guest1, rated, time_base_ms, time_inc_ms, started,"
                " clock0_ms, clock1_ms)"
                " VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?11, ?11)",
        [S_GAME_GET] = "SELECT " GAME_COLS " FROM games g WHERE g.id = ?",
        /* Inserts only when the game is in progress and ply is the next one. */
        [S_MOVE_INSERT] =
                "INSERT INTO moves(game, ply, seat, move, ms_used, clock0_ms, clock1_ms, at)"
                " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 FROM games"
                " WHERE id = ?1 AND status = 'in_progress'"
                " AND ?2 = (SELECT coalesce(max(ply) + 1, 0) FROM moves WHERE game = ?1)",
        [S_MOVE_DELETE_LAST] = "DELETE FROM moves WHERE game = ?1"
                               " AND ply = (SELECT max(ply) FROM moves WHERE game = ?1)"
                               " AND EXISTS (SELECT 1 FROM games WHERE id = ?1"
                               " AND status = 'in_progress')",
        [S_GAME_FINISH] = "UPDATE games SET status = ?2, ended = ?3, result = ?4, winner = ?5,"
                          " reason = ?6, clock0_ms = ?7, clock1_ms = ?8"
                          " WHERE id = ?1 AND status = 'in_progress'",
        [S_MOVES_OF] = "SELECT ply, seat, move, ms_used, clock0_ms, clock1_ms, at FROM moves"
                       " WHERE game = ? ORDER BY ply",
        [S_IN_PROGRESS] = "SELECT " GAME_COLS " FROM games g WHERE g.status = 'in_progress'"
                          " ORDER BY g.id",
        [S_HISTORY] = "SELECT " GAME_COLS " FROM games g WHERE g.status <> 'in_progress'"
                      " AND (g.player0_key = ?1 OR g.player1_key = ?1)"
                      " ORDER BY g.ended DESC, g.id DESC LIMIT ?2",
};

struct store {
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	unsigned long long opslimit;
	size_t memlimit;
	char *path;
	/* A hash of nothing in particular, made on the first login of an unknown name and
	 * checked on every one, so an unknown name costs the same time as a wrong password. */
	char dummy_hash[STORE_HASH_MAX];
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
	}
	return "unknown error";
}

int64_t store_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

const char *store_status_name(enum store_status st)
{
	switch (st) {
	case STORE_IN_PROGRESS:
		return "in_progress";
	case STORE_FINISHED:
		return "finished";
	case STORE_ABORTED:
		return "aborted";
	}
	return "in_progress";
}

static enum store_status status_from_text(const char *t)
{
	if (t && strcmp(t, "finished") == 0)
		return STORE_FINISHED;
	if (t && strcmp(t, "aborted") == 0)
		return STORE_ABORTED;
	return STORE_IN_PROGRESS;
}

/* Maps an SQLite result code to a store error. */
static int sql_err(int rc)
{
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return STORE_ENOMEM;
	case SQLITE_CONSTRAINT:
		return STORE_EEXISTS;
	default:
		return STORE_EIO;
	}
}

/* A cached statement, reset and unbound, ready to bind. */
static sqlite3_stmt *stmt(struct store *s, enum stmt_id id)
{
	sqlite3_stmt *st = s->st[id];
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

/* Runs a statement without rows (BEGIN, COMMIT, ...) and resets it. */
static int run(struct store *s, enum stmt_id id)
{
	sqlite3_stmt *st = stmt(s, id);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? STORE_OK : sql_err(rc);
}

static int begin(struct store *s)
{
	return run(s, S_BEGIN);
}

/* Commits when err is 0, else rolls back; returns err or the commit's error. */
static int end(struct store *s, int err)
{
	if (err == STORE_OK) {
		err = run(s, S_COMMIT);
		if (err == STORE_OK)
			return STORE_OK;
	}
	if (!sqlite3_get_autocommit(s->db))
		run(s, S_ROLLBACK);
	return err;
}

static void copy_col(sqlite3_stmt *st, int col, char *buf, size_t size)
{
	const unsigned char *t = sqlite3_column_text(st, col);
	snprintf(buf, size, "%s", t ? (const char *)t : "");
}

/* ASCII lowercase key of a name; returns false when it does not fit. */
static bool name_key(const char *name, char *key, size_t size)
{
	size_t n = strlen(name);
	if (n >= size)
		return false;
	for (size_t i = 0; i <= n; i++) {
		char c = name[i];
		key[i] = (c >= 'A' && c <= 'Z') ? (char)(c - 'A' + 'a') : c;
	}
	return true;
}

/* True when the fixed buffer holds a NUL-terminated string. */
static bool fits(const char *buf, size_t size)
{
	return memchr(buf, '\0', size) != NULL;
}

/* ---- opening, migrations ----------------------------------------------------------- */

/* mkdir -p with mode 0700 for the parts that are missing. */
static int make_dirs(const char *dir)
{
	char *p = strdup(dir);
	if (!p)
		return STORE_ENOMEM;
	int err = STORE_OK;
	for (char *q = p + 1;; q++) {
		if (*q != '/' && *q != '\0')
			continue;
		char c = *q;
		*q = '\0';
		if (mkdir(p, 0700) != 0 && errno != EEXIST) {
			err = STORE_EIO;
			break;
		}
		*q = c;
		if (c == '\0')
			break;
	}
	struct stat sb;
	if (err == STORE_OK && (stat(dir, &sb) != 0 || !S_ISDIR(sb.st_mode)))
		err = STORE_EIO;
	free(p);
	return err;
}

static int pragma_int(sqlite3 *db, const char *sql, int *out)
{
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK)
		return STORE_EIO;
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*out = sqlite3_column_int(st, 0);
	sqlite3_finalize(st);
	return rc == SQLITE_ROW ? STORE_OK : sql_err(rc);
}

int store_schema_version(struct store *s)
{
	int v = 0;
	int err = pragma_int(s->db, "PRAGMA user_version", &v);
	return err ? err : v;
}

/* Runs each missing migration in its own transaction, with the version bump inside it. */
static int migrate(sqlite3 *db)
{
	int v = 0, err = pragma_int(db, "PRAGMA user_version", &v);
	if (err)
		return err;
	if (v > NMIGRATIONS)
		return STORE_ESCHEMA;
	for (; v < NMIGRATIONS; v++) {
		char bump[64];
		snprintf(bump, sizeof bump, "PRAGMA user_version = %d", v + 1);
		if (sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL) != SQLITE_OK)
			return STORE_EIO;
		if (sqlite3_exec(db, migrations[v], NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_exec(db, bump, NULL, NULL, NULL) != SQLITE_OK ||
		    sqlite3_exec(db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return STORE_EIO;
		}
	}
	return STORE_OK;
}

int store_open(const char *dir, struct store **out)
{
	*out = NULL;
	if (!dir || !*dir)
		return STORE_EINVAL;
	if (sodium_init() < 0)
		return STORE_ECRYPTO;
	int err = make_dirs(dir);
	if (err)
		return err;
	struct store *s = calloc(1, sizeof(*s));
	if (!s)
		return STORE_ENOMEM;
	s->opslimit = crypto_pwhash_OPSLIMIT_INTERACTIVE;
	s->memlimit = crypto_pwhash_MEMLIMIT_INTERACTIVE;
	size_t plen = strlen(dir) + sizeof("/" STORE_DB_FILE);
	s->path = malloc(plen);
	if (!s->path) {
		free(s);
		return STORE_ENOMEM;
	}
	snprintf(s->path, plen, "%s/%s", dir, STORE_DB_FILE);
	int rc = sqlite3_open_v2(s->path, &s->db,
	                         SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX,
	                         NULL);
	if (rc != SQLITE_OK) {
		err = sql_err(rc);
		goto fail;
	}
	sqlite3_busy_timeout(s->db, 5000);
	/* journal_mode answers with a row: check it really is WAL. */
	char mode[16] = "";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK) {
		err = STORE_EIO;
		goto fail;
	}
	if (sqlite3_step(st) == SQLITE_ROW)
		copy_col(st, 0, mode, sizeof mode);
	sqlite3_finalize(st);
	if (strcmp(mode, "wal") != 0 ||
	    sqlite3_exec(s->db, "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON", NULL, NULL,
	                 NULL) != SQLITE_OK) {
		err = STORE_EIO;
		goto fail;
	}
	err = migrate(s->db);
	if (err)
		goto fail;
	for (int i = 0; i < S_COUNT; i++) {
		rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		                        &s->st[i], NULL);
		if (rc != SQLITE_OK) {
			err = sql_err(rc);
			goto fail;
		}
	}
	*out = s;
	return STORE_OK;
fail:
	store_close(s);
	return err;
}

void store_close(struct store *s)
{
	if (!s)
		return;
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s->path);
	free(s);
}

const char *store_path(const struct store *s)
{
	return s->path;
}

const char *store_last_error(struct store *s)
{
	return s->db ? sqlite3_errmsg(s->db) : "not open";
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
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	sqlite3_stmt *st = stmt(s, S_ACC_INSERT);
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, hash, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, now);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? STORE_OK : sql_err(rc);
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
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	sqlite3_stmt *st = stmt(s, S_ACC_GET);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st), err = STORE_OK;
	if (rc == SQLITE_ROW) {
		if (canon)
			copy_col(st, 0, canon, STORE_NAME_MAX + 1);
		if (hash)
			copy_col(st, 1, hash, STORE_HASH_MAX);
	} else {
		err = rc == SQLITE_DONE ? STORE_ENOTFOUND : sql_err(rc);
	}
	sqlite3_reset(st);
	return err;
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

void store_rating_default(struct store_rating *r)
{
	r->rating = 1500.0;
	r->rd = 350.0;
	r->volatility = 0.06;
	r->games = 0;
	r->updated = 0;
}

static void read_rating_row(sqlite3_stmt *st, struct store_rating_row *row)
{
	copy_col(st, 0, row->name, sizeof row->name);
	copy_col(st, 1, row->kind, sizeof row->kind);
	row->r.rating = sqlite3_column_double(st, 2);
	row->r.rd = sqlite3_column_double(st, 3);
	row->r.volatility = sqlite3_column_double(st, 4);
	row->r.games = sqlite3_column_int(st, 5);
	row->r.updated = sqlite3_column_int64(st, 6);
}

int store_rating_get(struct store *s, const char *name, const char *kind, struct store_rating *out)
{
	char key[STORE_NAME_MAX + 1];
	if (!store_name_valid(name))
		return STORE_ENOTFOUND;
	if (!kind)
		return STORE_EINVAL;
	name_key(name, key, sizeof key);
	sqlite3_stmt *st = stmt(s, S_RATING_GET);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st), err = STORE_OK;
	if (rc == SQLITE_ROW) {
		struct store_rating_row row;
		read_rating_row(st, &row);
		*out = row.r;
	} else if (rc == SQLITE_DONE) {
		store_rating_default(out);
	} else {
		err = sql_err(rc);
	}
	sqlite3_reset(st);
	if (err == STORE_OK && rc == SQLITE_DONE) {
		int ex = store_account_exists(s, name, NULL);
		if (ex <= 0)
			err = ex < 0 ? ex : STORE_ENOTFOUND;
	}
	return err;
}

int store_rating_put(struct store *s, const char *name, const char *kind,
                     const struct store_rating *r)
{
	char key[STORE_PLAYER_MAX + 1];
	if (!name || !name_key(name, key, sizeof key))
		return STORE_ENOTFOUND;
	if (!kind || strlen(kind) >= STORE_KIND_MAX)
		return STORE_EINVAL;
	sqlite3_stmt *st = stmt(s, S_RATING_PUT);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, kind, -1, SQLITE_STATIC);
	sqlite3_bind_double(st, 3, r->rating);
	sqlite3_bind_double(st, 4, r->rd);
	sqlite3_bind_double(st, 5, r->volatility);
	sqlite3_bind_int(st, 6, r->games);
	sqlite3_bind_int64(st, 7, r->updated);
	int rc = sqlite3_step(st);
	int changed = sqlite3_changes(s->db);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sql_err(rc);
	return changed > 0 ? STORE_OK : STORE_ENOTFOUND;
}

/* Steps a rating query into rows; returns the count or an error. */
static int rating_rows(sqlite3_stmt *st, struct store_rating_row *out, size_t cap)
{
	size_t n = 0;
	int rc = SQLITE_DONE;
	while (n < cap && (rc = sqlite3_step(st)) == SQLITE_ROW)
		read_rating_row(st, &out[n++]);
	int err = (n < cap && rc != SQLITE_DONE) ? sql_err(rc) : STORE_OK;
	sqlite3_reset(st);
	return err ? err : (int)n;
}

int store_rating_top(struct store *s, const char *kind, struct store_rating_row *out, size_t cap)
{
	if (!kind)
		return STORE_EINVAL;
	if (cap > 100000)
		cap = 100000;
	sqlite3_stmt *st = stmt(s, S_RATING_TOP);
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)cap);
	return rating_rows(st, out, cap);
}

int store_ratings_of(struct store *s, const char *name, struct store_rating_row *out, size_t cap)
{
	char key[STORE_NAME_MAX + 1];
	if (!store_name_valid(name))
		return 0;
	if (cap > 100000)
		cap = 100000;
	name_key(name, key, sizeof key);
	sqlite3_stmt *st = stmt(s, S_RATINGS_OF);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)cap);
	return rating_rows(st, out, cap);
}

/* ---- games ------------------------------------------------------------------------------ */

void store_game_clear(struct store_game *g)
{
	if (!g)
		return;
	free(g->moves);
	g->moves = NULL;
}

void store_games_free(struct store_game *v, size_t n)
{
	if (!v)
		return;
	for (size_t i = 0; i < n; i++)
		store_game_clear(&v[i]);
	free(v);
}

int store_game_begin(struct store *s, const struct store_game *g, int64_t *id)
{
	char key[STORE_SEATS][STORE_PLAYER_MAX + 1];
	if (!fits(g->kind, sizeof g->kind) || !g->kind[0] || !fits(g->options, sizeof g->options))
		return STORE_EINVAL;
	for (int i = 0; i < STORE_SEATS; i++)
		if (!fits(g->players[i], sizeof g->players[i]) || !g->players[i][0] ||
		    !name_key(g->players[i], key[i], sizeof key[i]))
			return STORE_EINVAL;
	if (g->time_base_ms < 0 || g->time_inc_ms < 0)
		return STORE_EINVAL;
	sqlite3_stmt *st = stmt(s, S_GAME_INSERT);
	sqlite3_bind_text(st, 1, g->kind, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, g->options, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, (int64_t)g->seed);
	sqlite3_bind_text(st, 4, g->players[0], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, g->players[1], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, key[0], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, key[1], -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 8, g->guest[0]);
	sqlite3_bind_int(st, 9, g->guest[1]);
	sqlite3_bind_int(st, 10, g->rated);
	sqlite3_bind_int64(st, 11, g->time_base_ms);
	sqlite3_bind_int64(st, 12, g->time_inc_ms);
	sqlite3_bind_int64(st, 13, g->started);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_CONSTRAINT ? STORE_EIO : sql_err(rc);
	*id = sqlite3_last_insert_rowid(s->db);
	return STORE_OK;
}

/* Reads one row of GAME_COLS (no moves). */
static void read_game(sqlite3_stmt *st, struct store_game *g)
{
	memset(g, 0, sizeof(*g));
	g->id = sqlite3_column_int64(st, 0);
	copy_col(st, 1, g->kind, sizeof g->kind);
	copy_col(st, 2, g->options, sizeof g->options);
	g->seed = (uint64_t)sqlite3_column_int64(st, 3);
	copy_col(st, 4, g->players[0], sizeof g->players[0]);
	copy_col(st, 5, g->players[1], sizeof g->players[1]);
	g->guest[0] = sqlite3_column_int(st, 6) != 0;
	g->guest[1] = sqlite3_column_int(st, 7) != 0;
	g->rated = sqlite3_column_int(st, 8) != 0;
	g->time_base_ms = sqlite3_column_int64(st, 9);
	g->time_inc_ms = sqlite3_column_int64(st, 10);
	g->started = sqlite3_column_int64(st, 11);
	g->ended = sqlite3_column_int64(st, 12);
	g->status = status_from_text((const char *)sqlite3_column_text(st, 13));
	copy_col(st, 14, g->result, sizeof g->result);
	g->winner = sqlite3_column_int(st, 15);
	copy_col(st, 16, g->reason, sizeof g->reason);
	g->clock_ms[0] = sqlite3_column_int64(st, 17);
	g->clock_ms[1] = sqlite3_column_int64(st, 18);
	g->plies = sqlite3_column_int(st, 19);
	g->moves = NULL;
}

/* Loads g's moves (g->plies of them) in ply order; in progress: clocks after the last. */
static int load_moves(struct store *s, struct store_game *g)
{
	g->moves = NULL;
	if (g->plies <= 0) {
		g->plies = 0;
		return STORE_OK;
	}
	g->moves = calloc((size_t)g->plies, sizeof(*g->moves));
	if (!g->moves)
		return STORE_ENOMEM;
	sqlite3_stmt *st = stmt(s, S_MOVES_OF);
	sqlite3_bind_int64(st, 1, g->id);
	int n = 0, rc;
	while (n < g->plies && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_move *m = &g->moves[n++];
		m->ply = sqlite3_column_int(st, 0);
		m->seat = sqlite3_column_int(st, 1);
		copy_col(st, 2, m->text, sizeof m->text);
		m->ms_used = sqlite3_column_int64(st, 3);
		m->clock_ms[0] = sqlite3_column_int64(st, 4);
		m->clock_ms[1] = sqlite3_column_int64(st, 5);
		m->at = sqlite3_column_int64(st, 6);
	}
	sqlite3_reset(st);
	if (n != g->plies) {
		store_game_clear(g);
		return STORE_EIO;
	}
	if (g->status == STORE_IN_PROGRESS)
		memcpy(g->clock_ms, g->moves[n - 1].clock_ms, sizeof g->clock_ms);
	return STORE_OK;
}

/* Reads the game row and its moves (inside the caller's transaction). */
static int fetch(struct store *s, int64_t id, struct store_game *out)
{
	sqlite3_stmt *st = stmt(s, S_GAME_GET);
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_game(st, out);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? STORE_ENOTFOUND : sql_err(rc);
	return load_moves(s, out);
}

int store_game_fetch(struct store *s, int64_t id, struct store_game *out)
{
	memset(out, 0, sizeof(*out));
	int err = run(s, S_BEGIN_READ); /* one snapshot for the row and its moves */
	if (err)
		return err;
	err = fetch(s, id, out);
	int cerr = end(s, STORE_OK);
	if (err == STORE_OK && cerr != STORE_OK) {
		store_game_clear(out);
		err = cerr;
	}
	return err;
}

/* Why a guarded write changed nothing: no such game, or not in progress. */
static int why_unchanged(struct store *s, int64_t id)
{
	sqlite3_stmt *st = stmt(s, S_GAME_GET);
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc == SQLITE_DONE)
		return STORE_ENOTFOUND;
	return rc == SQLITE_ROW ? STORE_ESTATE : sql_err(rc);
}

int store_move_append(struct store *s, int64_t id, const struct store_move *m)
{
	if (m->seat < 0 || m->seat >= STORE_SEATS || m->ply < 0 || !fits(m->text, sizeof m->text))
		return STORE_EINVAL;
	sqlite3_stmt *st = stmt(s, S_MOVE_INSERT);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, m->ply);
	sqlite3_bind_int(st, 3, m->seat);
	sqlite3_bind_text(st, 4, m->text, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 5, m->ms_used);
	sqlite3_bind_int64(st, 6, m->clock_ms[0]);
	sqlite3_bind_int64(st, 7, m->clock_ms[1]);
	sqlite3_bind_int64(st, 8, m->at);
	int rc = sqlite3_step(st);
	int changed = sqlite3_changes(s->db);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return rc == SQLITE_CONSTRAINT ? STORE_ESTATE : sql_err(rc);
	return changed > 0 ? STORE_OK : why_unchanged(s, id);
}

int store_move_remove_last(struct store *s, int64_t id)
{
	sqlite3_stmt *st = stmt(s, S_MOVE_DELETE_LAST);
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	int changed = sqlite3_changes(s->db);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sql_err(rc);
	return changed > 0 ? STORE_OK : why_unchanged(s, id);
}

int store_game_finish(struct store *s, int64_t id, const struct store_finish *f)
{
	if (f->status != STORE_FINISHED && f->status != STORE_ABORTED)
		return STORE_EINVAL;
	const char *result = f->result ? f->result : "", *reason = f->reason ? f->reason : "";
	if (strlen(result) >= STORE_RESULT_MAX || strlen(reason) >= STORE_REASON_MAX ||
	    f->winner < -1 || f->winner >= STORE_SEATS)
		return STORE_EINVAL;
	int err = begin(s);
	if (err)
		return err;
	struct store_game g;
	sqlite3_stmt *st = stmt(s, S_GAME_GET);
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_game(st, &g);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return end(s, rc == SQLITE_DONE ? STORE_ENOTFOUND : sql_err(rc));
	if (g.status != STORE_IN_PROGRESS)
		return end(s, STORE_ESTATE);

	st = stmt(s, S_GAME_FINISH);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, store_status_name(f->status), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, f->ended);
	sqlite3_bind_text(st, 4, result, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, f->winner);
	sqlite3_bind_text(st, 6, reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, f->clock_ms[0]);
	sqlite3_bind_int64(st, 8, f->clock_ms[1]);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return end(s, sql_err(rc));
	for (int i = 0; i < STORE_SEATS && err == STORE_OK; i++) {
		if (!f->rate[i])
			continue;
		if (g.guest[i])
			err = STORE_ENOTFOUND;
		else
			err = store_rating_put(s, g.players[i], g.kind, &f->rating[i]);
	}
	return end(s, err);
}

/* Steps a GAME_COLS query into a growing array; loads moves when asked. */
static int game_list(struct store *s, sqlite3_stmt *st, bool with_moves, struct store_game **out,
                     size_t *n)
{
	struct store_game *v = NULL;
	size_t len = 0, cap = 0;
	int rc, err = STORE_OK;
	while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (len == cap) {
			size_t ncap = cap ? cap * 2 : 8;
			struct store_game *nv = realloc(v, ncap * sizeof(*nv));
			if (!nv) {
				err = STORE_ENOMEM;
				break;
			}
			v = nv;
			cap = ncap;
		}
		read_game(st, &v[len++]);
	}
	if (err == STORE_OK && rc != SQLITE_DONE)
		err = sql_err(rc);
	sqlite3_reset(st);
	/* Moves are read after the list query is reset (the same connection steps one at a time).
	 */
	for (size_t i = 0; i < len && err == STORE_OK && with_moves; i++)
		err = load_moves(s, &v[i]);
	if (err) {
		store_games_free(v, len);
		*out = NULL;
		*n = 0;
		return err;
	}
	if (len == 0) {
		free(v);
		v = NULL;
	}
	*out = v;
	*n = len;
	return STORE_OK;
}

int store_games_in_progress(struct store *s, struct store_game **out, size_t *n)
{
	int err = run(s, S_BEGIN_READ); /* one snapshot for the games and their moves */
	if (err)
		return err;
	err = game_list(s, stmt(s, S_IN_PROGRESS), true, out, n);
	int cerr = end(s, STORE_OK);
	if (err == STORE_OK && cerr != STORE_OK) {
		store_games_free(*out, *n);
		*out = NULL;
		*n = 0;
		err = cerr;
	}
	return err;
}

int store_history(struct store *s, const char *name, int limit, struct store_game **out, size_t *n)
{
	char key[STORE_PLAYER_MAX + 1];
	*out = NULL;
	*n = 0;
	if (!name || !name_key(name, key, sizeof key) || limit < 0)
		return STORE_EINVAL;
	sqlite3_stmt *st = stmt(s, S_HISTORY);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, limit);
	return game_list(s, st, false, out, n);
}
