/*
 * playtak.h - the client side of the playtak.com text protocol (tak.md
 * section 3) as pure functions: one client line into a struct (the playtak
 * server's own patterns, Java's Matcher.find() on `^...`, so trailing text is
 * ignored, as clients that end moves with a blank rely on), and moves both
 * ways between playtak's `P A1 C` / `M A1 C1 1 2` and PTN (`Ca1`, `3a1>12`).
 * No I/O, no allocation. The listener of `bitarenad --playtak` is built on it.
 */
#ifndef BITARENA_SERVER_PLAYTAK_H
#define BITARENA_SERVER_PLAYTAK_H

#include <stdbool.h>
#include <stddef.h>

#define PT_TEXT_MAX 256 /* Shout/Tell text, as the playtak server allows */
#define PT_NAME_MAX 60  /* the longest word kept (Client names; logins are at most 16) */

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
	PT_PING,         /* PING (exactly) */
	PT_QUIT          /* quit (exactly) */
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
	long long game;             /* Game#<n>, Accept, Observe, Unobserve */
	char name[PT_NAME_MAX + 1]; /* Client, Login, Register, Tell; Login Guest's token */
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

#endif
