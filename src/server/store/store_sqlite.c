/*
 * store_sqlite.c - the SQLite back end of the storage interface
 * (store_backend.h): schema and migrations, statements prepared once per
 * connection, accounts, ratings, games, the move journal and its guards, the
 * game id counter, and the checks that the database file is still the one
 * opened.
 *
 * Durability: WAL mode. With STORE_SYNC_FULL (synchronous=FULL) SQLite
 * fsyncs the WAL at every commit, so a commit that returned survives kill -9
 * and power loss; with STORE_SYNC_LAZY (synchronous=NORMAL) a commit only
 * writes the WAL (in the OS cache: it survives kill -9, not a power cut) and
 * sync() fsyncs the WAL file itself. Statements are reset right after use so
 * no read transaction stays open between calls.
 */
#include <errno.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "server/store/store.h"
#include "server/store/store_backend.h"

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
        /* 2: game ids are reserved in blocks (the journal's writer gives them out on the
         * loop without a round trip); next is the first id never handed out. */
        "CREATE TABLE counters ("
        "  name TEXT PRIMARY KEY,"
        "  next INTEGER NOT NULL"
        ") WITHOUT ROWID;"
        "INSERT INTO counters(name, next) SELECT 'game_id', max("
        "  coalesce((SELECT max(id) FROM games), 0),"
        "  coalesce((SELECT seq FROM sqlite_sequence WHERE name = 'games'), 0)) + 1;",
        /* 3: a guest seat's token, as its hash (hex; '' none): a restored game's guest seat
         * comes back only with its token. Games stored before it have none. */
        "ALTER TABLE games ADD COLUMN token_hash0 TEXT NOT NULL DEFAULT '';"
        "ALTER TABLE games ADD COLUMN token_hash1 TEXT NOT NULL DEFAULT '';",
        /* 4: each seat's rating after a rated game (NULL: not rated; games ended before it
         * have none), the points of a player's rating history. */
        "ALTER TABLE games ADD COLUMN rating0 REAL;"
        "ALTER TABLE games ADD COLUMN rating1 REAL;",
        /* 5: tournaments (issue 21), each one row: its state and the whole of it as a
         * document (store.h, store_tourney). Self-contained: no other table refers to it
         * or is changed, so it can take another number at a merge. */
        "CREATE TABLE tourneys ("
        "  id INTEGER PRIMARY KEY,"
        "  state TEXT NOT NULL,"
        "  doc TEXT NOT NULL,"
        "  updated INTEGER NOT NULL"
        ");"
        "CREATE INDEX tourneys_state ON tourneys(state);",
        /* 6: moderation (issue 25): admins, bans and mutes (sanctions), each account's
         * blocks, and the audit trail of what admins did. Keys are lowercased names (or
         * "addr:" and an address); until 0 is no end. IF NOT EXISTS: a store whose version
         * was set back by hand (tests of older schemas) runs it again. */
        "CREATE TABLE IF NOT EXISTS admins ("
        "  name_key TEXT PRIMARY KEY, name TEXT NOT NULL,"
        "  by TEXT NOT NULL, added INTEGER NOT NULL"
        ") WITHOUT ROWID;"
        "CREATE TABLE IF NOT EXISTS sanctions ("
        "  kind TEXT NOT NULL CHECK (kind IN ('ban', 'mute')),"
        "  target_key TEXT NOT NULL, target TEXT NOT NULL,"
        "  by TEXT NOT NULL, reason TEXT NOT NULL, since INTEGER NOT NULL,"
        "  until INTEGER NOT NULL,"
        "  PRIMARY KEY (kind, target_key)"
        ") WITHOUT ROWID;"
        "CREATE TABLE IF NOT EXISTS blocks ("
        "  blocker_key TEXT NOT NULL, blocked_key TEXT NOT NULL,"
        "  blocker TEXT NOT NULL, blocked TEXT NOT NULL, since INTEGER NOT NULL,"
        "  PRIMARY KEY (blocker_key, blocked_key)"
        ") WITHOUT ROWID;"
        "CREATE TABLE IF NOT EXISTS audit ("
        "  id INTEGER PRIMARY KEY,"
        "  at INTEGER NOT NULL, actor TEXT NOT NULL, action TEXT NOT NULL,"
        "  target TEXT NOT NULL, reason TEXT NOT NULL, until INTEGER NOT NULL"
        ");",
        /* 7: an account's preferences (issue 22): a bot's account, a human refusing bots,
         * the games it takes (an accept filter's text, '' all). An account without a row
         * is a human taking every game. Self-contained, IF NOT EXISTS: it can take another
         * number at a merge, and runs again on a store whose version was set back. */
        "CREATE TABLE IF NOT EXISTS account_prefs ("
        "  name_key TEXT PRIMARY KEY," /* the account's (accounts.name_key) */
        "  bot INTEGER NOT NULL DEFAULT 0,"
        "  bots_off INTEGER NOT NULL DEFAULT 0,"
        "  accept TEXT NOT NULL DEFAULT ''"
        ") WITHOUT ROWID;",
        /* 8 (after 7, bot accounts): the ladders (issue 22), each one row as a tournament
         * is: its state and the whole of it as a document (store.h, store_ladder_put).
         * Self-contained, so it can take another number at a merge. */
        "CREATE TABLE IF NOT EXISTS ladders ("
        "  id INTEGER PRIMARY KEY,"
        "  state TEXT NOT NULL,"
        "  doc TEXT NOT NULL,"
        "  updated INTEGER NOT NULL"
        ");",
};
#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

#define GAME_COLS                                                                                  \
	"g.id, g.kind, g.options, g.seed, g.player0, g.player1, g.guest0, g.guest1, g.rated, "     \
	"g.time_base_ms, g.time_inc_ms, g.started, g.ended, g.status, g.result, g.winner, "        \
	"g.reason, g.clock0_ms, g.clock1_ms, "                                                     \
	"(SELECT count(*) FROM moves m WHERE m.game = g.id), g.token_hash0, g.token_hash1, "        \
	"g.rating0, g.rating1"

#define RATING_COLS "a.name, r.kind, r.rating, r.rd, r.volatility, r.games, r.updated"

/* The games store_games_find() lists (its statements' parameters ?2..?6). */
#define FIND_WHERE                                                                                 \
	"g.status <> 'in_progress' AND (?2 IS NULL OR g.kind = ?2) AND (?3 < 0 OR g.rated = ?3)"   \
	" AND (?4 = 0 OR g.ended >= ?4) AND (?5 = 0 OR g.ended <= ?5) AND g.id < ?6"

/* The number of moves journalled for game ?1 (plies are 0, 1, ... without holes). */
#define PLIES_OF_1 "(SELECT coalesce(max(ply) + 1, 0) FROM moves WHERE game = ?1)"

enum stmt_id {
	S_BEGIN,
	S_BEGIN_READ,
	S_COMMIT,
	S_ROLLBACK,
	S_SAVEPOINT,
	S_RELEASE,
	S_ROLLBACK_TO,
	S_ACC_INSERT,
	S_ACC_GET,
	S_PREFS_GET,
	S_PREFS_PUT,
	S_RATING_GET,
	S_RATING_PUT,
	S_RATING_TOP,
	S_RATINGS_OF,
	S_ID_NEXT,
	S_ID_SET,
	S_GAME_INSERT,
	S_GAME_GET,
	S_MOVE_INSERT,
	S_MOVES_DROP,
	S_GAME_FINISH,
	S_MOVES_OF,
	S_IN_PROGRESS,
	S_HISTORY,
	S_FIND,
	S_FIND_PLAYER,
	S_COUNTS,
	S_TOURNEY_PUT,
	S_TOURNEYS_OPEN,
	S_TOURNEY_MAX,
	S_LADDER_PUT,
	S_LADDERS_OPEN,
	S_LADDER_MAX,
	S_RATING_TOP_BOTS,
	S_COUNT
};

static const char *const stmt_sql[S_COUNT] = {
        [S_BEGIN] = "BEGIN IMMEDIATE",
        [S_BEGIN_READ] = "BEGIN", /* a read snapshot */
        [S_COMMIT] = "COMMIT",
        [S_ROLLBACK] = "ROLLBACK",
        [S_SAVEPOINT] = "SAVEPOINT unit",
        [S_RELEASE] = "RELEASE unit",
        [S_ROLLBACK_TO] = "ROLLBACK TO unit",
        [S_ACC_INSERT] =
                "INSERT INTO accounts(name, name_key, pwhash, created) VALUES (?, ?, ?, ?)",
        [S_ACC_GET] = "SELECT name, pwhash FROM accounts WHERE name_key = ?",
        [S_PREFS_GET] = "SELECT coalesce(p.bot, 0), coalesce(p.bots_off, 0),"
                        " coalesce(p.accept, ''), EXISTS (SELECT 1 FROM games"
                        " WHERE player0_key = ?1 OR player1_key = ?1) FROM accounts a"
                        " LEFT JOIN account_prefs p ON p.name_key = a.name_key"
                        " WHERE a.name_key = ?1",
        /* the bot flag of an account that played a game stays as it is (the one write
           that changes nothing while the account exists) */
        [S_PREFS_PUT] = "INSERT INTO account_prefs(name_key, bot, bots_off, accept)"
                        " SELECT ?1, ?2, ?3, ?4 FROM accounts WHERE name_key = ?1"
                        " AND (coalesce((SELECT bot FROM account_prefs WHERE name_key = ?1),"
                        " 0) = ?2 OR NOT EXISTS (SELECT 1 FROM games WHERE player0_key = ?1"
                        " OR player1_key = ?1)) ON CONFLICT(name_key) DO UPDATE SET"
                        " bot = excluded.bot, bots_off = excluded.bots_off,"
                        " accept = excluded.accept",
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
        /* The counter, never below an id in use (a game written by other means). */
        [S_ID_NEXT] = "SELECT max(next, coalesce((SELECT max(id) + 1 FROM games), 1))"
                      " FROM counters WHERE name = 'game_id'",
        [S_ID_SET] = "UPDATE counters SET next = ? WHERE name = 'game_id'",
        [S_GAME_INSERT] =
                "INSERT INTO games(id, kind, options, seed, player0, player1, player0_key,"
                " player1_key, guest0, guest1, rated, time_base_ms, time_inc_ms, started,"
                " clock0_ms, clock1_ms, token_hash0, token_hash1)"
                " VALUES (?14, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?11, ?11,"
                " ?15, ?16)",
        [S_GAME_GET] = "SELECT " GAME_COLS " FROM games g WHERE g.id = ?",
        /* Inserts only when the game is in progress and ply is the next one. */
        [S_MOVE_INSERT] =
                "INSERT INTO moves(game, ply, seat, move, ms_used, clock0_ms, clock1_ms, at)"
                " SELECT ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8 FROM games"
                " WHERE id = ?1 AND status = 'in_progress' AND ?2 = " PLIES_OF_1,
        /* Drops the last ?2 moves, when there are that many (and exactly ?3 if ?3 >= 0). */
        [S_MOVES_DROP] = "DELETE FROM moves WHERE game = ?1 AND ply >= " PLIES_OF_1 " - ?2"
                         " AND " PLIES_OF_1 " >= ?2 AND (?3 < 0 OR " PLIES_OF_1 " = ?3)"
                         " AND EXISTS (SELECT 1 FROM games WHERE id = ?1"
                         " AND status = 'in_progress')",
        [S_GAME_FINISH] = "UPDATE games SET status = ?2, ended = ?3, result = ?4, winner = ?5,"
                          " reason = ?6, clock0_ms = ?7, clock1_ms = ?8, rating0 = ?9,"
                          " rating1 = ?10 WHERE id = ?1 AND status = 'in_progress'",
        [S_MOVES_OF] = "SELECT ply, seat, move, ms_used, clock0_ms, clock1_ms, at FROM moves"
                       " WHERE game = ? ORDER BY ply",
        [S_IN_PROGRESS] = "SELECT " GAME_COLS " FROM games g WHERE g.status = 'in_progress'"
                          " ORDER BY g.id",
        [S_HISTORY] = "SELECT " GAME_COLS " FROM games g WHERE g.status <> 'in_progress'"
                      " AND (g.player0_key = ?1 OR g.player1_key = ?1)"
                      " ORDER BY g.ended DESC, g.id DESC LIMIT ?2",
        /* a page of ended games, newest first: ?2 kind (NULL any), ?3 rated (-1 any), ?4 ?5
         * the end's bounds (0 none), ?6 below this id (the rowid range), ?7 the page's size;
         * with ?1, a seat's name key (the two seats' indexes) */
        [S_FIND] = "SELECT " GAME_COLS " FROM games g WHERE " FIND_WHERE
                   " ORDER BY g.id DESC LIMIT ?7",
        [S_FIND_PLAYER] = "SELECT " GAME_COLS " FROM games g WHERE " FIND_WHERE
                          " AND (g.player0_key = ?1 OR g.player1_key = ?1)"
                          " ORDER BY g.id DESC LIMIT ?7",
        /* finished games of the seat named ?1: all, rated, won, lost, drawn */
        [S_COUNTS] = "SELECT count(*), coalesce(sum(rated <> 0), 0),"
                     " coalesce(sum(winner = CASE WHEN player0_key = ?1 THEN 0 ELSE 1 END), 0),"
                     " coalesce(sum(winner >= 0 AND winner <> CASE WHEN player0_key = ?1"
                     " THEN 0 ELSE 1 END), 0), coalesce(sum(winner < 0), 0) FROM games"
                     " WHERE status = 'finished' AND (player0_key = ?1 OR player1_key = ?1)",
        [S_TOURNEY_PUT] = "INSERT INTO tourneys(id, state, doc, updated) VALUES (?, ?, ?, ?)"
                          " ON CONFLICT(id) DO UPDATE SET state = excluded.state,"
                          " doc = excluded.doc, updated = excluded.updated",
        [S_TOURNEYS_OPEN] = "SELECT id, state, doc, updated FROM tourneys"
                            " WHERE state NOT IN ('finished', 'cancelled') ORDER BY id",
        [S_TOURNEY_MAX] = "SELECT coalesce(max(id), 0) FROM tourneys",
        [S_LADDER_PUT] = "INSERT INTO ladders(id, state, doc, updated) VALUES (?, ?, ?, ?)"
                         " ON CONFLICT(id) DO UPDATE SET state = excluded.state,"
                         " doc = excluded.doc, updated = excluded.updated",
        [S_LADDERS_OPEN] = "SELECT id, state, doc, updated FROM ladders ORDER BY id",
        [S_LADDER_MAX] = "SELECT coalesce(max(id), 0) FROM ladders",
        [S_RATING_TOP_BOTS] = "SELECT " RATING_COLS " FROM ratings r JOIN accounts a"
                              " ON a.id = r.account JOIN account_prefs p"
                              " ON p.name_key = a.name_key AND p.bot <> 0"
                              " WHERE r.kind = ? AND r.games > 0"
                              " ORDER BY r.rating DESC, r.rd ASC, a.name_key ASC LIMIT ?",
};

struct sqlite_store {
	struct store base; /* first: a struct store * is a struct sqlite_store * */
	sqlite3 *db;
	sqlite3_stmt *st[S_COUNT];
	char *path;
	char *wal;          /* path of the WAL */
	struct stat wal_st; /* the WAL this connection writes (st_ino 0: unknown) */
	char why[400];      /* our own message for a failure SQLite did not report */
	bool gone;          /* the file was removed, replaced or emptied: for good, why says how */
};

static struct sqlite_store *impl(struct store *s)
{
	return (struct sqlite_store *)s;
}

static enum store_status status_from_text(const char *t)
{
	if (t && strcmp(t, "finished") == 0)
		return STORE_FINISHED;
	if (t && strcmp(t, "aborted") == 0)
		return STORE_ABORTED;
	return STORE_IN_PROGRESS;
}

/* Maps an SQLite (extended) result code to a store error. */
static int sql_err(int rc)
{
	if (rc == SQLITE_READONLY_DBMOVED)
		return STORE_EGONE;
	switch (rc & 0xff) {
	case SQLITE_NOMEM:
		return STORE_ENOMEM;
	case SQLITE_CONSTRAINT:
		return STORE_EEXISTS;
	case SQLITE_BUSY:
	case SQLITE_LOCKED:
		return STORE_EBUSY;
	case SQLITE_FULL:
		return STORE_EFULL;
	default:
		return STORE_EIO;
	}
}

/* A cached statement, reset and unbound, ready to bind. */
static sqlite3_stmt *stmt(struct sqlite_store *s, enum stmt_id id)
{
	sqlite3_stmt *st = s->st[id];
	sqlite3_reset(st);
	sqlite3_clear_bindings(st);
	return st;
}

/* Runs a statement without rows (BEGIN, COMMIT, ...) and resets it. */
static int run(struct sqlite_store *s, enum stmt_id id)
{
	sqlite3_stmt *st = stmt(s, id);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? STORE_OK : sql_err(rc);
}

/* Commits when err is 0, else rolls back; returns err or the commit's error. */
static int end(struct sqlite_store *s, int err)
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

/*
 * One atomic unit of writes: its own transaction outside one, a savepoint
 * inside the caller's (so a refusal undoes only this unit).
 */
static int unit_begin(struct sqlite_store *s)
{
	return run(s, s->base.in_txn ? S_SAVEPOINT : S_BEGIN);
}

static int unit_end(struct sqlite_store *s, int err)
{
	if (!s->base.in_txn)
		return end(s, err);
	if (err != STORE_OK && !sqlite3_get_autocommit(s->db))
		run(s, S_ROLLBACK_TO);
	if (!sqlite3_get_autocommit(s->db)) {
		int rerr = run(s, S_RELEASE);
		if (err == STORE_OK)
			err = rerr;
	}
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

/* ---- opening, migrations, checks ---------------------------------------------------- */

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

static int sq_schema_version(struct store *s)
{
	int v = 0;
	int err = pragma_int(impl(s)->db, "PRAGMA user_version", &v);
	return err ? err : v;
}

/* Runs each missing migration in its own transaction, with the version bump inside it. */
static int migrate(sqlite3 *db, bool reader)
{
	int v = 0, err = pragma_int(db, "PRAGMA user_version", &v);
	if (err)
		return err;
	if (v > NMIGRATIONS)
		return STORE_ESCHEMA;
	for (; v < NMIGRATIONS && !reader; v++) {
		char bump[64];
		snprintf(bump, sizeof bump, "PRAGMA user_version = %d", v + 1);
		int rc = sqlite3_exec(db, "BEGIN IMMEDIATE", NULL, NULL, NULL);
		if (rc != SQLITE_OK)
			return sql_err(rc);
		if ((rc = sqlite3_exec(db, migrations[v], NULL, NULL, NULL)) != SQLITE_OK ||
		    (rc = sqlite3_exec(db, bump, NULL, NULL, NULL)) != SQLITE_OK ||
		    (rc = sqlite3_exec(db, "COMMIT", NULL, NULL, NULL)) != SQLITE_OK) {
			sqlite3_exec(db, "ROLLBACK", NULL, NULL, NULL);
			return sql_err(rc);
		}
	}
	return STORE_OK;
}

/* A database file of 0 bytes: a store was there and is lost (never silently started anew). */
static bool emptied(const char *path)
{
	struct stat sb;
	return stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && sb.st_size == 0;
}

/* A WAL without its database: SQLite would replay it into a new, empty file (a torn store). */
static bool orphan_wal(const char *path, const char *wal)
{
	struct stat sb;
	return stat(path, &sb) != 0 && errno == ENOENT && stat(wal, &sb) == 0 && sb.st_size > 0;
}

static void sq_close(struct store *bs)
{
	struct sqlite_store *s = impl(bs);
	for (int i = 0; i < S_COUNT; i++)
		sqlite3_finalize(s->st[i]);
	sqlite3_close(s->db);
	free(s->path);
	free(s->wal);
	free(s);
}

static int sq_open(const struct store_options *o, struct store **out)
{
	*out = NULL;
	if (!o->dir || !*o->dir)
		return STORE_EINVAL;
	int err = o->reader ? STORE_OK : make_dirs(o->dir); /* a reader creates nothing */
	if (err)
		return err;
	struct sqlite_store *s = calloc(1, sizeof(*s));
	if (!s)
		return STORE_ENOMEM;
	size_t plen = strlen(o->dir) + sizeof("/" STORE_DB_FILE "-wal");
	s->path = malloc(plen);
	s->wal = malloc(plen);
	if (!s->path || !s->wal) {
		free(s->path);
		free(s->wal);
		free(s);
		return STORE_ENOMEM;
	}
	snprintf(s->path, plen, "%s/%s", o->dir, STORE_DB_FILE);
	snprintf(s->wal, plen, "%s-wal", s->path);
	if (emptied(s->path) || orphan_wal(s->path, s->wal)) {
		err = STORE_EGONE;
		goto fail;
	}
	int flags =
	        SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (o->reader ? 0 : SQLITE_OPEN_CREATE);
	int rc = sqlite3_open_v2(s->path, &s->db, flags, NULL);
	if (rc != SQLITE_OK) {
		err = sql_err(rc);
		goto fail;
	}
	sqlite3_extended_result_codes(s->db, 1);
	sqlite3_busy_timeout(s->db, o->busy_timeout_ms);
	/* journal_mode answers with a row: check it really is WAL. */
	char mode[16] = "";
	sqlite3_stmt *st;
	if (sqlite3_prepare_v2(s->db, "PRAGMA journal_mode = WAL", -1, &st, NULL) != SQLITE_OK) {
		err = STORE_EIO;
		goto fail;
	}
	rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		copy_col(st, 0, mode, sizeof mode);
	sqlite3_finalize(st);
	if (rc != SQLITE_ROW) {
		err = sql_err(rc);
		goto fail;
	}
	const char *setup = o->sync == STORE_SYNC_LAZY
	                            ? "PRAGMA synchronous = NORMAL; PRAGMA foreign_keys = ON"
	                            : "PRAGMA synchronous = FULL; PRAGMA foreign_keys = ON";
	if (strcmp(mode, "wal") != 0 || sqlite3_exec(s->db, setup, NULL, NULL, NULL) != SQLITE_OK) {
		err = STORE_EIO;
		goto fail;
	}
	err = migrate(s->db, o->reader);
	if (err)
		goto fail;
	if (o->reader &&
	    sqlite3_exec(s->db, "PRAGMA query_only = 1", NULL, NULL, NULL) != SQLITE_OK) {
		err = STORE_EIO;
		goto fail;
	}
	for (int i = 0; i < S_COUNT; i++) {
		rc = sqlite3_prepare_v3(s->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT,
		                        &s->st[i], NULL);
		if (rc != SQLITE_OK) {
			err = sql_err(rc);
			goto fail;
		}
	}
	/* The WAL is open now (the migrations read through it) and stays while we are. */
	if (stat(s->wal, &s->wal_st) != 0)
		s->wal_st.st_ino = 0;
	*out = &s->base;
	return STORE_OK;
fail:
	sq_close(&s->base);
	return err;
}

static const char *sq_where(const struct store *s)
{
	return ((const struct sqlite_store *)s)->path;
}

static const char *sq_last_error(struct store *bs)
{
	struct sqlite_store *s = impl(bs);
	if (s->why[0])
		return s->why;
	return s->db ? sqlite3_errmsg(s->db) : "not open";
}

static int sq_check(struct store *bs)
{
	struct sqlite_store *s = impl(bs);
	int moved = 0;
	if (s->gone)
		return STORE_EGONE;
	s->why[0] = '\0';
	if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_HAS_MOVED, &moved) != SQLITE_OK)
		moved = 0;
	if (moved) {
		/* SQLite does not checkpoint into a moved file, so our WAL outlives us. Left under
		 * its name beside a file put in our place, it would be replayed into that file at
		 * the next start: it is renamed away (kept: it holds the last writes). Beside no
		 * file at all, it stays, and the next start refuses it (orphan_wal). */
		struct stat db, wal;
		bool replaced = stat(s->path, &db) == 0;
		char aside[sizeof s->why - 64];
		snprintf(aside, sizeof aside, "%s.orphaned", s->wal);
		bool ours = s->wal_st.st_ino != 0 && stat(s->wal, &wal) == 0 &&
		            wal.st_ino == s->wal_st.st_ino && wal.st_dev == s->wal_st.st_dev;
		if (replaced && ours && rename(s->wal, aside) == 0)
			snprintf(s->why, sizeof s->why,
			         "%s was replaced since it was opened; its last writes are in %s",
			         s->path, aside);
		else
			snprintf(s->why, sizeof s->why, "%s was %s since it was opened", s->path,
			         replaced ? "replaced" : "removed");
		s->gone = true;
		return STORE_EGONE;
	}
	if (emptied(s->path)) {
		/* Closing would checkpoint the WAL into the emptied file, making a torn database
		 * of it: the WAL is left as it is; the next start refuses the empty file. */
		snprintf(s->why, sizeof s->why, "%s was emptied (0 bytes) since it was opened",
		         s->path);
		sqlite3_db_config(s->db, SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, 1, NULL);
		s->gone = true;
		return STORE_EGONE;
	}
	return STORE_OK;
}

/* ---- transactions --------------------------------------------------------------------- */

static int sq_begin(struct store *bs)
{
	if (!impl(bs)->gone)
		impl(bs)->why[0] = '\0';
	return run(impl(bs), S_BEGIN);
}

static int sq_commit(struct store *bs)
{
	return run(impl(bs), S_COMMIT);
}

static void sq_rollback(struct store *bs)
{
	struct sqlite_store *s = impl(bs);
	if (!sqlite3_get_autocommit(s->db))
		run(s, S_ROLLBACK);
}

/*
 * synchronous=NORMAL leaves the WAL unsynced at commit; an fsync of the WAL
 * file makes every commit written so far durable. SQLite hands out the WAL's
 * file object (SQLITE_FCNTL_JOURNAL_POINTER); no WAL open yet means nothing
 * was written through this connection.
 */
static int sq_sync(struct store *bs)
{
	struct sqlite_store *s = impl(bs);
	if (s->base.opts.sync == STORE_SYNC_FULL)
		return STORE_OK;
	sqlite3_file *wal = NULL;
	if (sqlite3_file_control(s->db, "main", SQLITE_FCNTL_JOURNAL_POINTER, &wal) != SQLITE_OK ||
	    wal == NULL || wal->pMethods == NULL)
		return STORE_OK;
	int rc = wal->pMethods->xSync(wal, SQLITE_SYNC_NORMAL);
	if (rc != SQLITE_OK) {
		snprintf(s->why, sizeof s->why, "fsync of the WAL of %s failed (%d)", s->path, rc);
		return sql_err(rc);
	}
	return STORE_OK;
}

static int sq_reserve_ids(struct store *bs, int64_t n, int64_t *first)
{
	struct sqlite_store *s = impl(bs);
	int err = unit_begin(s);
	if (err)
		return err;
	sqlite3_stmt *st = stmt(s, S_ID_NEXT);
	int rc = sqlite3_step(st);
	int64_t next = rc == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return unit_end(s, rc == SQLITE_DONE ? STORE_EIO : sql_err(rc));
	st = stmt(s, S_ID_SET);
	sqlite3_bind_int64(st, 1, next + n);
	rc = sqlite3_step(st);
	sqlite3_reset(st);
	err = unit_end(s, rc == SQLITE_DONE ? STORE_OK : sql_err(rc));
	if (err == STORE_OK)
		*first = next;
	return err;
}

/* ---- accounts ------------------------------------------------------------------------ */

static int sq_account_insert(struct store *bs, const char *name, const char *hash, int64_t now)
{
	struct sqlite_store *s = impl(bs);
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

static int sq_account_get(struct store *bs, const char *name, char canon[STORE_NAME_MAX + 1],
                          char hash[STORE_HASH_MAX])
{
	struct sqlite_store *s = impl(bs);
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

static int sq_prefs_get(struct store *bs, const char *name, struct store_prefs *out)
{
	struct sqlite_store *s = impl(bs);
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	sqlite3_stmt *st = stmt(s, S_PREFS_GET);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st), err = STORE_OK;
	if (rc == SQLITE_ROW) {
		out->bot = sqlite3_column_int(st, 0) != 0;
		out->bots_off = sqlite3_column_int(st, 1) != 0;
		copy_col(st, 2, out->accept, sizeof out->accept);
		out->played = sqlite3_column_int(st, 3) != 0;
	} else {
		err = rc == SQLITE_DONE ? STORE_ENOTFOUND : sql_err(rc);
	}
	sqlite3_reset(st);
	return err;
}

static int sq_prefs_put(struct store *bs, const char *name, const struct store_prefs *p)
{
	struct sqlite_store *s = impl(bs);
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	sqlite3_stmt *st = stmt(s, S_PREFS_PUT);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, p->bot);
	sqlite3_bind_int(st, 3, p->bots_off);
	sqlite3_bind_text(st, 4, p->accept, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sql_err(rc);
	if (sqlite3_changes(s->db) > 0)
		return STORE_OK;
	int ex = sq_account_get(bs, name, NULL, NULL);
	return ex == STORE_OK ? STORE_ESTATE : ex;
}

/* ---- ratings ------------------------------------------------------------------------- */

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

static int sq_rating_get(struct store *bs, const char *name, const char *kind,
                         struct store_rating *out)
{
	struct sqlite_store *s = impl(bs);
	char key[STORE_NAME_MAX + 1];
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
	if (err == STORE_OK && rc == SQLITE_DONE)
		err = sq_account_get(bs, name, NULL, NULL);
	return err;
}

static int sq_rating_put(struct store *bs, const char *name, const char *kind,
                         const struct store_rating *r)
{
	struct sqlite_store *s = impl(bs);
	char key[STORE_PLAYER_MAX + 1];
	if (!name_key(name, key, sizeof key))
		return STORE_ENOTFOUND;
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

/* The top list of statement id (S_RATING_TOP, S_RATING_TOP_BOTS). */
static int top_rows(struct store *bs, enum stmt_id id, const char *kind,
                    struct store_rating_row *out, size_t cap)
{
	sqlite3_stmt *st = stmt(impl(bs), id);
	sqlite3_bind_text(st, 1, kind, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)cap);
	return rating_rows(st, out, cap);
}

static int sq_rating_top(struct store *bs, const char *kind, struct store_rating_row *out,
                         size_t cap)
{
	return top_rows(bs, S_RATING_TOP, kind, out, cap);
}

static int sq_rating_top_bots(struct store *bs, const char *kind, struct store_rating_row *out,
                              size_t cap)
{
	return top_rows(bs, S_RATING_TOP_BOTS, kind, out, cap);
}

static int sq_ratings_of(struct store *bs, const char *name, struct store_rating_row *out,
                         size_t cap)
{
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	sqlite3_stmt *st = stmt(impl(bs), S_RATINGS_OF);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 2, (int64_t)cap);
	return rating_rows(st, out, cap);
}

/* ---- games ------------------------------------------------------------------------------ */

static int sq_game_insert(struct store *bs, const struct store_game *g, int64_t id)
{
	struct sqlite_store *s = impl(bs);
	char key[STORE_SEATS][STORE_PLAYER_MAX + 1];
	for (int i = 0; i < STORE_SEATS; i++)
		if (!name_key(g->players[i], key[i], sizeof key[i]))
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
	sqlite3_bind_int64(st, 14, id);
	sqlite3_bind_text(st, 15, g->token_hash[0], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 16, g->token_hash[1], -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? STORE_OK : sql_err(rc);
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
	copy_col(st, 20, g->token_hash[0], sizeof g->token_hash[0]);
	copy_col(st, 21, g->token_hash[1], sizeof g->token_hash[1]);
	for (int i = 0; i < STORE_SEATS; i++)
		g->rating[i] = sqlite3_column_type(st, 22 + i) == SQLITE_NULL
		                       ? NAN
		                       : sqlite3_column_double(st, 22 + i);
	g->moves = NULL;
}

/* Loads g's moves (g->plies of them) in ply order; in progress: clocks after the last. */
static int load_moves(struct sqlite_store *s, struct store_game *g)
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

/* The game row of id, without moves: 0, STORE_ENOTFOUND or a failure. */
static int game_row(struct sqlite_store *s, int64_t id, struct store_game *out)
{
	sqlite3_stmt *st = stmt(s, S_GAME_GET);
	sqlite3_bind_int64(st, 1, id);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		read_game(st, out);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return rc == SQLITE_DONE ? STORE_ENOTFOUND : sql_err(rc);
	return STORE_OK;
}

/* A read snapshot for several statements, unless the caller's transaction is one already. */
static int snapshot_begin(struct sqlite_store *s)
{
	return s->base.in_txn ? STORE_OK : run(s, S_BEGIN_READ);
}

static int snapshot_end(struct sqlite_store *s)
{
	return s->base.in_txn ? STORE_OK : end(s, STORE_OK);
}

static int sq_game_fetch(struct store *bs, int64_t id, struct store_game *out)
{
	struct sqlite_store *s = impl(bs);
	int err = snapshot_begin(s); /* one snapshot for the row and its moves */
	if (err)
		return err;
	err = game_row(s, id, out);
	if (err == STORE_OK)
		err = load_moves(s, out);
	int cerr = snapshot_end(s);
	if (err == STORE_OK && cerr != STORE_OK) {
		store_game_clear(out);
		err = cerr;
	}
	return err;
}

/* Why a guarded write changed nothing: no such game, or not in progress. */
static int why_unchanged(struct sqlite_store *s, int64_t id)
{
	struct store_game g;
	int err = game_row(s, id, &g);
	return err == STORE_OK ? STORE_ESTATE : err;
}

static int sq_move_append(struct store *bs, int64_t id, const struct store_move *m)
{
	struct sqlite_store *s = impl(bs);
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
		return (rc & 0xff) == SQLITE_CONSTRAINT ? STORE_ESTATE : sql_err(rc);
	return changed > 0 ? STORE_OK : why_unchanged(s, id);
}

static int sq_moves_drop(struct store *bs, int64_t id, int n, int plies)
{
	struct sqlite_store *s = impl(bs);
	sqlite3_stmt *st = stmt(s, S_MOVES_DROP);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_int(st, 2, n);
	sqlite3_bind_int(st, 3, plies);
	int rc = sqlite3_step(st);
	int changed = sqlite3_changes(s->db);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return sql_err(rc);
	return changed > 0 ? STORE_OK : why_unchanged(s, id);
}

static int sq_game_finish(struct store *bs, int64_t id, const struct store_finish *f)
{
	struct sqlite_store *s = impl(bs);
	int err = unit_begin(s);
	if (err)
		return err;
	struct store_game g;
	err = game_row(s, id, &g);
	if (err == STORE_OK && g.status != STORE_IN_PROGRESS)
		err = STORE_ESTATE;
	if (err)
		return unit_end(s, err);
	sqlite3_stmt *st = stmt(s, S_GAME_FINISH);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, store_status_name(f->status), -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 3, f->ended);
	sqlite3_bind_text(st, 4, f->result, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 5, f->winner);
	sqlite3_bind_text(st, 6, f->reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 7, f->clock_ms[0]);
	sqlite3_bind_int64(st, 8, f->clock_ms[1]);
	for (int i = 0; i < STORE_SEATS; i++) {
		if (f->rate[i])
			sqlite3_bind_double(st, 9 + i, f->rating[i].rating);
		else
			sqlite3_bind_null(st, 9 + i);
	}
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	if (rc != SQLITE_DONE)
		return unit_end(s, sql_err(rc));
	for (int i = 0; i < STORE_SEATS && err == STORE_OK; i++) {
		if (!f->rate[i])
			continue;
		if (g.guest[i])
			err = STORE_ENOTFOUND;
		else
			err = sq_rating_put(bs, g.players[i], g.kind, &f->rating[i]);
	}
	return unit_end(s, err);
}

/* Steps a GAME_COLS query into a growing array; loads moves when asked. */
static int game_list(struct sqlite_store *s, sqlite3_stmt *st, bool with_moves,
                     struct store_game **out, size_t *n)
{
	struct store_game *v = NULL, g;
	size_t len = 0, cap = 0;
	int rc, err = STORE_OK;
	while (err == STORE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		read_game(st, &g);
		err = store_games_push(&v, &len, &cap, &g);
	}
	if (err == STORE_OK && rc != SQLITE_DONE)
		err = sql_err(rc);
	sqlite3_reset(st);
	/* Moves are read after the list query is reset (one statement steps at a time). */
	for (size_t i = 0; i < len && err == STORE_OK && with_moves; i++)
		err = load_moves(s, &v[i]);
	if (err) {
		store_games_free(v, len);
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

static int sq_games_in_progress(struct store *bs, struct store_game **out, size_t *n)
{
	struct sqlite_store *s = impl(bs);
	int err = snapshot_begin(s); /* one snapshot for the games and their moves */
	if (err)
		return err;
	err = game_list(s, stmt(s, S_IN_PROGRESS), true, out, n);
	int cerr = snapshot_end(s);
	if (err == STORE_OK && cerr != STORE_OK) {
		store_games_free(*out, *n);
		*out = NULL;
		*n = 0;
		err = cerr;
	}
	return err;
}

/* A document's upsert by statement put (tournaments, ladders). */
static int doc_put(struct store *bs, enum stmt_id put, int64_t id, const char *state,
                   const char *doc, int64_t now)
{
	sqlite3_stmt *st = stmt(impl(bs), put);
	sqlite3_bind_int64(st, 1, id);
	sqlite3_bind_text(st, 2, state, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, doc, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 4, now);
	int rc = sqlite3_step(st);
	sqlite3_reset(st);
	return rc == SQLITE_DONE ? STORE_OK : sql_err(rc);
}

static int sq_tourney_put(struct store *bs, int64_t id, const char *state, const char *doc,
                          int64_t now)
{
	return doc_put(bs, S_TOURNEY_PUT, id, state, doc, now);
}

static int sq_ladder_put(struct store *bs, int64_t id, const char *state, const char *doc,
                         int64_t now)
{
	return doc_put(bs, S_LADDER_PUT, id, state, doc, now);
}

/* The documents statement open reads, and the highest id by statement max. */
static int docs_open(struct store *bs, enum stmt_id open, enum stmt_id max,
                     struct store_tourney **out, size_t *n, int64_t *max_id)
{
	struct sqlite_store *s = impl(bs);
	sqlite3_stmt *st = stmt(s, max);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW)
		*max_id = sqlite3_column_int64(st, 0);
	sqlite3_reset(st);
	if (rc != SQLITE_ROW)
		return sql_err(rc);
	st = stmt(s, open);
	size_t cap = 0;
	int err = STORE_OK;
	while (err == STORE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		if (*n == cap) {
			size_t nc = cap ? cap * 2 : 8;
			struct store_tourney *v = realloc(*out, nc * sizeof *v);
			if (v == NULL) {
				err = STORE_ENOMEM;
				break;
			}
			*out = v;
			cap = nc;
		}
		struct store_tourney *t = &(*out)[*n];
		memset(t, 0, sizeof *t);
		t->id = sqlite3_column_int64(st, 0);
		copy_col(st, 1, t->state, sizeof t->state);
		const char *doc = (const char *)sqlite3_column_text(st, 2);
		t->doc = strdup(doc ? doc : "");
		t->updated = sqlite3_column_int64(st, 3);
		if (t->doc == NULL)
			err = STORE_ENOMEM;
		else
			(*n)++;
	}
	if (err == STORE_OK && rc != SQLITE_DONE)
		err = sql_err(rc);
	sqlite3_reset(st);
	if (err != STORE_OK) {
		store_tourneys_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return err;
}

static int sq_tourneys_open(struct store *bs, struct store_tourney **out, size_t *n,
                            int64_t *max_id)
{
	return docs_open(bs, S_TOURNEYS_OPEN, S_TOURNEY_MAX, out, n, max_id);
}

static int sq_ladders_open(struct store *bs, struct store_tourney **out, size_t *n, int64_t *max_id)
{
	return docs_open(bs, S_LADDERS_OPEN, S_LADDER_MAX, out, n, max_id);
}

static int sq_history(struct store *bs, const char *name, int limit, struct store_game **out,
                      size_t *n)
{
	struct sqlite_store *s = impl(bs);
	char key[STORE_PLAYER_MAX + 1];
	name_key(name, key, sizeof key);
	sqlite3_stmt *st = stmt(s, S_HISTORY);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 2, limit);
	return game_list(s, st, false, out, n);
}

static int sq_games_find(struct store *bs, const struct store_game_query *q, int limit,
                         struct store_game **out, size_t *n)
{
	struct sqlite_store *s = impl(bs);
	char key[STORE_PLAYER_MAX + 1];
	sqlite3_stmt *st = stmt(s, q->player != NULL ? S_FIND_PLAYER : S_FIND);
	if (q->player != NULL) {
		name_key(q->player, key, sizeof key);
		sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	}
	if (q->kind != NULL)
		sqlite3_bind_text(st, 2, q->kind, -1, SQLITE_STATIC);
	sqlite3_bind_int(st, 3, q->rated);
	sqlite3_bind_int64(st, 4, q->since);
	sqlite3_bind_int64(st, 5, q->until);
	sqlite3_bind_int64(st, 6, q->before);
	sqlite3_bind_int(st, 7, limit);
	int err = snapshot_begin(s); /* the page and its moves in one snapshot */
	if (err)
		return err;
	err = game_list(s, st, q->moves, out, n);
	int cerr = snapshot_end(s);
	if (err == STORE_OK && cerr != STORE_OK) {
		store_games_free(*out, *n);
		*out = NULL;
		*n = 0;
		err = cerr;
	}
	return err;
}

static int sq_player_counts(struct store *bs, const char *name, struct store_counts *out)
{
	struct sqlite_store *s = impl(bs);
	char key[STORE_PLAYER_MAX + 1];
	name_key(name, key, sizeof key);
	sqlite3_stmt *st = stmt(s, S_COUNTS);
	sqlite3_bind_text(st, 1, key, -1, SQLITE_STATIC);
	int rc = sqlite3_step(st);
	if (rc == SQLITE_ROW) {
		out->games = sqlite3_column_int64(st, 0);
		out->rated = sqlite3_column_int64(st, 1);
		out->wins = sqlite3_column_int64(st, 2);
		out->losses = sqlite3_column_int64(st, 3);
		out->draws = sqlite3_column_int64(st, 4);
	}
	sqlite3_reset(st);
	return rc == SQLITE_ROW ? STORE_OK : sql_err(rc);
}

static int sq_snapshot_begin(struct store *bs)
{
	return run(impl(bs), S_BEGIN_READ);
}

static int sq_snapshot_end(struct store *bs)
{
	return end(impl(bs), STORE_OK);
}

/*
 * sqlite3_backup_* from this connection into a new file: one step for every
 * page, so the copy is one read snapshot (in WAL mode the writer goes on
 * meanwhile; a step at a time would start again at each of its commits).
 */
static int sq_backup(struct store *bs, const char *dest)
{
	struct sqlite_store *s = impl(bs);
	sqlite3 *to = NULL;
	int rc = sqlite3_open_v2(dest, &to, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
	if (rc == SQLITE_OK)
		rc = sqlite3_exec(to, "PRAGMA synchronous = FULL", NULL, NULL, NULL);
	sqlite3_backup *b = rc == SQLITE_OK ? sqlite3_backup_init(to, "main", s->db, "main") : NULL;
	if (b == NULL && rc == SQLITE_OK)
		rc = sqlite3_errcode(to);
	if (b != NULL) {
		rc = sqlite3_backup_step(b, -1);
		int frc = sqlite3_backup_finish(b);
		rc = rc == SQLITE_DONE ? frc : rc;
	}
	if (rc != SQLITE_OK)
		snprintf(s->why, sizeof s->why, "backup into %s: %s", dest,
		         to != NULL ? sqlite3_errmsg(to) : "cannot open it");
	if (sqlite3_close(to) != SQLITE_OK && rc == SQLITE_OK)
		rc = SQLITE_IOERR;
	return rc == SQLITE_OK ? STORE_OK : sql_err(rc);
}

/* ---- moderation ----------------------------------------------------------------------- */

/*
 * The moderation statements are prepared on each call, not once: they run a few
 * times a day, and the prepared set stays the journal's.
 */
static int mod_exec(struct sqlite_store *s, const char *sql, const struct store_mod *m)
{
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql, -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_err(rc);
	char tkey[STORE_TARGET_MAX + 1], akey[STORE_PLAYER_MAX + 1];
	name_key(m->target, tkey, sizeof tkey);
	name_key(m->actor, akey, sizeof akey);
	/* the parameters every statement may name: ?1 kind, ?2 target, ?3 its key, ?4 actor,
	 * ?5 its key, ?6 action, ?7 reason, ?8 at, ?9 until */
	static const char *const kinds[] = {"admin", "ban", "mute", "block", "audit"};
	sqlite3_bind_text(st, 1, kinds[m->kind], -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 2, m->target, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 3, tkey, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 4, m->actor, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 5, akey, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 6, m->action, -1, SQLITE_STATIC);
	sqlite3_bind_text(st, 7, m->reason, -1, SQLITE_STATIC);
	sqlite3_bind_int64(st, 8, m->at);
	sqlite3_bind_int64(st, 9, m->until);
	rc = sqlite3_step(st);
	sqlite3_finalize(st);
	if (rc != SQLITE_DONE)
		return sql_err(rc);
	return sqlite3_changes(s->db) > 0 ? STORE_OK : STORE_ENOTFOUND;
}

static int sq_mod_write(struct store *bs, const struct store_mod *m)
{
	static const char *const put[] = {
	        [STORE_MOD_ADMIN] = "INSERT OR REPLACE INTO admins(name_key, name, by, added)"
	                            " VALUES (?3, ?2, ?4, ?8)",
	        [STORE_MOD_BAN] =
	                "INSERT OR REPLACE INTO sanctions VALUES (?1, ?3, ?2, ?4, ?7, ?8, ?9)",
	        [STORE_MOD_MUTE] =
	                "INSERT OR REPLACE INTO sanctions VALUES (?1, ?3, ?2, ?4, ?7, ?8, ?9)",
	        [STORE_MOD_BLOCK] = "INSERT OR REPLACE INTO blocks VALUES (?5, ?3, ?4, ?2, ?8)",
	};
	static const char *const del[] = {
	        [STORE_MOD_ADMIN] = "DELETE FROM admins WHERE name_key = ?3",
	        [STORE_MOD_BAN] = "DELETE FROM sanctions WHERE kind = ?1 AND target_key = ?3",
	        [STORE_MOD_MUTE] = "DELETE FROM sanctions WHERE kind = ?1 AND target_key = ?3",
	        [STORE_MOD_BLOCK] =
	                "DELETE FROM blocks WHERE blocker_key = ?5 AND blocked_key = ?3",
	};
	struct sqlite_store *s = impl(bs);
	int err = unit_begin(s);
	if (err)
		return err;
	if (m->kind != STORE_MOD_AUDIT)
		err = mod_exec(s, m->remove ? del[m->kind] : put[m->kind], m);
	if (err == STORE_OK && m->action[0] != '\0')
		err = mod_exec(s,
		               "INSERT INTO audit(at, actor, action, target, reason, until)"
		               " VALUES (?8, ?4, ?6, ?2, ?7, ?9)",
		               m);
	return unit_end(s, err);
}

static int sq_mod_list(struct store *bs, enum store_mod_kind kind, int limit,
                       struct store_mod **out, size_t *n)
{
	/* every query gives: actor, action, target, reason, at, until */
	static const char *const sql[] = {
	        [STORE_MOD_ADMIN] =
	                "SELECT by, '', name, '', added, 0 FROM admins ORDER BY name_key",
	        [STORE_MOD_BAN] = "SELECT by, '', target, reason, since, until FROM sanctions"
	                          " WHERE kind = 'ban' ORDER BY since",
	        [STORE_MOD_MUTE] = "SELECT by, '', target, reason, since, until FROM sanctions"
	                           " WHERE kind = 'mute' ORDER BY since",
	        [STORE_MOD_BLOCK] = "SELECT blocker, '', blocked, '', since, 0 FROM blocks"
	                            " ORDER BY blocker_key, blocked_key",
	        [STORE_MOD_AUDIT] = "SELECT actor, action, target, reason, at, until FROM audit"
	                            " ORDER BY id DESC LIMIT ?1",
	};
	struct sqlite_store *s = impl(bs);
	sqlite3_stmt *st = NULL;
	int rc = sqlite3_prepare_v2(s->db, sql[kind], -1, &st, NULL);
	if (rc != SQLITE_OK)
		return sql_err(rc);
	if (kind == STORE_MOD_AUDIT)
		sqlite3_bind_int(st, 1, limit);
	size_t cap = 0;
	int err = STORE_OK;
	while (err == STORE_OK && (rc = sqlite3_step(st)) == SQLITE_ROW) {
		struct store_mod m = {.kind = kind};
		copy_col(st, 0, m.actor, sizeof m.actor);
		copy_col(st, 1, m.action, sizeof m.action);
		copy_col(st, 2, m.target, sizeof m.target);
		copy_col(st, 3, m.reason, sizeof m.reason);
		m.at = sqlite3_column_int64(st, 4);
		m.until = sqlite3_column_int64(st, 5);
		err = store_mod_push(out, n, &cap, &m);
	}
	if (err == STORE_OK && rc != SQLITE_DONE)
		err = sql_err(rc);
	sqlite3_finalize(st);
	if (err != STORE_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

const struct store_backend store_sqlite = {
        .name = "sqlite",
        .open = sq_open,
        .close = sq_close,
        .where = sq_where,
        .last_error = sq_last_error,
        .schema_version = sq_schema_version,
        .check = sq_check,
        .begin = sq_begin,
        .commit = sq_commit,
        .rollback = sq_rollback,
        .sync = sq_sync,
        .reserve_ids = sq_reserve_ids,
        .account_insert = sq_account_insert,
        .rating_put = sq_rating_put,
        .game_insert = sq_game_insert,
        .move_append = sq_move_append,
        .moves_drop = sq_moves_drop,
        .game_finish = sq_game_finish,
        .account_get = sq_account_get,
        .rating_get = sq_rating_get,
        .rating_top = sq_rating_top,
        .rating_top_bots = sq_rating_top_bots,
        .ratings_of = sq_ratings_of,
        .game_fetch = sq_game_fetch,
        .games_in_progress = sq_games_in_progress,
        .history = sq_history,
        .games_find = sq_games_find,
        .player_counts = sq_player_counts,
        .tourney_put = sq_tourney_put,
        .tourneys_open = sq_tourneys_open,
        .ladder_put = sq_ladder_put,
        .ladders_open = sq_ladders_open,
        .snapshot_begin = sq_snapshot_begin,
        .snapshot_end = sq_snapshot_end,
        .backup = sq_backup,
        .prefs_get = sq_prefs_get,
        .prefs_put = sq_prefs_put,
        .mod_write = sq_mod_write,
        .mod_list = sq_mod_list,
};
