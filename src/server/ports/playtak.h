/*
 * playtak.h - the playtak.com text protocol (tak.md section 3) as pure
 * functions: one client line into a struct (the playtak server's own
 * patterns, Java's Matcher.find() on `^...`, so trailing text is ignored, as
 * clients that end moves with a blank rely on), moves both ways between
 * playtak's `P A1 C` / `M A1 C1 1 2` and PTN (`Ca1`, `3a1>12`), and the
 * server's lines that carry a seek or a game, in the exact shapes (trailing
 * blanks included) of each protocol version. No I/O, no allocation. The
 * listener of `bitarenad --playtak` (playtak_port.h) is built on it.
 *
 * A field longer than its limit (a Shout's text past PT_TEXT_MAX bytes, a
 * room past 64) is cut before any UTF-8 sequence the cut would split: what
 * other users read stays valid UTF-8 when the line was.
 */
#ifndef BITARENA_SERVER_PLAYTAK_H
#define BITARENA_SERVER_PLAYTAK_H

#include <stdbool.h>
#include <stddef.h>

#define PT_TEXT_MAX 256 /* Shout/Tell text, as the playtak server allows */
#define PT_NAME_MAX 64  /* the longest word kept (rooms; Client names 60, logins 16) */

enum pt_cmd {
	PT_UNKNOWN = 0,
	PT_CLIENT,       /* Client <name> */
	PT_PROTOCOL,     /* Protocol <n> */
	PT_LOGIN,        /* Login <name> <password> */
	PT_LOGIN_GUEST,  /* Login Guest [token] */
	PT_REGISTER,     /* Register <name> <email> */
	PT_SEEK,         /* Seek ... (three shapes; size 0 removes one's seek) */
	PT_ACCEPT,       /* Accept <seek> */
	PT_LIST,         /* List */
	PT_GAMELIST,     /* GameList */
	PT_OBSERVE,      /* Observe <game> */
	PT_UNOBSERVE,    /* Unobserve <game> */
	PT_PLACE,        /* Game#<n> P <sq>[ C][ W] */
	PT_MOVE,         /* Game#<n> M <from> <to> <drops...> */
	PT_OFFER_DRAW,   /* Game#<n> OfferDraw */
	PT_REMOVE_DRAW,  /* Game#<n> RemoveDraw */
	PT_REQUEST_UNDO, /* Game#<n> RequestUndo */
	PT_REMOVE_UNDO,  /* Game#<n> RemoveUndo */
	PT_RESIGN,       /* Game#<n> Resign */
	PT_SHOW,         /* Game#<n> Show */
	PT_SHOUT,        /* Shout <text> */
	PT_TELL,         /* Tell <name> <text> */
	PT_JOIN_ROOM,    /* JoinRoom <room> */
	PT_LEAVE_ROOM,   /* LeaveRoom <room> */
	PT_SHOUT_ROOM,   /* ShoutRoom <room> <text> */
	PT_REMATCH,      /* Rematch <game> ... (the rest: a seek's fields, not kept) */
	PT_PING,         /* PING (exactly) */
	PT_QUIT,         /* quit (exactly) */
	PT_NCMDS
};

/* A seek in any of its shapes; fields a shape lacks hold playtak's defaults. */
struct pt_seek {
	int shape; /* 1, 2 or 3 (tak.md section 3) */
	int size;  /* 0: remove the seek */
	long time_s, incr_s;
	char color;       /* 'W', 'B' or 'A' (any) */
	int komi;         /* half flats */
	int pieces, caps; /* 0 / -1 in shape 1: the standard counts */
	bool unrated, tournament;
	long trigger, amount; /* extra time: after move `trigger`, `amount` seconds */
	char opponent[PT_NAME_MAX + 1];
};

struct pt_line {
	enum pt_cmd cmd;
	long long game;             /* Game#<n>, Accept, Observe, Unobserve, Rematch */
	char name[PT_NAME_MAX + 1]; /* Client, Login, Register, Tell, rooms; Login Guest's token */
	char pass[PT_NAME_MAX + 1]; /* Login's password, Register's email */
	char text[PT_TEXT_MAX + 1]; /* Shout, Tell */
	long protocol;              /* Protocol */
	struct pt_seek seek;
	/* Place and Move: squares as playtak writes them ("A1"), the piece, the drops */
	char from[3], to[3];
	char piece; /* Place: 0 flat, 'C' capstone, 'W' wall */
	int drops[8], ndrops;
};

/* Reads one client line (terminator removed). Never fails: cmd is PT_UNKNOWN for the rest. */
enum pt_cmd pt_parse(const char *line, struct pt_line *out);

/*
 * A Place or Move of l as PTN with every count written ("a1", "Sa1", "Ca1",
 * "3a1>12", "1c2+1"); returns the length, or -1 when it is no move (squares
 * out of a-h/1-8, a direction that is not a straight line, drops that do not
 * fit the distance). The move's legality is the engine's business.
 */
int pt_to_ptn(const struct pt_line *l, char *buf, size_t len);

/*
 * A PTN move (any form: "c3", "Sa1", "3a1>12", "a1>", trailing stone letter or
 * marks) as playtak writes it after "Game#<n> ": "P A1", "P A1 W", "P A1 C",
 * "M A1 C1 1 2". Returns the length, or -1 when the text is not PTN.
 */
int pt_from_ptn(const char *ptn, char *buf, size_t len);

/* ---- the server's lines --------------------------------------------------------------- */

/* A seek as the server's lines show it. */
struct pt_seekinfo {
	long long id;
	const char *name; /* its author */
	int size;
	long time_s, incr_s;
	char color; /* 'W', 'B' or 'A' */
	int komi, pieces, caps;
	bool unrated, tournament;
	long trigger, amount;
	const char *opponent; /* "" for anyone */
	bool bot;
};

/*
 * What follows "Seek new " or "Seek remove ": protocol <= 1 "<id> <name> <size> <time>
 * <incr> <W|B|A> <komi> <pieces> <caps> <unrated> <tournament> <trigger> <amount>
 * <opponent>" (an empty opponent leaves a trailing blank); protocol >= 2 the same, the
 * opponent "0" when there is none, then the bot flag. Returns the length, or -1 when it does
 * not fit.
 */
int pt_format_seek(char *buf, size_t len, long protocol, const struct pt_seekinfo *k);

/* A game as the server's lines show it. */
struct pt_gameinfo {
	long long id;
	const char *white, *black;
	int size;
	long time_s, incr_s;
	int komi, pieces, caps;
	bool unrated, tournament;
	long trigger, amount;
	bool bot;
};

/*
 * "<id> <white> <black> <size> <time> <incr> <komi> <pieces> <caps> <unrated> <tournament>
 * <trigger> <amount>": what follows "GameList Add ", "GameList Remove " and "Observe ".
 * Returns the length, or -1 when it does not fit.
 */
int pt_format_game(char *buf, size_t len, const struct pt_gameinfo *g);

/*
 * The whole "Game Start" line for the player of white (or black): protocol < 2 "Game
 * Start <id> <size> <white> vs <black> <white|black> <time> <komi> <pieces> <caps> <trigger>
 * <amount>", protocol >= 2 "Game Start <id> <white> vs <black> <white|black> <size> <time>
 * <incr> <komi> <pieces> <caps> <unrated> <tournament> <trigger> <amount> <bot>". Returns the
 * length, or -1 when it does not fit.
 */
int pt_format_game_start(char *buf, size_t len, long protocol, const struct pt_gameinfo *g,
                         bool white);

#endif
