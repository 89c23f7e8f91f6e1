/*
 * cmd/ - the command layer: the one table of verbs and its dispatcher.
 * Below ports/ and cluster/, above records/ (the order of the folders:
 * DEVELOPERS.md, Layout; tests/layers.py checks it). Its handlers call the
 * records (accounts, archive), the play layer, the messages, the connections
 * (deferred input, heavy and spending marks) and util (the budget); it is
 * called by server.c (each line), the cluster (relayed lines) and the ports.
 * News from above: a cluster's struct router, consulted where a single node
 * would answer from its own memory.
 *   commands.c  the table, the dispatcher (flags resolved once), the handlers
 *
 * commands.h - the command layer: the one table of the server's verbs (each
 * row: name, arity, flags, cost, handler, usage, help; proto.h's struct
 * proto_cmd)
 * and the dispatcher that turns one input line into a call of a row's
 * handler. The table is the one place a verb is defined: "help" lists it, the
 * parser counts arguments by it, the dispatcher resolves its flags, and
 * PROTOCOL.md's table of verbs is checked against it (tests/verbs.py).
 *
 * What the dispatcher resolves once, in this order, so that no handler
 * re-parses an id or re-checks the arity, the login or the seat:
 *   the budget: the row's cost is taken from the client's command budget
 *     (budget.h; a line that is no command costs 1, an empty one nothing);
 *     when it runs out the command is not run: RATE_LIMITED with
 *     retry_after_ms, and the client's input waits that long (conn_defer);
 *     a client that keeps overrunning gets FLOODING and is disconnected;
 *   the line: UTF-8 without control bytes (BAD_INPUT), the tag (BAD_TAG), the
 *     verb (UNKNOWN_COMMAND), the arity (BAD_ARGS with the usage);
 *   CMD_LOGIN   the client is logged in (NOT_LOGGED_IN);
 *   CMD_STORE   the server keeps a store (NO_STORAGE);
 *   CMD_GAME    argv[0] names a game in memory: x->id, x->g and x->seat, the
 *               caller's seat in it or -1 (BAD_ARGS, NO_SUCH_GAME);
 *   CMD_GAME_ID argv[0] is a game id, looked up by the handler (a stored
 *               game): x->id (BAD_ARGS);
 *   CMD_SEAT    the caller plays in x->g (NOT_YOUR_GAME);
 *   CMD_MEMBER  the caller plays in or watches x->g (NOT_YOUR_GAME);
 *   CMD_LIVE    x->g is not over (GAME_OVER);
 *   CMD_OVER    x->g is over (NOT_NOW);
 *   CMD_SEEK    argv[0] names an open seek: x->seek (BAD_ARGS, NO_SUCH_SEEK);
 *   CMD_ADMIN   the caller is logged in to an account that is an admin of the
 *               server (moderation.h) (NOT_ADMIN);
 *   CMD_ADMIN_MAY  x->admin says whether the caller is such an admin; with
 *               CMD_SEAT, an admin passes it for any game (x->seat stays -1);
 *   CMD_VOICE   the caller is not muted (MUTED);
 *   CMD_PACED   a move runs whenever the budget is not in debt, and pays its cost
 *               after the fact only when refused: the game paces moves that are
 *               played (one per turn), so they cost nothing and a client out of
 *               tokens still plays; refused ones run the budget into debt;
 *   CMD_SHARED_SEEKS, CMD_SHARED_USERS, CMD_SHARED_GAMES (CMD_SHARED: any of them)
 *               in a cluster, answered for the whole cluster from what every
 *               node shares of its open seeks, users, games in progress: the
 *               router's shared() takes the request; on one node the handler
 *               answers.
 *
 * Flags that only a cluster reads (cluster/): what happens to a command that
 * crosses nodes, named for what the cluster does, so that it never tells
 * verbs apart by their spelling; one node ignores them:
 *   CMD_SPECTATE   joins the game's spectators: the home subscribes to a remote
 *                  game's channel before it forwards the line, and counts the
 *                  client among the game's spectators once it is answered; the
 *                  owner hands the relay client's place to the node's relay
 *                  watcher of the game (and joins one as this row does);
 *   CMD_UNSPECTATE leaves them: the home answers for a spectator of a remote game;
 *   CMD_VOUCHED    a spectator's line (CMD_MEMBER) whose membership its home
 *                  checked: the owner runs it for the relay client, which watches
 *                  nothing there, without checking again;
 *   CMD_TAKES_SEEK takes a seek: forwarded to the seek's node, the seek's end
 *                  reaches the client after the answer, as on one node;
 *   CMD_TO_USER    argv[0] names a user: one not connected to this node is
 *                  looked up on the others, and the line forwarded to the node
 *                  holding its connection (tell, match).
 *
 * "The game named by the first argument" is resolved in one function,
 * commands_resolve_game(). A cluster router (several nodes, each owning some
 * games: struct router, cluster/cluster_home.c) intercepts exactly there: a
 * game this node does not own is not an error but a command to forward,
 * whole, to the node that owns it, whose answer goes back to the client
 * (CMD_FORWARDED).
 */
#ifndef BITARENA_SERVER_COMMANDS_H
#define BITARENA_SERVER_COMMANDS_H

#include <stddef.h>
#include <stdint.h>

#include "proto/errors.h"
#include "server/util/budget.h"
#include "server/util/metrics.h"
#include "server/msg/client.h"
#include "server/msg/proto.h"

struct accounts;
struct archive;
struct moderation;
struct lobby;
struct sessions;
struct game;
struct seek;
struct tourneys;
struct ladders;

enum cmd_flags {
	CMD_REST = PROTO_REST, /* the parser's: the last argument is the rest of the line */
	CMD_LOGIN = 1 << 1,
	CMD_STORE = 1 << 2,
	CMD_GAME = 1 << 3,
	CMD_GAME_ID = 1 << 4,
	CMD_SEAT = 1 << 5,
	CMD_MEMBER = 1 << 6,
	CMD_LIVE = 1 << 7,
	CMD_OVER = 1 << 8,
	CMD_SEEK = 1 << 9,
	CMD_PACED = 1 << 10,
	CMD_SHARED_SEEKS = 1 << 11,
	CMD_SHARED_USERS = 1 << 12,
	CMD_SHARED_GAMES = 1 << 13,
	CMD_SHARED = CMD_SHARED_SEEKS | CMD_SHARED_USERS | CMD_SHARED_GAMES,
	CMD_SPECTATE = 1 << 14,
	CMD_UNSPECTATE = 1 << 15,
	CMD_VOUCHED = 1 << 16,
	CMD_TAKES_SEEK = 1 << 17,
	CMD_ADMIN = 1 << 18,
	CMD_ADMIN_MAY = 1 << 19,
	CMD_VOICE = 1 << 20,
	CMD_TO_USER = 1 << 21
};

struct cmd;

#define COMMANDS_COMPUTER PROTO_HOUSE_NAME /* match computer ...: the house bots */

/*
 * A cluster router (cluster/cluster_home.c and cluster_shared.c), set by
 * cluster_start(): upward callbacks the dispatcher calls where a single node
 * answers from its own memory. Each
 * returns true when it took the request (answered it, or forwarded it to
 * the node that holds what it names: then it sets x->forwarded); false:
 * answered as on a single node.
 */
struct router {
	void *ud;
	/* The game of argv[0] (x->id) is not in this node's memory. */
	bool (*game)(void *ud, struct cmd *x);
	/* The seek of argv[0] (id) is not this node's. */
	bool (*seek)(void *ud, struct cmd *x, uint64_t id);
	/* A CMD_SHARED row: answered for the whole cluster. */
	bool (*shared)(void *ud, struct cmd *x);
	/* A CMD_TO_USER row whose user (argv[0]) is not connected to this node. */
	bool (*user)(void *ud, struct cmd *x);
	/* A verb of the events (tourney, ladder, pool, pools), which one node of a cluster runs;
	 * code: the error when none does right now. */
	bool (*event)(void *ud, struct cmd *x, enum err_code code);
};

/* What the handlers reach: the layers below. */
struct commands {
	struct lobby *lobby;
	struct sessions *sess;
	struct accounts *acct;       /* NULL: the server keeps no store */
	struct archive *arch;        /* NULL: the server keeps no store */
	struct tourneys *tourneys;   /* NULL: the server keeps no store */
	struct pools *pools;         /* rating pools (events/pools.h) */
	struct ladders *ladders;     /* NULL: the server keeps no store */
	struct moderation *mod;      /* admins, bans, mutes, blocks; NULL: none (no admin) */
	struct client_barrier *bar;  /* the journal's: lifted after each command (client.h) */
	const struct router *router; /* NULL: a single node */
	/* the house bots (house/house.h), registered by server.c: `match computer <kind> ...`
	   (argv[0] COMMANDS_COMPUTER) goes to them; NULL: a plain match to a user so named */
	void (*computer)(void *ud, struct client *c, const struct proto_req *rq);
	void *computer_ud;
	struct budget_config budget;  /* every client's command budget */
	/* bitarena_rate_limited_total's what="command" (RATE_LIMITED) and what="flooding" */
	struct metric rate_limited, flooding;
};

/* cx's counts join r (commands_register_metrics sets them up). */
void commands_register_metrics(struct commands *cx, struct metrics *r);

/* One request, resolved for its handler (see the flags above). */
struct cmd {
	struct commands *cx;
	struct client *cl;
	const struct proto_req *rq;
	uint64_t id;       /* CMD_GAME, CMD_GAME_ID: the id of argv[0] */
	struct game *g;    /* CMD_GAME */
	int seat;          /* CMD_GAME: the caller's seat in g, or -1 */
	struct seek *seek; /* CMD_SEEK */
	bool admin;        /* CMD_ADMIN, CMD_ADMIN_MAY: the caller is an admin */
	bool forwarded;    /* set by the router: passed on to another node, the caller's input
	                      held until the answer; a CMD_PACED row refused there is charged
	                      there (its relay client's budget), not again here */
};

/* The server's command table, in the order "help" lists it. */
extern const struct proto_table commands_table;
/*
 * The first row with flag, or NULL: for a layer that acts as a command of
 * that kind without a line (a cluster's relay watcher joins a game as the
 * CMD_SPECTATE row does).
 */
const struct proto_cmd *commands_flagged(unsigned flag);

/* Handles one complete input line of cl (framing done; content not yet checked). */
void commands_line(struct commands *cx, struct client *cl, char *line, size_t len);
/*
 * Takes cost from cl's budget for what is not a command line (a bad frame, a
 * telnet negotiation, a line of a port's own protocol): true to go on; false
 * when it was refused and answered (RATE_LIMITED, or FLOODING and closed: cl
 * may be gone then).
 */
bool commands_charge(struct commands *cx, struct client *cl, unsigned cost);
/*
 * commands_line() for a line whose cost its caller took already (a port
 * charges each line of its protocol as it reads it, commands_charge(), then
 * runs the commands it stands for): nothing more is taken. A paced verb
 * (a move) is not for this: it pays only when refused, in commands_line().
 */
void commands_line_paid(struct commands *cx, struct client *cl, char *line, size_t len);
/* The cost of verb in the table; 1 (what a line that is no command costs) for NULL or none. */
unsigned commands_cost(const char *verb);

enum cmd_resolved {
	CMD_RESOLVED = 0, /* x->g (or x->id alone: lookup false) is set */
	CMD_ANSWERED,     /* the request was answered with an error */
	CMD_FORWARDED     /* the router took the request (sent it to the game's node) */
};
/*
 * The game named by argv[0] of x's request: the id parsed into x->id and,
 * when lookup, the game in memory into x->g with the caller's seat into
 * x->seat. Answers BAD_ARGS or NO_SUCH_GAME itself.
 */
enum cmd_resolved commands_resolve_game(struct cmd *x, bool lookup);

#endif
