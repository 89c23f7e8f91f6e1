/*
 * proto.h - the command side of the text protocol, without sockets and
 * without the server: the shape of a command table's row, splitting a line
 * into an optional tag, a verb and its arguments by a table's arity, ids and
 * login names, and the options of "seek". The server's one table and the
 * dispatcher that resolves a row's flags are commands.h's. See
 * protocol/PROTOCOL.md.
 */
#ifndef BITARENA_SERVER_PROTO_H
#define BITARENA_SERVER_PROTO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "games/game.h"
#include "proto/limits.h" /* PROTO_TAG_MAX, PROTO_MAX_ARGS, PROTO_NAME_*, PROTO_MAX_ID */

/*
 * One row of a command table: the verb, its arity (arguments after the verb),
 * its flags, its cost, its handler, and its usage and help lines. The parser
 * reads the name, the arity and PROTO_REST; every other flag bit, the cost
 * and the handler are the dispatcher's (commands.h), which also owns the one
 * table of the server.
 */
struct cmd; /* commands.h: a request resolved for its handler */

enum proto_flags {
	PROTO_REST = 1 << 0 /* the last argument is the rest of the line, spaces kept */
	                    /* bits 1.. are the dispatcher's (enum cmd_flags) */
};

struct proto_cmd {
	const char *name;
	int min, max; /* arguments after the verb */
	unsigned flags;
	unsigned cost; /* the dispatcher's: tokens of the command budget it takes (budget.h) */
	void (*handler)(struct cmd *x);
	const char *usage;
	const char *help;
};

/* A table of commands, in the order "help" lists them. */
struct proto_table {
	const struct proto_cmd *cmds;
	size_t n;
};

/* The entry of t named name (case-insensitive), or NULL. */
const struct proto_cmd *proto_find(const struct proto_table *t, const char *name);

enum proto_err {
	PROTO_OK = 0,
	PROTO_EMPTY = -1,    /* nothing but blanks: no reply */
	PROTO_EBADTAG = -2,  /* BAD_TAG */
	PROTO_EUNKNOWN = -3, /* UNKNOWN_COMMAND (req->verb holds the word, cut to fit) */
	PROTO_EARGS = -4     /* BAD_ARGS (req->cmd is set) */
};

const char *proto_strerror(int err);

/* One parsed command line. argv point into the line given to proto_parse(). */
struct proto_req {
	bool tagged;
	char tag[PROTO_TAG_MAX + 1];
	char verb[24];               /* the verb as typed, lower-cased, cut to fit */
	const struct proto_cmd *cmd; /* NULL unless found */
	int argc;
	char *argv[PROTO_MAX_ARGS];
};

/*
 * Splits line (modified in place: NULs are written between words) into req,
 * the verb looked up in t and its arguments counted against the row's arity.
 * Leading and trailing blanks (space, tab) are ignored. The tag and the verb
 * are filled as far as they were read even when an error is returned.
 */
int proto_parse(char *line, const struct proto_table *t, struct proto_req *req);

/* A positive decimal id (1..PROTO_MAX_ID, digits only). */
bool proto_parse_id(const char *s, uint64_t *out);

/* A login name: PROTO_NAME_MIN..PROTO_NAME_MAX characters of [A-Za-z0-9_-]. */
bool proto_name_valid(const char *name);

/* The house bots' names (house.h): PROTO_HOUSE_NAME and a level, computer1 ... */
#define PROTO_HOUSE_NAME "computer"
/* Whether name is one the house keeps for its bots, in any letter case: PROTO_HOUSE_NAME and
   digits. Nobody else logs in or registers under it. */
bool proto_name_house(const char *name);

/* ---- seek options ----------------------------------------------------------------- */

#define SEEK_TURN_MS_DEFAULT 30000 /* a strict=1 (bot's) game's turn */
#define SEEK_TURN_MS_PEOPLE  60000 /* a game for people's (not strict=1) */
#define SEEK_TURN_MS_MIN     10
#define SEEK_TURN_MS_MAX     3600000
#define SEEK_BASE_MS_MAX     (24LL * 3600 * 1000)
#define SEEK_INC_MS_MAX      (3600LL * 1000)

/* Everything a seek says about the game to be played. */
struct seek_opts {
	struct game_params params; /* the engine's options */
	bool timed;                /* time= given (sequential games) */
	int64_t base_ms, inc_ms;
	int color;       /* the seeker's seat: 0, 1, or -1 for random */
	int64_t turn_ms;       /* simultaneous games: per-turn deadline */
	int64_t first_turn_ms; /* simultaneous games: the first turn's deadline; 0: turn_ms */
	bool strict;     /* simultaneous games: an unparsable action is fatal */
	bool rated;
	/* an engine match's adjudication (games/adjudicate.h), 0: off: max_plies=N draws at N
	   plies, repetition=N at the Nth occurrence of a position (sequential games only) */
	int max_plies, repetition;
};

/*
 * Parses the option words of "seek <kind> word..." for ops into so. Server
 * options (time, color, turn_ms, first_turn_ms, rated, strict, max_plies, repetition)
 * are handled here, every other
 * word through game_param_word(); the resulting options are then tried with
 * ops->init so that inconsistent combinations are refused now. Returns 0, or
 * -1 with a sentence in err (BAD_OPTION).
 */
int seek_opts_parse(const struct game_ops *ops, int argc, char *const argv[], struct seek_opts *so,
                    char *err, size_t errlen);

/* "MIN+INC" or "MIN" (no increment) as in time=; false when malformed or out of range. */
bool seek_parse_time(const char *s, int64_t *base_ms, int64_t *inc_ms);
/* Writes the time control as "5+3" or "0:30+2" (the form seek_parse_time() reads). */
void seek_format_time(int64_t base_ms, int64_t inc_ms, char *buf, size_t len);

/*
 * The engine options as "name=value" words separated by single spaces, every
 * option of ops in table order ("m=3 n=3 k=3"; "seed=random" for a
 * GAME_OPT_RANDOM option not given), which seek_opts_parse() reads back the
 * same. brief (for people: seeks and game starts): only the options marked
 * GAME_OPT_SHOWN and those that differ from their default ("tak size=6 komi=4",
 * not "... pieces=0 caps=-1 stale=0"); read back, it gives the same game.
 * Returns the length, or -1 if it does not fit.
 */
int game_params_text(const struct game_ops *ops, const struct game_params *p, bool brief,
                     char *buf, size_t len);

#endif
