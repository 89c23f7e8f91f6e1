/*
 * store_pg.c - the PostgreSQL back end of the storage interface
 * (store_backend.h), through libpq: its own schema migrations (the table
 * bitarena_migrations, run under an advisory lock so that several servers
 * starting at once migrate once), statements prepared once per session,
 * accounts, ratings, games, the move journal and its guards, game ids from a
 * sequence, and a connection that comes back by itself after the server
 * went away.
 *
 * Blocking calls on purpose: back ends run only on the storage threads (the
 * journal's writer, the readers, recovery before the loop runs), never on
 * the event loop, and the interface is synchronous. libpq's blocking calls
 * on those threads keep every function one straight sequence of round
 * trips; its asynchronous API would buy nothing there and only pays off
 * where a thread must not wait, which is the loop, where no back end runs.
 *
 * Durability: every session sets synchronous_commit: on (STORE_SYNC_FULL:
 * COMMIT returns once the commit record is flushed to the server's disk) or
 * off (STORE_SYNC_LAZY: COMMIT returns at once, the WAL writer flushes
 * within a few wal_writer_delay; sync() commits an empty transaction with
 * synchronous_commit on, whose flush covers every earlier commit). The
 * server itself must run with fsync on (its default), as for any database.
 *
 * Transactions and refusals: a statement that fails aborts a PostgreSQL
 * transaction, so no refusal is ever made of an error: inserts use
 * ON CONFLICT DO NOTHING and guarded writes report how many rows they
 * changed and whether the game exists, in one statement. Text that is not
 * UTF-8 is refused before it is sent (STORE_EINVAL). A write that spans
 * statements (a game end with its ratings) runs under a savepoint inside
 * the caller's transaction.
 *
 * Fencing (a cluster's nodes, store_games_claim()): a node writes a game only
 * while the game's row names it the owner, and that holds until its COMMIT,
 * not only at its statement: a write locks the game's row (FOR SHARE, or the
 * UPDATE's own lock) until its transaction ends, and a claim, an UPDATE of the
 * owner, waits for it, then reads the games' moves in a statement of its own
 * (whose snapshot has what the writer committed). A writer paused inside its
 * transaction holds the claim only until the server ends its idle transaction
 * (PG_IDLE_TXN_MS); its COMMIT then fails and, tried again, its writes are
 * refused: nothing it wrote after the claim is ever committed.
 *
 * The server going away: a session that broke is reset before the next
 * transaction or read (a read that found the session broken is tried once
 * more on the new one); failing that, STORE_EUNAVAIL, and the next call tries
 * again. A commit whose answer was lost with the connection is not guessed:
 * each writer's transaction raises, first thing, a counter in a row of its
 * own (bitarena_commits: the writer's id, drawn at open, and its mark), and
 * once a session is back that row says whether it committed (waiting at
 * most PG_INDOUBT_MS for the server to return; the row stays locked while
 * the old session's transaction is still going). Not txid_status(): after a
 * crash of the server (stop -m immediate) a transaction id that reached no
 * WAL on disk is handed out again, so a transaction that never committed
 * would read as committed once another one took its id (seen in a nemesis
 * run: an acknowledged move never stored). A database whose bitarena tables were dropped,
 * or a server that answers at the same address with another store (the
 * store id written at creation differs), is STORE_EGONE for good, as a
 * replaced SQLite file is.
 */
#include <inttypes.h>
#include <libpq-fe.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "server/store/store.h"
#include "server/store/store_backend.h"
#include "server/util/log.h"

#define PG_LOCK_CLASS   1651078241 /* "bita": the advisory locks of bitarena */
#define PG_LOCK_MIGRATE 1
#define PG_LOCK_IDS     2
#define PG_INDOUBT_MS   2000 /* how long COMMIT waits to learn its lost answer */
#define PG_PARAMS_MAX   17
/*
 * A writer's transaction left idle this long is ended by the server, which
 * releases its locks: a writer sends a batch's statements and its COMMIT back
 * to back, so only a paused process (SIGSTOP, a long GC, a stopped VM) idles
 * so long, and a claim of its games (which waits for the game rows its
 * batch holds, S_MOVE_INSERT) goes on; the paused writer's COMMIT then fails
 * and its batch, tried again, is refused under the new owner. Shorter than
 * the default lock wait (STORE_BUSY_DEFAULT_MS) so that a claim outwaits it.
 */
#define PG_IDLE_TXN_MS 2000

#define STR_(x)      #x
#define STR(x)       STR_(x)
#define LOCK_MIGRATE STR(PG_LOCK_CLASS) ", " STR(PG_LOCK_MIGRATE)
#define LOCK_IDS     STR(PG_LOCK_CLASS) ", " STR(PG_LOCK_IDS)

/*
 * The migrations, in order: migration i brings the version from i to i+1.
 * Never edit one that has shipped; append a new one.
 */
static const char *const migrations[] = {
        /* 1: the first schema, the same tables as SQLite's version 2. */
        "CREATE TABLE accounts ("
        "  id bigserial PRIMARY KEY,"
        "  name text NOT NULL,"            /* as registered */
        "  name_key text NOT NULL UNIQUE," /* lowercased: case-insensitive uniqueness */
        "  pwhash text NOT NULL,"          /* crypto_pwhash_str output (Argon2id) */
        "  created bigint NOT NULL"
        ");"
        "CREATE TABLE ratings ("
        "  account bigint NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,"
        "  kind text NOT NULL,"
        "  rating double precision NOT NULL, rd double precision NOT NULL,"
        "  volatility double precision NOT NULL,"
        "  games integer NOT NULL DEFAULT 0,"
        "  updated bigint NOT NULL,"
        "  PRIMARY KEY (account, kind)"
        ");"
        "CREATE INDEX ratings_top ON ratings(kind, rating DESC);"
        /* ids are never reused: a sequence never goes back, not even on rollback */
        "CREATE SEQUENCE game_ids;"
        "CREATE TABLE games ("
        "  id bigint PRIMARY KEY,"
        "  kind text NOT NULL,"
        "  options text NOT NULL DEFAULT '',"
        "  seed bigint NOT NULL," /* the uint64 seed stored as its int64 bit pattern */
        "  player0 text NOT NULL, player1 text NOT NULL,"
        "  player0_key text NOT NULL, player1_key text NOT NULL,"
        "  guest0 boolean NOT NULL, guest1 boolean NOT NULL,"
        "  rated boolean NOT NULL,"
        "  time_base_ms bigint NOT NULL, time_inc_ms bigint NOT NULL,"
        "  started bigint NOT NULL,"
        "  ended bigint NOT NULL DEFAULT 0,"
        "  status text NOT NULL DEFAULT 'in_progress'"
        "    CHECK (status IN ('in_progress', 'finished', 'aborted')),"
        "  result text NOT NULL DEFAULT '',"
        "  winner integer NOT NULL DEFAULT -1,"
        "  reason text NOT NULL DEFAULT '',"
        "  clock0_ms bigint NOT NULL, clock1_ms bigint NOT NULL" /* start, then final */
        ");"
        "CREATE INDEX games_in_progress ON games(id) WHERE status = 'in_progress';"
        "CREATE INDEX games_player0 ON games(player0_key, ended);"
        "CREATE INDEX games_player1 ON games(player1_key, ended);"
        "CREATE TABLE moves ("
        "  game bigint NOT NULL REFERENCES games(id) ON DELETE CASCADE,"
        "  ply integer NOT NULL,"
        "  seat integer NOT NULL,"
        "  move text NOT NULL,"
        "  ms_used bigint NOT NULL,"
        "  clock0_ms bigint NOT NULL, clock1_ms bigint NOT NULL," /* after the move */
        "  at bigint NOT NULL,"
        "  PRIMARY KEY (game, ply)"
        ");"
        /* who this store is: a server found at the same address later must hold it */
        "CREATE TABLE bitarena_meta (key text PRIMARY KEY, value text NOT NULL);"
        "INSERT INTO bitarena_meta VALUES ('store_id', gen_random_uuid()::text);"
        /* n consecutive ids, never below one in use; the lock makes nextval + setval one
         * step for every server sharing the sequence */
        "CREATE FUNCTION bitarena_reserve_ids(n bigint) RETURNS bigint"
        " LANGUAGE plpgsql AS $f$"
        " DECLARE first bigint;"
        " BEGIN"
        "  PERFORM pg_advisory_lock(" LOCK_IDS ");"
        "  BEGIN"
        "   first := greatest(nextval('game_ids'),"
        "                     (SELECT coalesce(max(id), 0) + 1 FROM games));"
        "   PERFORM setval('game_ids', first + n - 1);"
        "  EXCEPTION WHEN OTHERS THEN"
        "   PERFORM pg_advisory_unlock(" LOCK_IDS ");"
        "   RAISE;"
        "  END;"
        "  PERFORM pg_advisory_unlock(" LOCK_IDS ");"
        "  RETURN first;"
        " END $f$;",
        /* 2: who runs each game (a cluster's node instance, "" for a single server): every
         * write of a game checks it, so a node that lost a game cannot write to it */
        "ALTER TABLE games ADD COLUMN owner text NOT NULL DEFAULT '';"
        "CREATE INDEX games_owner ON games(owner) WHERE status = 'in_progress';",
        /* 3: a guest seat's token, as its hash (hex; '' none): a game taken over or
         * restored brings a guest's seat back only with its token. Games stored before it
         * have none. */
        "ALTER TABLE games ADD COLUMN token_hash0 text NOT NULL DEFAULT '',"
        " ADD COLUMN token_hash1 text NOT NULL DEFAULT '';",
        /* 4: each seat's rating after a rated game (NULL: not rated; games ended before it
         * have none), the points of a player's rating history. */
        "ALTER TABLE games ADD COLUMN rating0 double precision,"
        " ADD COLUMN rating1 double precision;",
        /* 5: tournaments (issue 21), as SQLite's version 5: each one row, its state and
         * the whole of it as a document (store.h). Self-contained: no other table refers
         * to it or is changed, so it can take another number at a merge. */
        "CREATE TABLE tourneys ("
        "  id bigint PRIMARY KEY,"
        "  state text NOT NULL,"
        "  doc text NOT NULL,"
        "  updated bigint NOT NULL"
        ");"
        "CREATE INDEX tourneys_state ON tourneys(state);",
        /* 4: moderation (issue 25), as SQLite's version 6: admins, bans and mutes
         * (sanctions), each account's blocks, the audit trail of what admins did. */
        "CREATE TABLE IF NOT EXISTS admins ("
        "  name_key text PRIMARY KEY, name text NOT NULL,"
        "  by text NOT NULL, added bigint NOT NULL"
        ");"
        "CREATE TABLE IF NOT EXISTS sanctions ("
        "  kind text NOT NULL CHECK (kind IN ('ban', 'mute')),"
        "  target_key text NOT NULL, target text NOT NULL,"
        "  by text NOT NULL, reason text NOT NULL, since bigint NOT NULL,"
        "  until bigint NOT NULL,"
        "  PRIMARY KEY (kind, target_key)"
        ");"
        "CREATE TABLE IF NOT EXISTS blocks ("
        "  blocker_key text NOT NULL, blocked_key text NOT NULL,"
        "  blocker text NOT NULL, blocked text NOT NULL, since bigint NOT NULL,"
        "  PRIMARY KEY (blocker_key, blocked_key)"
        ");"
        "CREATE TABLE IF NOT EXISTS audit ("
        "  id bigserial PRIMARY KEY,"
        "  at bigint NOT NULL, actor text NOT NULL, action text NOT NULL,"
        "  target text NOT NULL, reason text NOT NULL, until bigint NOT NULL"
        ");",
        /* 7: an account's preferences (issue 22), as SQLite's version 7: a bot's account,
         * a human refusing bots, the games it takes (an accept filter's text, '' all). */
        "CREATE TABLE IF NOT EXISTS account_prefs ("
        "  name_key text PRIMARY KEY,"
        "  bot boolean NOT NULL DEFAULT false,"
        "  bots_off boolean NOT NULL DEFAULT false,"
        "  accept text NOT NULL DEFAULT ''"
        ");",
        /* 8 (after 7, bot accounts): the ladders (issue 22), as SQLite's version 8. */
        "CREATE TABLE IF NOT EXISTS ladders ("
        "  id bigint PRIMARY KEY,"
        "  state text NOT NULL,"
        "  doc text NOT NULL,"
        "  updated bigint NOT NULL"
        ");",
};
#define NMIGRATIONS ((int)(sizeof(migrations) / sizeof(migrations[0])))

#define GAME_COLS                                                                                  \
	"g.id, g.kind, g.options, g.seed, g.player0, g.player1, g.guest0, g.guest1, g.rated, "     \
	"g.time_base_ms, g.time_inc_ms, g.started, g.ended, g.status, g.result, g.winner, "        \
	"g.reason, g.clock0_ms, g.clock1_ms, g.token_hash0, g.token_hash1, g.rating0, g.rating1"
#define NGAME_COLS 23
/* after GAME_COLS: the moves of a game, one per row (NULL: none) */
#define MOVE_COLS "m.ply, m.seat, m.move, m.ms_used, m.clock0_ms, m.clock1_ms, m.at"

#define RATING_COLS "a.name, r.kind, r.rating, r.rd, r.volatility, r.games, r.updated"

/* The number of moves journalled for game $1 (plies are 0, 1, ... without holes). */
#define PLIES_OF_1    "(SELECT coalesce(max(ply) + 1, 0) FROM moves WHERE game = $1::bigint)"
#define GAME_EXISTS_1 "EXISTS (SELECT 1 FROM games WHERE id = $1::bigint)"

/*
 * A page of store_games_find(): $1 kind (NULL any), $2 rated (-1 any), $3 $4 the end's bounds
 * (0 none), $5 below this id, $6 the page's size; $7 a seat's name key (the _PLAYER ones).
 */
#define FIND_WHERE                                                                                 \
	"g.status <> 'in_progress' AND ($1::text IS NULL OR g.kind = $1::text)"                    \
	" AND ($2::int < 0 OR g.rated = ($2::int = 1))"                                            \
	" AND ($3::bigint = 0 OR g.ended >= $3::bigint)"                                           \
	" AND ($4::bigint = 0 OR g.ended <= $4::bigint) AND g.id < $5::bigint"
#define FIND_PLAYER " AND (g.player0_key = $7::text OR g.player1_key = $7::text)"
#define FIND_PAGE   " ORDER BY g.id DESC LIMIT $6::int"
#define FIND_COUNT                                                                                 \
	"SELECT " GAME_COLS ", (SELECT count(*) FROM moves m WHERE m.game = g.id) FROM games g"
/* with the moves: the page, then its games' moves in ply order */
#define FIND_MOVES(where)                                                                          \
	"SELECT " GAME_COLS ", " MOVE_COLS " FROM (SELECT * FROM games g WHERE " where FIND_PAGE   \
	") g LEFT JOIN moves m ON m.game = g.id ORDER BY g.id DESC, m.ply"

enum stmt_id {
	S_ACC_INSERT,
	S_ACC_GET,
	S_PREFS_GET,
	S_PREFS_PUT,
	S_RATING_GET,
	S_RATING_PUT,
	S_RATING_TOP,
	S_RATINGS_OF,
	S_RESERVE,
	S_GAME_INSERT,
	S_GAME_EXISTS,
	S_GAME_FETCH,
	S_MOVE_INSERT,
	S_MOVES_DROP,
	S_GAME_FINISH,
	S_IN_PROGRESS,
	S_HISTORY,
	S_CLAIM,
	S_CLAIMED,
	S_FIND,
	S_FIND_PLAYER,
	S_FIND_MOVES,
	S_FIND_PLAYER_MOVES,
	S_COUNTS,
	S_TOURNEY_PUT,
	S_TOURNEYS_OPEN,
	S_TOURNEY_MAX,
	S_ADMIN_PUT,
	S_ADMIN_DEL,
	S_SANCTION_PUT,
	S_SANCTION_DEL,
	S_BLOCK_PUT,
	S_BLOCK_DEL,
	S_AUDIT_ADD,
	S_MOD_LIST,
	S_AUDIT_LIST,
	S_LADDER_PUT,
	S_LADDERS_OPEN,
	S_LADDER_MAX,
	S_RATING_TOP_BOTS,
	S_COUNT
};
_Static_assert(S_COUNT <= 64, "struct pg_store's prepared is a bit per statement");

static const char *const stmt_sql[S_COUNT] = {
        [S_ACC_INSERT] = "INSERT INTO accounts(name, name_key, pwhash, created)"
                         " VALUES ($1, $2, $3, $4::bigint) ON CONFLICT (name_key) DO NOTHING",
        [S_ACC_GET] = "SELECT name, pwhash FROM accounts WHERE name_key = $1",
        [S_PREFS_GET] = "SELECT coalesce(p.bot, false), coalesce(p.bots_off, false),"
                        " coalesce(p.accept, ''), EXISTS (SELECT 1 FROM games"
                        " WHERE player0_key = $1 OR player1_key = $1) FROM accounts a"
                        " LEFT JOIN account_prefs p ON p.name_key = a.name_key"
                        " WHERE a.name_key = $1",
        /* (rows changed, the account exists): the bot flag of an account that played a
           game stays as it is */
        [S_PREFS_PUT] = "WITH u AS (INSERT INTO account_prefs(name_key, bot, bots_off, accept)"
                        " SELECT $1, $2::boolean, $3::boolean, $4 FROM accounts"
                        " WHERE name_key = $1 AND (coalesce((SELECT bot FROM account_prefs"
                        " WHERE name_key = $1), false) = $2::boolean OR NOT EXISTS (SELECT 1"
                        " FROM games WHERE player0_key = $1 OR player1_key = $1))"
                        " ON CONFLICT (name_key) DO UPDATE SET bot = excluded.bot,"
                        " bots_off = excluded.bots_off, accept = excluded.accept RETURNING 1)"
                        " SELECT (SELECT count(*) FROM u),"
                        " EXISTS (SELECT 1 FROM accounts WHERE name_key = $1)",
        /* no row: no such account; a row without a rating: the default */
        [S_RATING_GET] = "SELECT a.name, r.kind, r.rating, r.rd, r.volatility, r.games, r.updated"
                         " FROM accounts a LEFT JOIN ratings r ON r.account = a.id"
                         " AND r.kind = $2 WHERE a.name_key = $1",
        [S_RATING_PUT] =
                "INSERT INTO ratings(account, kind, rating, rd, volatility, games, updated)"
                " SELECT id, $2, $3::float8, $4::float8, $5::float8, $6::int, $7::bigint"
                " FROM accounts WHERE name_key = $1"
                " ON CONFLICT (account, kind) DO UPDATE SET rating = excluded.rating,"
                " rd = excluded.rd, volatility = excluded.volatility,"
                " games = excluded.games, updated = excluded.updated",
        [S_RATING_TOP] = "SELECT " RATING_COLS " FROM ratings r JOIN accounts a ON a.id = r.account"
                         " WHERE r.kind = $1 AND r.games > 0"
                         " ORDER BY r.rating DESC, r.rd ASC, a.name_key ASC LIMIT $2::bigint",
        [S_RATINGS_OF] = "SELECT " RATING_COLS " FROM ratings r JOIN accounts a ON a.id = r.account"
                         " WHERE a.name_key = $1 ORDER BY r.kind LIMIT $2::bigint",
        [S_RESERVE] = "SELECT bitarena_reserve_ids($1::bigint)",
        [S_GAME_INSERT] =
                "INSERT INTO games(id, kind, options, seed, player0, player1, player0_key,"
                " player1_key, guest0, guest1, rated, time_base_ms, time_inc_ms, started,"
                " clock0_ms, clock1_ms, owner, token_hash0, token_hash1)"
                " VALUES ($14::bigint, $1, $2, $3::bigint, $4, $5, $6, $7, $8::boolean,"
                " $9::boolean, $10::boolean, $11::bigint, $12::bigint, $13::bigint, $11::bigint,"
                " $11::bigint, $15, $16, $17) ON CONFLICT (id) DO NOTHING",
        [S_GAME_EXISTS] = "SELECT " GAME_EXISTS_1,
        /* the game and its moves in one statement: one snapshot */
        [S_GAME_FETCH] = "SELECT " GAME_COLS ", " MOVE_COLS " FROM games g"
                         " LEFT JOIN moves m ON m.game = g.id WHERE g.id = $1::bigint"
                         " ORDER BY m.ply",
        /* inserts only when the game is in progress, ours ($9: the owner) and ply is the next
         * one; answers (inserted, the game exists). The game's row stays locked (FOR SHARE)
         * until the transaction ends: a claim (an UPDATE of the owner) waits for it, so the
         * ownership checked here still holds at COMMIT (the fence is at the commit) */
        [S_MOVE_INSERT] =
                "WITH g AS (SELECT id FROM games WHERE id = $1::bigint"
                " AND status = 'in_progress' AND owner = $9 FOR SHARE),"
                " ins AS (INSERT INTO moves(game, ply, seat, move, ms_used, clock0_ms,"
                " clock1_ms, at) SELECT $1::bigint, $2::int, $3::int, $4::text, $5::bigint,"
                " $6::bigint, $7::bigint, $8::bigint FROM g WHERE $2::int = " PLIES_OF_1
                " ON CONFLICT (game, ply) DO NOTHING RETURNING 1)"
                " SELECT (SELECT count(*) FROM ins), " GAME_EXISTS_1,
        /* drops the last $2 moves, when there are that many (and exactly $3 if $3 >= 0) */
        [S_MOVES_DROP] = "WITH p AS (SELECT " PLIES_OF_1 " AS n),"
                         " d AS (DELETE FROM moves WHERE game = $1::bigint"
                         " AND ply >= (SELECT n FROM p) - $2::int AND (SELECT n FROM p) >= $2::int"
                         " AND ($3::int < 0 OR (SELECT n FROM p) = $3::int)"
                         " AND EXISTS (SELECT 1 FROM games WHERE id = $1::bigint"
                         " AND status = 'in_progress' AND owner = $4 FOR SHARE) RETURNING 1)"
                         " SELECT (SELECT count(*) FROM d), " GAME_EXISTS_1,
        [S_GAME_FINISH] = "UPDATE games SET status = $2, ended = $3::bigint, result = $4,"
                          " winner = $5::int, reason = $6, clock0_ms = $7::bigint,"
                          " clock1_ms = $8::bigint, rating0 = $10::float8,"
                          " rating1 = $11::float8 WHERE id = $1::bigint"
                          " AND status = 'in_progress' AND owner = $9"
                          " RETURNING guest0, guest1, kind, player0, player1",
        [S_IN_PROGRESS] = "SELECT " GAME_COLS ", " MOVE_COLS " FROM games g"
                          " LEFT JOIN moves m ON m.game = g.id WHERE g.status = 'in_progress'"
                          " ORDER BY g.id, m.ply",
        [S_HISTORY] = "SELECT " GAME_COLS ", (SELECT count(*) FROM moves m WHERE m.game = g.id)"
                      " FROM games g WHERE g.status <> 'in_progress'"
                      " AND (g.player0_key = $1 OR g.player1_key = $1)"
                      " ORDER BY g.ended DESC, g.id DESC LIMIT $2::int",
        /* the games in progress of owner $2 (or, $3 true, of any instance of the name $2
         * ends with before its '*', and of no owner) become owner $1's: their ids. The
         * UPDATE waits for the writes that hold a game's row (S_MOVE_INSERT); its moves are
         * read by S_CLAIMED, a statement after it whose snapshot has those writes */
        [S_CLAIM] = "UPDATE games SET owner = $1 WHERE status = 'in_progress'"
                    " AND (owner = $2 OR ($3::boolean AND (owner = ''"
                    " OR starts_with(owner, left($2, -1))))) RETURNING id",
        /* the games of ids $1 (an array), with their moves */
        [S_CLAIMED] = "SELECT " GAME_COLS ", " MOVE_COLS " FROM games g"
                      " LEFT JOIN moves m ON m.game = g.id WHERE g.id = ANY ($1::bigint[])"
                      " ORDER BY g.id, m.ply",
        [S_FIND] = FIND_COUNT " WHERE " FIND_WHERE FIND_PAGE,
        [S_FIND_PLAYER] = FIND_COUNT " WHERE " FIND_WHERE FIND_PLAYER FIND_PAGE,
        [S_FIND_MOVES] = FIND_MOVES(FIND_WHERE),
        [S_FIND_PLAYER_MOVES] = FIND_MOVES(FIND_WHERE FIND_PLAYER),
        /* finished games of the seat named $1: all, rated, won, lost, drawn */
        [S_COUNTS] = "SELECT count(*), count(*) FILTER (WHERE rated),"
                     " count(*) FILTER (WHERE winner = CASE WHEN player0_key = $1 THEN 0 ELSE 1"
                     " END), count(*) FILTER (WHERE winner >= 0 AND winner <> CASE WHEN"
                     " player0_key = $1 THEN 0 ELSE 1 END), count(*) FILTER (WHERE winner < 0)"
                     " FROM games WHERE status = 'finished'"
                     " AND (player0_key = $1 OR player1_key = $1)",
        [S_TOURNEY_PUT] = "INSERT INTO tourneys(id, state, doc, updated)"
                          " VALUES ($1::bigint, $2, $3, $4::bigint)"
                          " ON CONFLICT (id) DO UPDATE SET state = excluded.state,"
                          " doc = excluded.doc, updated = excluded.updated",
        [S_TOURNEYS_OPEN] = "SELECT id, state, doc, updated FROM tourneys"
                            " WHERE state NOT IN ('finished', 'cancelled') ORDER BY id",
        [S_TOURNEY_MAX] = "SELECT coalesce(max(id), 0) FROM tourneys",
        [S_LADDER_PUT] = "INSERT INTO ladders(id, state, doc, updated)"
                         " VALUES ($1::bigint, $2, $3, $4::bigint)"
                         " ON CONFLICT (id) DO UPDATE SET state = excluded.state,"
                         " doc = excluded.doc, updated = excluded.updated",
        [S_LADDERS_OPEN] = "SELECT id, state, doc, updated FROM ladders ORDER BY id",
        [S_LADDER_MAX] = "SELECT coalesce(max(id), 0) FROM ladders",
        [S_RATING_TOP_BOTS] = "SELECT " RATING_COLS " FROM ratings r JOIN accounts a"
                              " ON a.id = r.account JOIN account_prefs p"
                              " ON p.name_key = a.name_key AND p.bot"
                              " WHERE r.kind = $1 AND r.games > 0"
                              " ORDER BY r.rating DESC, r.rd ASC, a.name_key ASC"
                              " LIMIT $2::bigint",
        /* moderation: $1 the target, $2 its key, $3 the actor, ... (pg_mod_write) */
        [S_ADMIN_PUT] = "INSERT INTO admins(name_key, name, by, added) VALUES ($2, $1, $3,"
                        " $4::bigint) ON CONFLICT (name_key) DO UPDATE SET name = $1, by = $3,"
                        " added = $4::bigint",
        [S_ADMIN_DEL] = "DELETE FROM admins WHERE name_key = $1",
        [S_SANCTION_PUT] = "INSERT INTO sanctions VALUES ($5, $2, $1, $3, $6, $4::bigint,"
                           " $7::bigint) ON CONFLICT (kind, target_key) DO UPDATE SET"
                           " target = $1, by = $3, reason = $6, since = $4::bigint,"
                           " until = $7::bigint",
        [S_SANCTION_DEL] = "DELETE FROM sanctions WHERE kind = $1 AND target_key = $2",
        [S_BLOCK_PUT] = "INSERT INTO blocks VALUES ($5, $2, $3, $1, $4::bigint)"
                        " ON CONFLICT (blocker_key, blocked_key) DO NOTHING",
        [S_BLOCK_DEL] = "DELETE FROM blocks WHERE blocker_key = $1 AND blocked_key = $2",
        [S_AUDIT_ADD] = "INSERT INTO audit(at, actor, action, target, reason, until)"
                        " VALUES ($1::bigint, $2, $3, $4, $5, $6::bigint)",
        /* every list gives: actor, action, target, reason, at, until */
        [S_MOD_LIST] = "SELECT by, '', name, '', added, 0::bigint FROM admins WHERE $1 = 'admin'"
                       " UNION ALL SELECT by, '', target, reason, since, until FROM sanctions"
                       " WHERE kind = $1 UNION ALL SELECT blocker, '', blocked, '', since,"
                       " 0::bigint FROM blocks WHERE $1 = 'block' ORDER BY 5, 1, 3",
        [S_AUDIT_LIST] = "SELECT actor, action, target, reason, at, until FROM audit"
                         " ORDER BY id DESC LIMIT $1::int",
};

/* The writes of one transaction, as calls (a hash of the statement and its arguments) and
 * their answers. */
struct wlog_entry {
	uint64_t call;
	int result;
	int64_t value; /* reserve_ids: the first id */
};

struct wlog {
	struct wlog_entry *v;
	size_t n, cap;
	bool lost; /* out of memory once: this log cannot be answered from */
};

struct pg_store {
	struct store base; /* first: a struct store * is a struct pg_store * */
	PGconn *conn;
	char *conninfo;
	enum store_sync sync;
	int busy_ms;
	bool reader;
	bool session_ok;    /* the session is set up: settings made, the store checked */
	uint64_t prepared;  /* bit i: statement i is prepared on this session */
	bool txn;           /* a transaction is open on the session (the caller's or a unit's) */
	int64_t mark;       /* its mark in bitarena_commits (0: a reader's, none) */
	struct wlog log;    /* its writes and their answers */
	struct wlog doubt;  /* the writes of the transaction whose commit's answer was lost */
	int64_t doubt_mark; /* that transaction's mark (0: none) */
	struct wlog replay; /* the writes of a lost commit that did happen, to answer again */
	size_t replay_at;   /* the next of them */
	bool gone;          /* the store was dropped or replaced: for good, why says how */
	char store_id[64];  /* bitarena_meta's store_id, read at open */
	char node[STORE_NODE_MAX + 1]; /* the owner this connection writes as ("": none) */
	char writer[40]; /* a writer's row in bitarena_commits (a UUID drawn at open) */
	char where[256];
	char why[700];
};

static struct pg_store *impl(struct store *s)
{
	return (struct pg_store *)s;
}

/* ---- parameters and results -------------------------------------------------------------- */

struct params {
	int n;
	const char *v[PG_PARAMS_MAX];
	char buf[PG_PARAMS_MAX][32];
};

static void p_str(struct params *p, const char *s)
{
	p->v[p->n++] = s;
}

static void p_i64(struct params *p, int64_t x)
{
	snprintf(p->buf[p->n], sizeof p->buf[p->n], "%" PRId64, x);
	p_str(p, p->buf[p->n]);
}

static void p_dbl(struct params *p, double x)
{
	snprintf(p->buf[p->n], sizeof p->buf[p->n], "%.17g", x);
	p_str(p, p->buf[p->n]);
}

static void p_bool(struct params *p, bool b)
{
	p_str(p, b ? "t" : "f");
}

static int64_t col_i64(const PGresult *r, int row, int col)
{
	return PQgetisnull(r, row, col) ? 0 : strtoll(PQgetvalue(r, row, col), NULL, 10);
}

static double col_dbl(const PGresult *r, int row, int col)
{
	return strtod(PQgetvalue(r, row, col), NULL);
}

static bool col_bool(const PGresult *r, int row, int col)
{
	return PQgetvalue(r, row, col)[0] == 't';
}

static void col_str(const PGresult *r, int row, int col, char *buf, size_t size)
{
	snprintf(buf, size, "%s", PQgetvalue(r, row, col));
}

/* True when s is valid UTF-8 (what a UTF8 database accepts as text). */
static bool utf8_valid(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	while (*p) {
		unsigned c = *p;
		int n = c < 0x80             ? 0
		        : (c & 0xe0) == 0xc0 ? 1
		        : (c & 0xf0) == 0xe0 ? 2
		        : (c & 0xf8) == 0xf0 ? 3
		                             : -1;
		if (n < 0 || (n == 1 && c < 0xc2) || (n == 3 && c > 0xf4))
			return false;
		unsigned cp = n == 0 ? c : c & (0x3fu >> n);
		for (int i = 1; i <= n; i++) {
			if ((p[i] & 0xc0) != 0x80)
				return false;
			cp = (cp << 6) | (p[i] & 0x3fu);
		}
		if ((n == 2 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) ||
		    (n == 3 && (cp < 0x10000 || cp > 0x10ffff)))
			return false;
		p += n + 1;
	}
	return true;
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

static enum store_status status_from_text(const char *t)
{
	if (strcmp(t, "finished") == 0)
		return STORE_FINISHED;
	if (strcmp(t, "aborted") == 0)
		return STORE_ABORTED;
	return STORE_IN_PROGRESS;
}

/* Keeps msg (one line) as the connection's last error. */
static void set_why(struct pg_store *s, const char *msg)
{
	snprintf(s->why, sizeof s->why, "%s", msg != NULL && *msg ? msg : "unknown failure");
	size_t n = strlen(s->why);
	while (n > 0 && (s->why[n - 1] == '\n' || s->why[n - 1] == ' '))
		s->why[--n] = '\0';
	for (char *c = s->why; *c; c++)
		if (*c == '\n')
			*c = ' ';
}

/* A store error for an SQLSTATE (NULL: the client's own failure, the connection). */
static int sqlstate_err(const char *state)
{
	if (state == NULL || strncmp(state, "08", 2) == 0 || strcmp(state, "57P01") == 0 ||
	    strcmp(state, "57P02") == 0 || strcmp(state, "57P03") == 0 ||
	    strcmp(state, "53300") == 0)
		return STORE_EUNAVAIL; /* no connection, shut down, starting, too many clients */
	if (strcmp(state, "53100") == 0)
		return STORE_EFULL;
	if (strcmp(state, "53200") == 0)
		return STORE_ENOMEM;
	if (strcmp(state, "55P03") == 0 || strcmp(state, "40P01") == 0 ||
	    strcmp(state, "40001") == 0 || strcmp(state, "57014") == 0)
		return STORE_EBUSY; /* lock timeout, deadlock, serialization, statement timeout */
	if (strcmp(state, "42P01") == 0 || strcmp(state, "42883") == 0 ||
	    strcmp(state, "3D000") == 0 || strcmp(state, "3F000") == 0)
		return STORE_EGONE; /* our tables, function, database or schema are not there */
	if (strcmp(state, "23505") == 0)
		return STORE_EEXISTS;
	if (strcmp(state, "25006") == 0)
		return STORE_EINVAL; /* a write on a read-only connection */
	return STORE_EIO;
}

/*
 * 0 when r is a success; else the store error (the message kept in why). A
 * missing table makes the store gone for good.
 */
static int result_err(struct pg_store *s, const PGresult *r)
{
	ExecStatusType st = r != NULL ? PQresultStatus(r) : PGRES_FATAL_ERROR;
	if (st == PGRES_COMMAND_OK || st == PGRES_TUPLES_OK)
		return STORE_OK;
	const char *state = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	set_why(s, r != NULL && *PQresultErrorMessage(r) ? PQresultErrorMessage(r)
	                                                 : PQerrorMessage(s->conn));
	if (PQstatus(s->conn) != CONNECTION_OK)
		return STORE_EUNAVAIL;
	int err = sqlstate_err(state);
	if (err == STORE_EGONE) {
		char was[sizeof s->why];
		snprintf(was, sizeof was, "%s", s->why);
		snprintf(s->why, sizeof s->why, "the store in %.256s is gone (%.300s)", s->where,
		         was);
		s->gone = true;
	}
	return err;
}

/* Runs a command without parameters (SET, BEGIN, ...) on the session as it is. */
static int exec_cmd(struct pg_store *s, const char *sql)
{
	PGresult *r = PQexec(s->conn, sql);
	int err = result_err(s, r);
	PQclear(r);
	return err;
}

/* ---- the session ------------------------------------------------------------------------ */

static void quiet(void *arg, const char *message)
{
	(void)arg;
	(void)message; /* notices ("already exists, skipping") are not worth a line */
}

static const char *const stmt_names[] = {
        "acc_insert",  "acc_get",       "prefs_get",         "prefs_put",
        "rating_get",  "rating_put",    "rating_top",        "ratings_of",
        "reserve",     "game_insert",   "game_exists",       "game_fetch",
        "move_insert", "moves_drop",    "game_finish",       "in_progress",
        "history",     "claim",         "claimed",           "find",
        "find_player", "find_moves",    "find_player_moves", "counts",
        "tourney_put", "tourneys_open", "tourney_max",       "admin_put",
        "admin_del",   "sanction_put",  "sanction_del",      "block_put",
        "block_del",   "audit_add",     "mod_list",          "audit_list",
        "ladder_put",  "ladders_open",  "ladder_max",        "rating_top_bots",
};
/* a name for every statement, in the enum's order (a name given twice does not prepare) */
_Static_assert(sizeof stmt_names / sizeof stmt_names[0] == S_COUNT, "one name per statement");

/* Settings of a new session: durability, lock wait, encoding, read-only for readers. */
static int session_setup(struct pg_store *s)
{
	PQsetNoticeProcessor(s->conn, quiet, NULL);
	const char *enc = PQparameterStatus(s->conn, "server_encoding");
	if (enc == NULL || (strcmp(enc, "UTF8") != 0 && strcmp(enc, "SQL_ASCII") != 0)) {
		snprintf(s->why, sizeof s->why,
		         "the database's encoding is %s; bitarena needs UTF8",
		         enc ? enc : "unknown");
		return STORE_EINVAL;
	}
	char sql[400];
	snprintf(sql, sizeof sql,
	         "SET client_encoding = 'UTF8'; SET synchronous_commit = %s;"
	         " SET lock_timeout = %d; SET default_transaction_read_only = %s;"
	         " SET idle_in_transaction_session_timeout = %d",
	         s->sync == STORE_SYNC_LAZY ? "off" : "on", s->busy_ms, s->reader ? "on" : "off",
	         s->reader ? 0 : PG_IDLE_TXN_MS);
	return exec_cmd(s, sql);
}

/*
 * Prepares statement id on this session the first time it is used: a reader
 * never prepares a write (an INSERT's preparation locks its table, and would
 * wait behind another connection's table lock).
 */
static int prepare(struct pg_store *s, enum stmt_id id)
{
	if (s->prepared & (UINT64_C(1) << id))
		return STORE_OK;
	PGresult *r = PQprepare(s->conn, stmt_names[id], stmt_sql[id], 0, NULL);
	int err = result_err(s, r);
	PQclear(r);
	if (err == STORE_OK)
		s->prepared |= UINT64_C(1) << id;
	return err;
}

/* Reads the store id (into out, or checks it against s->store_id when out is NULL). */
static int store_identity(struct pg_store *s, char *out, size_t size)
{
	PGresult *r = PQexec(s->conn, "SELECT value FROM bitarena_meta WHERE key = 'store_id'");
	int err = result_err(s, r);
	if (err == STORE_OK && PQntuples(r) != 1) {
		snprintf(s->why, sizeof s->why, "%s holds no bitarena store id", s->where);
		err = STORE_EGONE;
	}
	if (err == STORE_OK && out != NULL)
		col_str(r, 0, 0, out, size);
	else if (err == STORE_OK && strcmp(PQgetvalue(r, 0, 0), s->store_id) != 0) {
		snprintf(s->why, sizeof s->why,
		         "%s holds another store than the one opened (replaced since)", s->where);
		err = STORE_EGONE;
	}
	PQclear(r);
	if (err == STORE_EGONE)
		s->gone = true;
	return err;
}

/* After a connection is (re)made: its settings, the check that it is our store. */
static int session_start(struct pg_store *s)
{
	s->prepared = 0;
	int err = session_setup(s);
	if (err == STORE_OK)
		err = store_identity(s, NULL, 0);
	return err;
}

/*
 * The session, made again when it broke (or when setting it up failed
 * half-way): 0, STORE_EUNAVAIL (no server yet: the next call tries again),
 * STORE_EGONE. Only outside a transaction.
 */
static int ready(struct pg_store *s)
{
	if (s->gone)
		return STORE_EGONE;
	if (PQstatus(s->conn) == CONNECTION_OK && s->session_ok)
		return STORE_OK;
	s->txn = false;
	s->session_ok = false;
	if (PQstatus(s->conn) != CONNECTION_OK) {
		PQreset(s->conn);
		if (PQstatus(s->conn) != CONNECTION_OK) {
			set_why(s, PQerrorMessage(s->conn));
			return STORE_EUNAVAIL;
		}
	} else if (exec_cmd(s, "DEALLOCATE ALL") != STORE_OK) { /* what a failed start left */
		return STORE_EUNAVAIL;
	}
	int err = session_start(s);
	s->session_ok = err == STORE_OK;
	return err;
}

/*
 * Runs prepared statement id with p; *out is the result on success (the
 * caller clears it). A read outside a transaction that finds the session
 * broken (the server restarted since) is tried once more on a new one.
 */
static int run(struct pg_store *s, enum stmt_id id, const struct params *p, PGresult **out)
{
	*out = NULL;
	for (int attempt = 0;; attempt++) {
		if (!s->txn) {
			int err = ready(s);
			if (err)
				return err;
		} else if (PQstatus(s->conn) != CONNECTION_OK) {
			set_why(s, PQerrorMessage(s->conn));
			return STORE_EUNAVAIL;
		}
		int err = prepare(s, id);
		PGresult *r = err ? NULL
		                  : PQexecPrepared(s->conn, stmt_names[id], p ? p->n : 0,
		                                   p ? p->v : NULL, NULL, NULL, 0);
		if (err == STORE_OK)
			err = result_err(s, r);
		if (err == STORE_OK) {
			*out = r;
			return STORE_OK;
		}
		PQclear(r);
		if (err != STORE_EUNAVAIL || s->txn || attempt > 0)
			return err;
	}
}

static void msleep(int ms)
{
	struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
	nanosleep(&ts, NULL);
}

static int64_t mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* ---- the writes of a transaction, to answer them again -------------------------------------- */

static uint64_t fnv(uint64_t h, const void *data, size_t n)
{
	const unsigned char *b = data;
	for (size_t i = 0; i < n; i++)
		h = (h ^ b[i]) * 0x100000001b3ULL;
	return h;
}

/* What a write asks: its statement and every argument, as sent. */
static uint64_t call_of(enum stmt_id id, const struct params *p)
{
	uint64_t h = fnv(0xcbf29ce484222325ULL, &id, sizeof id);
	for (int i = 0; i < p->n; i++) /* a NULL parameter hashes as one byte 0xff */
		h = p->v[i] ? fnv(h, p->v[i], strlen(p->v[i]) + 1) : fnv(h, "\xff", 1);
	return h;
}

static void wlog_add(struct wlog *l, uint64_t call, int result, int64_t value)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		struct wlog_entry *v = realloc(l->v, cap * sizeof *v);
		if (v == NULL) {
			l->lost = true;
			return;
		}
		l->v = v;
		l->cap = cap;
	}
	l->v[l->n++] = (struct wlog_entry){.call = call, .result = result, .value = value};
}

static void wlog_clear(struct wlog *l)
{
	l->n = 0;
	l->lost = false;
}

static void wlog_free(struct wlog *l)
{
	free(l->v);
	memset(l, 0, sizeof *l);
}

static void wlog_swap(struct wlog *a, struct wlog *b)
{
	struct wlog t = *a;
	*a = *b;
	*b = t;
}

/*
 * A write the transaction whose lost commit did happen already made: the
 * writer tries a failed batch again, with the same records in the same
 * order; those already stored get the answers they got then (a move is not
 * refused as a duplicate of itself). The first write that differs ends it.
 */
static bool replayed(struct pg_store *s, uint64_t call, int *result, int64_t *value)
{
	if (s->replay_at >= s->replay.n)
		return false;
	const struct wlog_entry *e = &s->replay.v[s->replay_at];
	if (e->call != call) {
		s->replay_at = s->replay.n = 0;
		return false;
	}
	s->replay_at++;
	*result = e->result;
	if (value != NULL)
		*value = e->value;
	wlog_add(&s->log, call, e->result, e->value);
	return true;
}

/*
 * The fate of the transaction in doubt, from the writer's row: "committed"
 * (its mark is there), "aborted", or "in progress" while the row is locked
 * (the old session's transaction still going: not known yet).
 */
static int doubt_status(struct pg_store *s, char *out, size_t size)
{
	const char *v[1] = {s->writer};
	PGresult *r = PQexecParams(s->conn,
	                           "SELECT mark FROM bitarena_commits WHERE writer = $1"
	                           " FOR UPDATE NOWAIT",
	                           1, NULL, v, NULL, NULL, 0);
	const char *state = r != NULL ? PQresultErrorField(r, PG_DIAG_SQLSTATE) : NULL;
	int err = state != NULL && strcmp(state, "55P03") == 0 ? STORE_OK : result_err(s, r);
	snprintf(out, size, "%s",
	         err != STORE_OK || PQresultStatus(r) != PGRES_TUPLES_OK  ? "in progress"
	         : PQntuples(r) == 1 && col_i64(r, 0, 0) >= s->doubt_mark ? "committed"
	                                                                  : "aborted");
	PQclear(r);
	return err;
}

/*
 * Learns the fate of the transaction in doubt (on a session that is
 * ready): committed, its writes are answered again when tried again;
 * rolled back, they are simply made again. STORE_EUNAVAIL while it is not
 * known yet (its old session still ending).
 */
static int resolve_doubt(struct pg_store *s)
{
	char st[32];
	int err = doubt_status(s, st, sizeof st);
	if (err)
		return err;
	if (strcmp(st, "in progress") == 0) {
		snprintf(s->why, sizeof s->why,
		         "whether the last commit happened is not known yet");
		return STORE_EUNAVAIL;
	}
	if (strcmp(st, "committed") == 0 && !s->doubt.lost) {
		wlog_swap(&s->replay, &s->doubt);
		s->replay_at = 0;
	}
	wlog_clear(&s->doubt);
	s->doubt_mark = 0;
	return STORE_OK;
}

/* ---- transactions ------------------------------------------------------------------------ */

/*
 * BEGIN, with the writer's mark raised now (to learn a lost commit's
 * fate); the fate of an earlier one in doubt is learnt first.
 */
static int txn_begin(struct pg_store *s)
{
	for (int attempt = 0;; attempt++) {
		int err = ready(s);
		if (err == STORE_OK && s->doubt_mark != 0)
			err = resolve_doubt(s);
		if (err)
			return err;
		char sql[300];
		snprintf(sql, sizeof sql,
		         "BEGIN; INSERT INTO bitarena_commits AS c (writer, mark) VALUES ('%s', 1)"
		         " ON CONFLICT (writer) DO UPDATE SET mark = c.mark + 1, at = now()"
		         " RETURNING mark",
		         s->writer);
		PGresult *r = PQexec(s->conn, s->writer[0] ? sql : "BEGIN; SELECT 0");
		err = result_err(s, r);
		if (err == STORE_OK && PQntuples(r) == 1) {
			s->mark = col_i64(r, 0, 0);
			s->txn = true;
			wlog_clear(&s->log);
			PQclear(r);
			return STORE_OK;
		}
		PQclear(r);
		if (err == STORE_OK)
			err = STORE_EIO;
		if (PQstatus(s->conn) == CONNECTION_OK &&
		    PQtransactionStatus(s->conn) != PQTRANS_IDLE)
			exec_cmd(s, "ROLLBACK");
		/* a session broken since the last call: once more on a new one */
		if (err != STORE_EUNAVAIL || attempt > 0)
			return err;
	}
}

/*
 * The answer to COMMIT was lost with the connection: whether it happened is
 * asked of the server once it is back (the writer's mark), for PG_INDOUBT_MS.
 * 0: it committed; STORE_EUNAVAIL: it did not, or it is not known yet (then
 * the next transaction asks first, and the writes of this one, when tried
 * again, get the answers they had if it did commit).
 */
static int commit_fate(struct pg_store *s)
{
	char why[sizeof s->why];
	snprintf(why, sizeof why, "%s", s->why);
	if (s->mark == 0) /* a reader's: nothing it did is in doubt */
		return STORE_EUNAVAIL;
	wlog_swap(&s->doubt, &s->log);
	s->doubt_mark = s->mark;
	int64_t until = mono_ms() + PG_INDOUBT_MS;
	for (int wait = 10;; wait = wait < 200 ? wait * 2 : 200) {
		char st[32] = "";
		int err = ready(s);
		if (err == STORE_EGONE)
			return err;
		if (err == STORE_OK && doubt_status(s, st, sizeof st) == STORE_OK &&
		    strcmp(st, "in progress") != 0) {
			bool committed = strcmp(st, "committed") == 0;
			wlog_clear(&s->doubt);
			s->doubt_mark = 0;
			if (committed)
				return STORE_OK;
			snprintf(s->why, sizeof s->why, "%.300s (the commit did not happen)", why);
			return STORE_EUNAVAIL;
		}
		if (mono_ms() >= until) {
			snprintf(
			        s->why, sizeof s->why,
			        "%.300s (whether the commit happened will be asked when the server "
			        "is back)",
			        why);
			return STORE_EUNAVAIL;
		}
		msleep(wait);
	}
}

static int txn_commit(struct pg_store *s)
{
	PGresult *r = PQexec(s->conn, "COMMIT");
	int err = result_err(s, r);
	/* COMMIT of a transaction that had failed answers ROLLBACK */
	if (err == STORE_OK && strcmp(PQcmdStatus(r), "COMMIT") != 0) {
		snprintf(s->why, sizeof s->why, "the transaction was rolled back");
		err = STORE_EIO;
	}
	PQclear(r);
	s->txn = false;
	if (err == STORE_EUNAVAIL)
		err = commit_fate(s);
	wlog_clear(&s->log);
	if (err == STORE_OK) /* what a replay answered for is in this commit now */
		s->replay.n = 0;
	s->replay_at = 0;
	return err;
}

static void txn_rollback(struct pg_store *s)
{
	if (PQstatus(s->conn) == CONNECTION_OK && PQtransactionStatus(s->conn) != PQTRANS_IDLE)
		PQclear(PQexec(s->conn, "ROLLBACK"));
	s->txn = false;
	wlog_clear(&s->log);
	s->replay_at = 0; /* tried again, the writes start over */
}

/*
 * One atomic unit of writes: a transaction of its own when none is open (so
 * its outcome is known even when the connection drops at its commit), a
 * savepoint inside the open one when the unit has several statements.
 */
struct unit {
	bool own, several;
};

static int unit_begin(struct pg_store *s, struct unit *u, bool several)
{
	u->own = !s->txn;
	u->several = several;
	if (u->own)
		return txn_begin(s);
	return several ? exec_cmd(s, "SAVEPOINT unit") : STORE_OK;
}

static int unit_end(struct pg_store *s, const struct unit *u, int err)
{
	if (u->own) {
		if (err == STORE_OK)
			return txn_commit(s);
		txn_rollback(s);
		return err;
	}
	if (!u->several || PQstatus(s->conn) != CONNECTION_OK)
		return err;
	if (err != STORE_OK)
		exec_cmd(s, "ROLLBACK TO SAVEPOINT unit");
	int rerr = exec_cmd(s, "RELEASE SAVEPOINT unit");
	return err != STORE_OK ? err : rerr;
}

/* ---- opening, migrations ---------------------------------------------------------------- */

/* The version on the session as it is (opening: before it is ready()). */
static int version_of(struct pg_store *s)
{
	PGresult *r = PQexec(s->conn, "SELECT coalesce(max(version), 0) FROM bitarena_migrations");
	int err = result_err(s, r);
	int v = err == STORE_OK && PQntuples(r) == 1 ? (int)col_i64(r, 0, 0) : 0;
	PQclear(r);
	return err ? err : v;
}

static int pg_schema_version(struct store *bs)
{
	struct pg_store *s = impl(bs);
	int err = s->txn ? STORE_OK : ready(s);
	return err ? err : version_of(s);
}

/*
 * Runs each missing migration in its own transaction, under an advisory
 * lock, with the version row inside it: servers starting together migrate
 * once, and a migration that fails leaves the version where it was.
 */
static int migrate(struct pg_store *s)
{
	int err = exec_cmd(s, "BEGIN; SELECT pg_advisory_xact_lock(" LOCK_MIGRATE ");"
	                      " CREATE TABLE IF NOT EXISTS bitarena_migrations ("
	                      "  version integer PRIMARY KEY,"
	                      "  applied timestamptz NOT NULL DEFAULT now());"
	                      " CREATE TABLE IF NOT EXISTS bitarena_commits ("
	                      "  writer text PRIMARY KEY, mark bigint NOT NULL,"
	                      "  at timestamptz NOT NULL DEFAULT now()); COMMIT");
	while (err == STORE_OK) {
		err = exec_cmd(s, "BEGIN; SELECT pg_advisory_xact_lock(" LOCK_MIGRATE ")");
		int v = err ? err : version_of(s);
		if (v < 0 || v >= NMIGRATIONS) {
			txn_rollback(s);
			if (v > NMIGRATIONS) {
				snprintf(
				        s->why, sizeof s->why,
				        "the store is at version %d, newer than this bitarena's %d",
				        v, NMIGRATIONS);
				return STORE_ESCHEMA;
			}
			return v < 0 ? v : STORE_OK;
		}
		char bump[96];
		snprintf(bump, sizeof bump, "INSERT INTO bitarena_migrations(version) VALUES (%d)",
		         v + 1);
		err = exec_cmd(s, migrations[v]);
		if (err == STORE_OK)
			err = exec_cmd(s, bump);
		if (err == STORE_OK)
			err = exec_cmd(s, "COMMIT");
		else
			txn_rollback(s);
	}
	return err;
}

/* A reader only checks that a store is there and not newer than it knows. */
static int check_version(struct pg_store *s)
{
	int v = version_of(s);
	if (v == STORE_EGONE || v == 0) {
		snprintf(s->why, sizeof s->why, "%s holds no bitarena store", s->where);
		return STORE_EGONE;
	}
	if (v > NMIGRATIONS) {
		snprintf(s->why, sizeof s->why,
		         "the store is at version %d, newer than this one's %d", v, NMIGRATIONS);
		return STORE_ESCHEMA;
	}
	return v < 0 ? v : STORE_OK;
}

static void pg_close(struct store *bs)
{
	struct pg_store *s = impl(bs);
	if (s->writer[0] && s->doubt_mark == 0 && !s->txn && PQstatus(s->conn) == CONNECTION_OK) {
		const char *v[1] = {s->writer};
		PQclear(PQexecParams(s->conn, "DELETE FROM bitarena_commits WHERE writer = $1", 1,
		                     NULL, v, NULL, NULL, 0));
	}
	if (s->conn != NULL)
		PQfinish(s->conn);
	wlog_free(&s->log);
	wlog_free(&s->doubt);
	wlog_free(&s->replay);
	free(s->conninfo);
	free(s);
}

/*
 * A writer's id in bitarena_commits, drawn at open; the rows of writers that
 * died without closing go after a week unused (a row is used by every write).
 */
static int writer_id(struct pg_store *s)
{
	PGresult *r = PQexec(s->conn, "DELETE FROM bitarena_commits"
	                              " WHERE at < now() - interval '7 days';"
	                              " SELECT gen_random_uuid()::text");
	int err = result_err(s, r);
	if (err == STORE_OK && PQntuples(r) == 1)
		col_str(r, 0, 0, s->writer, sizeof s->writer);
	else if (err == STORE_OK)
		err = STORE_EIO;
	PQclear(r);
	return err;
}

/* The server as a log can show it: no password, whatever the connection string held. */
static void describe(struct pg_store *s)
{
	const char *host = PQhost(s->conn), *port = PQport(s->conn);
	snprintf(s->where, sizeof s->where, "postgresql://%s@%s%s%s/%s", PQuser(s->conn),
	         host && *host == '/' ? "" : (host ? host : ""), port && *port ? ":" : "",
	         port ? port : "", PQdb(s->conn));
	if (host &&
	    *host == '/') { /* a unix socket directory goes in the query, as libpq reads it */
		size_t n = strlen(s->where);
		snprintf(s->where + n, sizeof s->where - n, "?host=%s", host);
	}
}

static int pg_open(const struct store_options *o, struct store **out)
{
	*out = NULL;
	if (o->conninfo == NULL || o->conninfo[0] == '\0')
		return STORE_EINVAL;
	char *msg = NULL;
	PQconninfoOption *parsed = PQconninfoParse(o->conninfo, &msg);
	PQfreemem(msg);
	if (parsed == NULL)
		return STORE_EINVAL;
	PQconninfoFree(parsed);
	struct pg_store *s = calloc(1, sizeof *s);
	if (s == NULL)
		return STORE_ENOMEM;
	s->conninfo = strdup(o->conninfo);
	s->sync = o->sync;
	s->busy_ms = o->busy_timeout_ms;
	s->reader = o->reader;
	snprintf(s->node, sizeof s->node, "%s", o->node ? o->node : "");
	if (s->conninfo == NULL) {
		free(s);
		return STORE_ENOMEM;
	}
	/* defaults first: what the connection string says wins */
	static const char *const keys[] = {
	        "connect_timeout",     "application_name", "keepalives_idle",
	        "keepalives_interval", "keepalives_count", "tcp_user_timeout",
	        "gssencmode",          "dbname",           NULL};
	const char *vals[] = {"5",     "bitarenad", "10",        "5", "3",
	                      "10000", "disable",   s->conninfo, NULL};
	s->conn = PQconnectdbParams(keys, vals, 1);
	int err = STORE_OK;
	if (s->conn == NULL) {
		err = STORE_ENOMEM;
	} else if (PQstatus(s->conn) != CONNECTION_OK) {
		set_why(s, PQerrorMessage(s->conn));
		err = STORE_EUNAVAIL;
	}
	if (err == STORE_OK) {
		describe(s);
		err = session_setup(s);
	}
	if (err == STORE_OK)
		err = s->reader ? check_version(s) : migrate(s);
	if (err == STORE_OK)
		err = store_identity(s, s->store_id, sizeof s->store_id);
	if (err == STORE_OK && !s->reader)
		err = writer_id(s);
	s->session_ok = err == STORE_OK;
	if (err != STORE_OK) {
		if (s->conn != NULL && s->why[0])
			log_error("postgresql failed why=%s", LOG_Q(s->why));
		pg_close(&s->base);
		return err;
	}
	*out = &s->base;
	return STORE_OK;
}

static const char *pg_where(const struct store *s)
{
	return ((const struct pg_store *)s)->where;
}

static const char *pg_last_error(struct store *bs)
{
	struct pg_store *s = impl(bs);
	return s->why[0] ? s->why : "no error";
}

/* The session is remade before the next transaction; what can fail for good is the store. */
static int pg_check(struct store *bs)
{
	return impl(bs)->gone ? STORE_EGONE : STORE_OK;
}

static int pg_begin(struct store *bs)
{
	struct pg_store *s = impl(bs);
	if (!s->gone)
		s->why[0] = '\0';
	return txn_begin(s);
}

static int pg_commit(struct store *bs)
{
	return txn_commit(impl(bs));
}

static void pg_rollback(struct store *bs)
{
	txn_rollback(impl(bs));
}

/*
 * synchronous_commit off leaves commits to the WAL writer; a commit made
 * with it on flushes the WAL up to its own record, so every commit before
 * it is on disk when it returns. It needs a transaction id to write a
 * commit record at all.
 */
static int pg_sync(struct store *bs)
{
	struct pg_store *s = impl(bs);
	if (s->sync == STORE_SYNC_FULL)
		return STORE_OK;
	int err = ready(s);
	if (err == STORE_OK)
		err = exec_cmd(s, "BEGIN; SET LOCAL synchronous_commit = on; SELECT txid_current();"
		                  " COMMIT");
	return err;
}

/* A failure of the store (the same list as store_err_is_failure(), which is above us). */
static bool failed(int err)
{
	return err == STORE_EIO || err == STORE_ENOMEM || err == STORE_EBUSY ||
	       err == STORE_EFULL || err == STORE_EGONE || err == STORE_EUNAVAIL ||
	       err == STORE_ESCHEMA;
}

static int pg_reserve_ids(struct store *bs, int64_t n, int64_t *first)
{
	struct pg_store *s = impl(bs);
	struct params p = {0};
	p_i64(&p, n);
	struct unit u;
	int err = unit_begin(s, &u, false);
	if (err)
		return err;
	uint64_t call = call_of(S_RESERVE, &p);
	int res = STORE_OK;
	int64_t got = 0;
	if (!replayed(s, call, &res, &got)) {
		PGresult *r = NULL;
		err = run(s, S_RESERVE, &p, &r);
		got = err == STORE_OK && PQntuples(r) == 1 ? col_i64(r, 0, 0) : 0;
		PQclear(r);
		if (err == STORE_OK && got <= 0)
			err = STORE_EIO;
		if (err == STORE_OK)
			wlog_add(&s->log, call, STORE_OK, got);
	}
	err = unit_end(s, &u, err);
	if (err == STORE_OK)
		*first = got;
	return err;
}

/* What a guarded write that changed nothing means. */
enum none_means {
	NONE_EXISTS,   /* an insert that found its key taken */
	NONE_NOTFOUND, /* no such account */
	NONE_GUARD     /* the game is not there (ENOTFOUND) or not in that state (ESTATE) */
};

/*
 * A write of one statement: its answer (0 or a refusal) from the rows it
 * changed, or from (changed, the game exists) when it answers a row.
 */
static int write1(struct pg_store *s, enum stmt_id id, const struct params *p, enum none_means none)
{
	struct unit u;
	int err = unit_begin(s, &u, false);
	if (err)
		return err;
	uint64_t call = call_of(id, p);
	int res = STORE_OK;
	if (!replayed(s, call, &res, NULL)) {
		PGresult *r = NULL;
		err = run(s, id, p, &r);
		if (err == STORE_OK) {
			int64_t n;
			bool exists = true;
			if (PQresultStatus(r) == PGRES_TUPLES_OK && PQnfields(r) >= 2 &&
			    PQntuples(r) == 1) {
				n = col_i64(r, 0, 0);
				exists = col_bool(r, 0, 1);
			} else {
				n = strtoll(PQcmdTuples(r), NULL, 10);
			}
			res = n > 0                   ? STORE_OK
			      : none == NONE_EXISTS   ? STORE_EEXISTS
			      : none == NONE_NOTFOUND ? STORE_ENOTFOUND
			      : exists                ? STORE_ESTATE
			                              : STORE_ENOTFOUND;
			wlog_add(&s->log, call, res, 0);
		}
		PQclear(r);
	}
	err = unit_end(s, &u, err);
	return err ? err : res;
}

/* ---- accounts --------------------------------------------------------------------------- */

static int pg_account_insert(struct store *bs, const char *name, const char *hash, int64_t now)
{
	struct pg_store *s = impl(bs);
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	if (!utf8_valid(hash))
		return STORE_EINVAL;
	struct params p = {0};
	p_str(&p, name);
	p_str(&p, key);
	p_str(&p, hash);
	p_i64(&p, now);
	return write1(s, S_ACC_INSERT, &p, NONE_EXISTS);
}

/* Runs a statement whose one parameter is an account name's key. */
static int run_by_name(struct pg_store *s, enum stmt_id id, const char *name, PGresult **r)
{
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	struct params p = {0};
	p_str(&p, key);
	return run(s, id, &p, r);
}

static int pg_account_get(struct store *bs, const char *name, char canon[STORE_NAME_MAX + 1],
                          char hash[STORE_HASH_MAX])
{
	PGresult *r;
	int err = run_by_name(impl(bs), S_ACC_GET, name, &r);
	if (err)
		return err;
	if (PQntuples(r) == 1) {
		if (canon)
			col_str(r, 0, 0, canon, STORE_NAME_MAX + 1);
		if (hash)
			col_str(r, 0, 1, hash, STORE_HASH_MAX);
	} else {
		err = STORE_ENOTFOUND;
	}
	PQclear(r);
	return err;
}

static int pg_prefs_get(struct store *bs, const char *name, struct store_prefs *out)
{
	PGresult *r;
	int err = run_by_name(impl(bs), S_PREFS_GET, name, &r);
	if (err)
		return err;
	if (PQntuples(r) == 1) {
		out->bot = col_bool(r, 0, 0);
		out->bots_off = col_bool(r, 0, 1);
		col_str(r, 0, 2, out->accept, sizeof out->accept);
		out->played = col_bool(r, 0, 3);
	} else {
		err = STORE_ENOTFOUND;
	}
	PQclear(r);
	return err;
}

static int pg_prefs_put(struct store *bs, const char *name, const struct store_prefs *pr)
{
	struct pg_store *s = impl(bs);
	if (!utf8_valid(pr->accept))
		return STORE_EINVAL;
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	struct params p = {0};
	p_str(&p, key);
	p_bool(&p, pr->bot);
	p_bool(&p, pr->bots_off);
	p_str(&p, pr->accept);
	return write1(s, S_PREFS_PUT, &p, NONE_GUARD); /* ESTATE: it played; ENOTFOUND: none */
}

/* ---- ratings ---------------------------------------------------------------------------- */

static void read_rating_row(const PGresult *r, int row, struct store_rating_row *out)
{
	col_str(r, row, 0, out->name, sizeof out->name);
	col_str(r, row, 1, out->kind, sizeof out->kind);
	out->r.rating = col_dbl(r, row, 2);
	out->r.rd = col_dbl(r, row, 3);
	out->r.volatility = col_dbl(r, row, 4);
	out->r.games = (int)col_i64(r, row, 5);
	out->r.updated = col_i64(r, row, 6);
}

static int pg_rating_get(struct store *bs, const char *name, const char *kind,
                         struct store_rating *out)
{
	struct pg_store *s = impl(bs);
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	if (!utf8_valid(kind))
		return STORE_EINVAL;
	struct params p = {0};
	p_str(&p, key);
	p_str(&p, kind);
	PGresult *r;
	int err = run(s, S_RATING_GET, &p, &r);
	if (err)
		return err;
	if (PQntuples(r) != 1) {
		err = STORE_ENOTFOUND;
	} else if (PQgetisnull(r, 0, 2)) {
		store_rating_default(out);
	} else {
		struct store_rating_row row;
		read_rating_row(r, 0, &row);
		*out = row.r;
	}
	PQclear(r);
	return err;
}

/* The parameters of S_RATING_PUT; false when the name cannot be an account's. */
static bool rating_params(struct params *p, char *key, size_t size, const char *name,
                          const char *kind, const struct store_rating *rt)
{
	if (!name_key(name, key, size) || !utf8_valid(key) || !utf8_valid(kind))
		return false;
	p_str(p, key);
	p_str(p, kind);
	p_dbl(p, rt->rating);
	p_dbl(p, rt->rd);
	p_dbl(p, rt->volatility);
	p_i64(p, rt->games);
	p_i64(p, rt->updated);
	return true;
}

static int pg_rating_put(struct store *bs, const char *name, const char *kind,
                         const struct store_rating *rt)
{
	char key[STORE_PLAYER_MAX + 1];
	struct params p = {0};
	if (!rating_params(&p, key, sizeof key, name, kind, rt))
		return STORE_ENOTFOUND;
	return write1(impl(bs), S_RATING_PUT, &p, NONE_NOTFOUND);
}

static int rating_rows(struct pg_store *s, enum stmt_id id, const char *arg,
                       struct store_rating_row *out, size_t cap)
{
	if (!utf8_valid(arg))
		return 0;
	struct params p = {0};
	p_str(&p, arg);
	p_i64(&p, (int64_t)cap);
	PGresult *r;
	int err = run(s, id, &p, &r);
	if (err)
		return err;
	int n = PQntuples(r);
	for (int i = 0; i < n && (size_t)i < cap; i++)
		read_rating_row(r, i, &out[i]);
	PQclear(r);
	return (size_t)n < cap ? n : (int)cap;
}

static int pg_rating_top(struct store *bs, const char *kind, struct store_rating_row *out,
                         size_t cap)
{
	return rating_rows(impl(bs), S_RATING_TOP, kind, out, cap);
}

static int pg_rating_top_bots(struct store *bs, const char *kind, struct store_rating_row *out,
                              size_t cap)
{
	return rating_rows(impl(bs), S_RATING_TOP_BOTS, kind, out, cap);
}

static int pg_ratings_of(struct store *bs, const char *name, struct store_rating_row *out,
                         size_t cap)
{
	char key[STORE_NAME_MAX + 1];
	name_key(name, key, sizeof key);
	return rating_rows(impl(bs), S_RATINGS_OF, key, out, cap);
}

/* ---- games ------------------------------------------------------------------------------ */

static int pg_game_insert(struct store *bs, const struct store_game *g, int64_t id)
{
	struct pg_store *s = impl(bs);
	char key[STORE_SEATS][STORE_PLAYER_MAX + 1];
	for (int i = 0; i < STORE_SEATS; i++)
		if (!name_key(g->players[i], key[i], sizeof key[i]) || !utf8_valid(key[i]))
			return STORE_EINVAL;
	if (!utf8_valid(g->kind) || !utf8_valid(g->options))
		return STORE_EINVAL;
	struct params p = {0};
	p_str(&p, g->kind);
	p_str(&p, g->options);
	p_i64(&p, (int64_t)g->seed);
	p_str(&p, g->players[0]);
	p_str(&p, g->players[1]);
	p_str(&p, key[0]);
	p_str(&p, key[1]);
	p_bool(&p, g->guest[0]);
	p_bool(&p, g->guest[1]);
	p_bool(&p, g->rated);
	p_i64(&p, g->time_base_ms);
	p_i64(&p, g->time_inc_ms);
	p_i64(&p, g->started);
	p_i64(&p, id);
	p_str(&p, s->node);
	p_str(&p, g->token_hash[0]);
	p_str(&p, g->token_hash[1]);
	return write1(s, S_GAME_INSERT, &p, NONE_EXISTS);
}

/* Reads GAME_COLS of a row (no moves). */
static void read_game(const PGresult *r, int row, struct store_game *g)
{
	memset(g, 0, sizeof(*g));
	g->id = col_i64(r, row, 0);
	col_str(r, row, 1, g->kind, sizeof g->kind);
	col_str(r, row, 2, g->options, sizeof g->options);
	g->seed = (uint64_t)col_i64(r, row, 3);
	col_str(r, row, 4, g->players[0], sizeof g->players[0]);
	col_str(r, row, 5, g->players[1], sizeof g->players[1]);
	g->guest[0] = col_bool(r, row, 6);
	g->guest[1] = col_bool(r, row, 7);
	g->rated = col_bool(r, row, 8);
	g->time_base_ms = col_i64(r, row, 9);
	g->time_inc_ms = col_i64(r, row, 10);
	g->started = col_i64(r, row, 11);
	g->ended = col_i64(r, row, 12);
	g->status = status_from_text(PQgetvalue(r, row, 13));
	col_str(r, row, 14, g->result, sizeof g->result);
	g->winner = (int)col_i64(r, row, 15);
	col_str(r, row, 16, g->reason, sizeof g->reason);
	g->clock_ms[0] = col_i64(r, row, 17);
	g->clock_ms[1] = col_i64(r, row, 18);
	col_str(r, row, 19, g->token_hash[0], sizeof g->token_hash[0]);
	col_str(r, row, 20, g->token_hash[1], sizeof g->token_hash[1]);
	for (int i = 0; i < STORE_SEATS; i++)
		g->rating[i] = PQgetisnull(r, row, 21 + i) ? NAN : col_dbl(r, row, 21 + i);
	g->moves = NULL;
}

/*
 * Reads the game at *row and its moves (MOVE_COLS after GAME_COLS, one per
 * row, NULL when it has none), advancing *row past them. In progress: the
 * clocks are those after the last move.
 */
static int read_game_moves(const PGresult *r, int *row, struct store_game *g)
{
	int first = *row, n = PQntuples(r);
	read_game(r, first, g);
	int end = first;
	while (end < n && col_i64(r, end, 0) == g->id)
		end++;
	*row = end;
	if (PQgetisnull(r, first, NGAME_COLS))
		return STORE_OK;
	g->plies = end - first;
	g->moves = calloc((size_t)g->plies, sizeof(*g->moves));
	if (g->moves == NULL)
		return STORE_ENOMEM;
	for (int i = 0; i < g->plies; i++) {
		struct store_move *m = &g->moves[i];
		int k = first + i, c = NGAME_COLS;
		m->ply = (int)col_i64(r, k, c);
		m->seat = (int)col_i64(r, k, c + 1);
		col_str(r, k, c + 2, m->text, sizeof m->text);
		m->ms_used = col_i64(r, k, c + 3);
		m->clock_ms[0] = col_i64(r, k, c + 4);
		m->clock_ms[1] = col_i64(r, k, c + 5);
		m->at = col_i64(r, k, c + 6);
		if (m->ply != i) { /* the journal has a hole: never hand out a torn game */
			store_game_clear(g);
			return STORE_EIO;
		}
	}
	if (g->status == STORE_IN_PROGRESS)
		memcpy(g->clock_ms, g->moves[g->plies - 1].clock_ms, sizeof g->clock_ms);
	return STORE_OK;
}

static int pg_game_fetch(struct store *bs, int64_t id, struct store_game *out)
{
	struct params p = {0};
	p_i64(&p, id);
	PGresult *r;
	int err = run(impl(bs), S_GAME_FETCH, &p, &r);
	if (err)
		return err;
	int row = 0;
	err = PQntuples(r) == 0 ? STORE_ENOTFOUND : read_game_moves(r, &row, out);
	PQclear(r);
	return err;
}

static int pg_move_append(struct store *bs, int64_t id, const struct store_move *m)
{
	if (!utf8_valid(m->text))
		return STORE_EINVAL;
	struct params p = {0};
	p_i64(&p, id);
	p_i64(&p, m->ply);
	p_i64(&p, m->seat);
	p_str(&p, m->text);
	p_i64(&p, m->ms_used);
	p_i64(&p, m->clock_ms[0]);
	p_i64(&p, m->clock_ms[1]);
	p_i64(&p, m->at);
	p_str(&p, impl(bs)->node);
	return write1(impl(bs), S_MOVE_INSERT, &p, NONE_GUARD);
}

static int pg_moves_drop(struct store *bs, int64_t id, int n, int plies)
{
	struct params p = {0};
	p_i64(&p, id);
	p_i64(&p, n);
	p_i64(&p, plies);
	p_str(&p, impl(bs)->node);
	return write1(impl(bs), S_MOVES_DROP, &p, NONE_GUARD);
}

/* The end of a game and, for the seats rated, their new ratings (ratings: the puts). */
static int finish(struct pg_store *s, const struct params *p, const struct store_finish *f)
{
	PGresult *r = NULL;
	int err = run(s, S_GAME_FINISH, p, &r);
	if (err == STORE_OK && PQntuples(r) == 0) {
		PGresult *e = NULL;
		struct params q = {0};
		p_str(&q, p->v[0]);
		err = run(s, S_GAME_EXISTS, &q, &e);
		if (err == STORE_OK)
			err = PQntuples(e) == 1 && col_bool(e, 0, 0) ? STORE_ESTATE
			                                             : STORE_ENOTFOUND;
		PQclear(e);
	}
	/* the seats to rate must be accounts; else nothing of the end is written */
	for (int i = 0; i < STORE_SEATS && err == STORE_OK; i++) {
		if (!f->rate[i])
			continue;
		char kind[STORE_KIND_MAX], player[STORE_PLAYER_MAX + 1], key[STORE_PLAYER_MAX + 1];
		col_str(r, 0, 2, kind, sizeof kind);
		col_str(r, 0, 3 + i, player, sizeof player);
		struct params q = {0};
		PGresult *u = NULL;
		if (col_bool(r, 0, i) ||
		    !rating_params(&q, key, sizeof key, player, kind, &f->rating[i]))
			err = STORE_ENOTFOUND;
		else if ((err = run(s, S_RATING_PUT, &q, &u)) == STORE_OK &&
		         strtoll(PQcmdTuples(u), NULL, 10) == 0)
			err = STORE_ENOTFOUND;
		PQclear(u);
	}
	PQclear(r);
	return err;
}

static int pg_game_finish(struct store *bs, int64_t id, const struct store_finish *f)
{
	struct pg_store *s = impl(bs);
	if (!utf8_valid(f->result) || !utf8_valid(f->reason))
		return STORE_EINVAL;
	struct params p = {0};
	p_i64(&p, id);
	p_str(&p, store_status_name(f->status));
	p_i64(&p, f->ended);
	p_str(&p, f->result);
	p_i64(&p, f->winner);
	p_str(&p, f->reason);
	p_i64(&p, f->clock_ms[0]);
	p_i64(&p, f->clock_ms[1]);
	p_str(&p, s->node);
	for (int i = 0; i < STORE_SEATS; i++) {
		if (f->rate[i])
			p_dbl(&p, f->rating[i].rating);
		else
			p_str(&p, NULL);
	}
	uint64_t call = call_of(S_GAME_FINISH, &p);
	for (int i = 0; i < STORE_SEATS; i++) {
		const struct store_rating *rt = &f->rating[i];
		double d[3] = {rt->rating, rt->rd, rt->volatility};
		int64_t n[3] = {f->rate[i], rt->games, rt->updated};
		call = fnv(fnv(call, d, sizeof d), n, sizeof n);
	}
	struct unit u;
	int err = unit_begin(s, &u, true);
	if (err)
		return err;
	int res;
	if (replayed(s, call, &res, NULL))
		return unit_end(s, &u, res);
	err = finish(s, &p, f);
	if (!failed(err))
		wlog_add(&s->log, call, err, 0);
	return unit_end(s, &u, err);
}

/* Games of a GAME_COLS + MOVE_COLS result, grouped by game, in the order of the result. */
static int game_list_moves(const PGresult *r, struct store_game **out, size_t *n)
{
	struct store_game *v = NULL, g;
	size_t len = 0, cap = 0;
	int err = STORE_OK;
	for (int row = 0; row < PQntuples(r) && err == STORE_OK;) {
		err = read_game_moves(r, &row, &g);
		if (err == STORE_OK && (err = store_games_push(&v, &len, &cap, &g)) != STORE_OK)
			store_game_clear(&g);
	}
	if (err) {
		store_games_free(v, len);
		return err;
	}
	*out = v;
	*n = len;
	return STORE_OK;
}

static int pg_games_in_progress(struct store *bs, struct store_game **out, size_t *n)
{
	PGresult *r;
	int err = run(impl(bs), S_IN_PROGRESS, NULL, &r);
	if (err)
		return err;
	err = game_list_moves(r, out, n);
	PQclear(r);
	return err;
}

/* Games of a GAME_COLS + move count result (no moves), in the order of the result. */
static int game_list_counted(const PGresult *r, struct store_game **out, size_t *n)
{
	struct store_game *v = NULL, g;
	size_t len = 0, cap = 0;
	int err = STORE_OK;
	for (int row = 0; row < PQntuples(r) && err == STORE_OK; row++) {
		read_game(r, row, &g);
		g.plies = (int)col_i64(r, row, NGAME_COLS);
		err = store_games_push(&v, &len, &cap, &g);
	}
	if (err) {
		store_games_free(v, len);
		return err;
	}
	*out = v;
	*n = len;
	return STORE_OK;
}

static int pg_history(struct store *bs, const char *name, int limit, struct store_game **out,
                      size_t *n)
{
	char key[STORE_PLAYER_MAX + 1];
	name_key(name, key, sizeof key);
	if (!utf8_valid(key))
		return STORE_OK;
	struct params p = {0};
	p_str(&p, key);
	p_i64(&p, limit);
	PGresult *r;
	int err = run(impl(bs), S_HISTORY, &p, &r);
	if (err)
		return err;
	err = game_list_counted(r, out, n);
	PQclear(r);
	return err;
}

/* The ids of a one-column result as an array literal ("{1,2}"; caller frees; NULL: no memory). */
static char *id_array(const PGresult *r)
{
	int n = PQntuples(r);
	size_t size = 3, len = 0;
	for (int i = 0; i < n; i++)
		size += (size_t)PQgetlength(r, i, 0) + 1;
	char *a = malloc(size);
	if (a == NULL)
		return NULL;
	a[len++] = '{';
	for (int i = 0; i < n; i++)
		len += (size_t)sprintf(a + len, "%s%s", i ? "," : "", PQgetvalue(r, i, 0));
	a[len++] = '}';
	a[len] = '\0';
	return a;
}

static int pg_games_claim(struct store *bs, const char *from, struct store_game **out, size_t *n)
{
	struct pg_store *s = impl(bs);
	size_t len = strlen(from);
	if (s->node[0] == '\0' || len == 0 || !utf8_valid(from))
		return STORE_EINVAL;
	struct params p = {0};
	p_str(&p, s->node);
	p_str(&p, from);
	p_bool(&p, len >= 2 && strcmp(from + len - 2, "#*") == 0);
	struct unit u;
	int err = unit_begin(s, &u, false);
	if (err)
		return err;
	PGresult *r = NULL;
	err = run(s, S_CLAIM, &p, &r);
	char *ids = err == STORE_OK ? id_array(r) : NULL;
	PQclear(r);
	r = NULL;
	if (err == STORE_OK && ids == NULL)
		err = STORE_ENOMEM;
	struct params q = {0};
	p_str(&q, ids);
	if (err == STORE_OK)
		err = run(s, S_CLAIMED, &q, &r);
	if (err == STORE_OK)
		err = game_list_moves(r, out, n);
	PQclear(r);
	free(ids);
	err = unit_end(s, &u, err);
	if (err != STORE_OK) {
		store_games_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return err;
}

static int pg_games_find(struct store *bs, const struct store_game_query *q, int limit,
                         struct store_game **out, size_t *n)
{
	char key[STORE_PLAYER_MAX + 1];
	if (q->player != NULL)
		name_key(q->player, key, sizeof key);
	if ((q->player != NULL && !utf8_valid(key)) || (q->kind != NULL && !utf8_valid(q->kind)))
		return STORE_OK; /* text no row holds */
	struct params p = {0};
	p.v[p.n++] = q->kind; /* NULL: SQL NULL */
	p_i64(&p, q->rated);
	p_i64(&p, q->since);
	p_i64(&p, q->until);
	p_i64(&p, q->before);
	p_i64(&p, limit);
	if (q->player != NULL)
		p_str(&p, key);
	enum stmt_id id = q->player != NULL ? (q->moves ? S_FIND_PLAYER_MOVES : S_FIND_PLAYER)
	                                    : (q->moves ? S_FIND_MOVES : S_FIND);
	PGresult *r;
	int err = run(impl(bs), id, &p, &r);
	if (err)
		return err;
	err = q->moves ? game_list_moves(r, out, n) : game_list_counted(r, out, n);
	PQclear(r);
	return err;
}

static int pg_player_counts(struct store *bs, const char *name, struct store_counts *out)
{
	char key[STORE_PLAYER_MAX + 1];
	name_key(name, key, sizeof key);
	if (!utf8_valid(key))
		return STORE_OK;
	struct params p = {0};
	p_str(&p, key);
	PGresult *r;
	int err = run(impl(bs), S_COUNTS, &p, &r);
	if (err)
		return err;
	if (PQntuples(r) == 1) {
		out->games = col_i64(r, 0, 0);
		out->rated = col_i64(r, 0, 1);
		out->wins = col_i64(r, 0, 2);
		out->losses = col_i64(r, 0, 3);
		out->draws = col_i64(r, 0, 4);
	}
	PQclear(r);
	return STORE_OK;
}

/* ---- tournaments ------------------------------------------------------------------------ */

/* A document's upsert by statement put (tournaments, ladders). */
static int doc_put(struct store *bs, enum stmt_id put, int64_t id, const char *state,
                   const char *doc, int64_t now)
{
	if (!utf8_valid(state) || !utf8_valid(doc))
		return STORE_EINVAL;
	struct params p = {0};
	p_i64(&p, id);
	p_str(&p, state);
	p_str(&p, doc);
	p_i64(&p, now);
	return write1(impl(bs), put, &p, NONE_NOTFOUND);
}

static int pg_tourney_put(struct store *bs, int64_t id, const char *state, const char *doc,
                          int64_t now)
{
	return doc_put(bs, S_TOURNEY_PUT, id, state, doc, now);
}

static int pg_ladder_put(struct store *bs, int64_t id, const char *state, const char *doc,
                         int64_t now)
{
	return doc_put(bs, S_LADDER_PUT, id, state, doc, now);
}

/* The documents statement open reads, and the highest id by statement max. */
static int docs_open(struct store *bs, enum stmt_id open, enum stmt_id max,
                     struct store_tourney **out, size_t *n, int64_t *max_id)
{
	struct pg_store *s = impl(bs);
	struct params p = {0};
	PGresult *r;
	int err = run(s, max, &p, &r);
	if (err)
		return err;
	*max_id = PQntuples(r) == 1 ? col_i64(r, 0, 0) : 0;
	PQclear(r);
	if ((err = run(s, open, &p, &r)) != STORE_OK)
		return err;
	int rows = PQntuples(r);
	if (rows > 0 && (*out = calloc((size_t)rows, sizeof **out)) == NULL)
		err = STORE_ENOMEM;
	for (int i = 0; err == STORE_OK && i < rows; i++) {
		struct store_tourney *t = &(*out)[i];
		t->id = col_i64(r, i, 0);
		col_str(r, i, 1, t->state, sizeof t->state);
		t->updated = col_i64(r, i, 3);
		if ((t->doc = strdup(PQgetvalue(r, i, 2))) == NULL)
			err = STORE_ENOMEM;
		else
			*n = (size_t)i + 1;
	}
	PQclear(r);
	if (err != STORE_OK) {
		store_tourneys_free(*out, *n);
		*out = NULL;
		*n = 0;
	}
	return err;
}

static int pg_tourneys_open(struct store *bs, struct store_tourney **out, size_t *n,
                            int64_t *max_id)
{
	return docs_open(bs, S_TOURNEYS_OPEN, S_TOURNEY_MAX, out, n, max_id);
}

static int pg_ladders_open(struct store *bs, struct store_tourney **out, size_t *n, int64_t *max_id)
{
	return docs_open(bs, S_LADDERS_OPEN, S_LADDER_MAX, out, n, max_id);
}

/* A read snapshot: the session made ready first, and not made again inside it. */
static int pg_snapshot_begin(struct store *bs)
{
	struct pg_store *s = impl(bs);
	int err = ready(s);
	if (err == STORE_OK)
		err = exec_cmd(s, "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY");
	s->txn = err == STORE_OK;
	return err;
}

static int pg_snapshot_end(struct store *bs)
{
	struct pg_store *s = impl(bs);
	int err = exec_cmd(s, "COMMIT");
	s->txn = false;
	return err;
}

/* ---- moderation ------------------------------------------------------------------------ */

static const char *const mod_kinds[] = {"admin", "ban", "mute", "block", "audit"};

static int pg_mod_write(struct store *bs, const struct store_mod *m)
{
	struct pg_store *s = impl(bs);
	if (!utf8_valid(m->actor) || !utf8_valid(m->action) || !utf8_valid(m->target) ||
	    !utf8_valid(m->reason))
		return STORE_EINVAL;
	char tkey[STORE_TARGET_MAX + 1], akey[STORE_PLAYER_MAX + 1];
	name_key(m->target, tkey, sizeof tkey);
	name_key(m->actor, akey, sizeof akey);
	struct unit u;
	int err = unit_begin(s, &u, true);
	if (err)
		return err;
	struct params p = {0};
	enum stmt_id id = S_AUDIT_ADD;
	if (m->remove && m->kind != STORE_MOD_AUDIT) {
		id = m->kind == STORE_MOD_ADMIN   ? S_ADMIN_DEL
		     : m->kind == STORE_MOD_BLOCK ? S_BLOCK_DEL
		                                  : S_SANCTION_DEL;
		if (id == S_SANCTION_DEL)
			p_str(&p, mod_kinds[m->kind]);
		if (id == S_BLOCK_DEL)
			p_str(&p, akey);
		p_str(&p, tkey);
	} else if (m->kind != STORE_MOD_AUDIT) {
		id = m->kind == STORE_MOD_ADMIN   ? S_ADMIN_PUT
		     : m->kind == STORE_MOD_BLOCK ? S_BLOCK_PUT
		                                  : S_SANCTION_PUT;
		p_str(&p, m->target);
		p_str(&p, tkey);
		p_str(&p, m->actor);
		p_i64(&p, m->at);
		if (id != S_ADMIN_PUT)
			p_str(&p, id == S_BLOCK_PUT ? akey : mod_kinds[m->kind]);
		if (id == S_SANCTION_PUT) {
			p_str(&p, m->reason);
			p_i64(&p, m->until);
		}
	}
	/* a block put again is no change, and no refusal either */
	if (id != S_AUDIT_ADD)
		err = write1(s, id, &p, id == S_BLOCK_PUT ? NONE_GUARD : NONE_NOTFOUND);
	if (err == STORE_ESTATE)
		err = STORE_OK;
	if (err == STORE_OK && m->action[0] != '\0') {
		struct params a = {0};
		p_i64(&a, m->at);
		p_str(&a, m->actor);
		p_str(&a, m->action);
		p_str(&a, m->target);
		p_str(&a, m->reason);
		p_i64(&a, m->until);
		err = write1(s, S_AUDIT_ADD, &a, NONE_NOTFOUND);
	}
	return unit_end(s, &u, err);
}

static int pg_mod_list(struct store *bs, enum store_mod_kind kind, int limit,
                       struct store_mod **out, size_t *n)
{
	struct pg_store *s = impl(bs);
	struct params p = {0};
	if (kind == STORE_MOD_AUDIT)
		p_i64(&p, limit);
	else
		p_str(&p, mod_kinds[kind]);
	PGresult *r;
	int err = run(s, kind == STORE_MOD_AUDIT ? S_AUDIT_LIST : S_MOD_LIST, &p, &r);
	if (err)
		return err;
	size_t cap = 0;
	for (int i = 0; i < PQntuples(r) && err == STORE_OK; i++) {
		struct store_mod m = {.kind = kind};
		col_str(r, i, 0, m.actor, sizeof m.actor);
		col_str(r, i, 1, m.action, sizeof m.action);
		col_str(r, i, 2, m.target, sizeof m.target);
		col_str(r, i, 3, m.reason, sizeof m.reason);
		m.at = col_i64(r, i, 4);
		m.until = col_i64(r, i, 5);
		err = store_mod_push(out, n, &cap, &m);
	}
	PQclear(r);
	if (err != STORE_OK) {
		free(*out);
		*out = NULL;
		*n = 0;
	}
	return err;
}

const struct store_backend store_pg = {
        .name = "postgresql",
        .open = pg_open,
        .close = pg_close,
        .where = pg_where,
        .last_error = pg_last_error,
        .schema_version = pg_schema_version,
        .check = pg_check,
        .begin = pg_begin,
        .commit = pg_commit,
        .rollback = pg_rollback,
        .sync = pg_sync,
        .reserve_ids = pg_reserve_ids,
        .account_insert = pg_account_insert,
        .rating_put = pg_rating_put,
        .game_insert = pg_game_insert,
        .move_append = pg_move_append,
        .moves_drop = pg_moves_drop,
        .game_finish = pg_game_finish,
        .account_get = pg_account_get,
        .prefs_get = pg_prefs_get,
        .prefs_put = pg_prefs_put,
        .rating_get = pg_rating_get,
        .rating_top = pg_rating_top,
        .rating_top_bots = pg_rating_top_bots,
        .ratings_of = pg_ratings_of,
        .game_fetch = pg_game_fetch,
        .games_in_progress = pg_games_in_progress,
        .history = pg_history,
        .games_claim = pg_games_claim,
        .games_find = pg_games_find,
        .player_counts = pg_player_counts,
        .tourney_put = pg_tourney_put,
        .tourneys_open = pg_tourneys_open,
        .ladder_put = pg_ladder_put,
        .ladders_open = pg_ladders_open,
        .snapshot_begin = pg_snapshot_begin,
        .snapshot_end = pg_snapshot_end,
        .mod_write = pg_mod_write,
        .mod_list = pg_mod_list,
};
