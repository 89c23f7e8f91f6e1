/*
 * accounts.h - accounts on the running server, above the lobby (a login ends
 * in lobby_login) and beside the journal: register, login with a password,
 * login as a guest (a name that is not an account's), a second login of an
 * account taking the seat over from the first connection (told
 * SESSION_TAKEN and closed), a guest's token as its password while it holds
 * its name (identity.h).
 *
 * Failed logins are throttled (ratelimit.h) per account from one address,
 * per address over all accounts, and per account from addresses it has not
 * logged in from before: an attempt is counted when it starts, before the
 * password is checked, so attempts in parallel cannot slip past the limit
 * together, and it is taken back when it succeeds; an account closed to new
 * addresses by someone failing against it still opens to its user from an
 * address it logged in from, and to the right password from an address that
 * did not fail. Registrations are limited per address. An address is keyed as
 * --max-per-address keys it (addrcount.h: an IPv6 /64 is one). Unknown names cost
 * the same work as wrong passwords, so timing tells no names apart.
 *
 * Nothing here blocks the loop: the store is read on a reader thread
 * (store_reader.h), the Argon2id work runs on a libuv worker, and a new
 * account is written through the journal's writer (journal_add_account),
 * answered once it is durable. Meanwhile the connection's next commands
 * wait (its input is held, conn_hold), so its replies keep their order. A
 * job finds its connection again by id at every step: a client gone
 * meanwhile is simply not told.
 */
#ifndef BITARENA_SERVER_ACCOUNTS_H
#define BITARENA_SERVER_ACCOUNTS_H

#include <stdbool.h>

#include "server/records/journal.h"
#include "server/util/ratelimit.h"
#include "server/play/lobby.h"
#include "server/store/store.h"
#include "server/store/store_reader.h"

struct ratelimit;

/* The limits (0: the default; -1: no limit). Windows are fixed: see ACCOUNTS_*_MS. */
#define ACCOUNTS_LOGIN_PAIR_DEFAULT 5 /* failed logins of an account from one address */
#define ACCOUNTS_LOGIN_PAIR_MS      60000
#define ACCOUNTS_LOGIN_ADDR_DEFAULT 20 /* failed logins from one address, any account */
#define ACCOUNTS_LOGIN_ADDR_MS      600000
#define ACCOUNTS_LOGIN_ACCT_DEFAULT 50 /* failed logins of an account from new addresses */
#define ACCOUNTS_LOGIN_ACCT_MS      600000
#define ACCOUNTS_KNOWN_MS           (30LL * 24 * 3600 * 1000) /* an address logged in from */
#define ACCOUNTS_REGISTER_DEFAULT   10 /* accounts registered from one address */
#define ACCOUNTS_REGISTER_MS        3600000
#define ACCOUNTS_LIMIT_MAX          RATELIMIT_FAILURES_CAP /* the largest limit */
struct accounts_limits {
	int login_pair, login_addr, login_acct, register_addr;
};

struct accounts {
	struct store_reader *rd;     /* the store's reads */
	struct journal *journal;     /* new accounts are written through it */
	struct lobby *lobby;         /* logins end there; a takeover finds the other client there */
	struct conn_hub *hub;        /* a job finds its connection again */
	struct ratelimit *rl_pair;   /* failed logins by "name\naddress" */
	struct ratelimit *rl_addr;   /* failed logins by address */
	struct ratelimit *rl_acct;   /* failed logins by name, from addresses not known to it */
	struct ratelimit *known;     /* "name\naddress" that logged in (one entry each) */
	struct ratelimit *rl_reg;    /* registrations by address */
	unsigned long long opslimit; /* Argon2id cost of new hashes */
	size_t memlimit;
	char dummy_hash[STORE_HASH_MAX]; /* checked for unknown names: same cost as a real one */
	unsigned jobs;                   /* jobs under way (reader, worker, writer) */
};

/*
 * Accounts read through rd and written through jn. fast_hash: the weakest
 * Argon2id cost (tests only); lim may be NULL (the defaults). 0, or a
 * negative enum store_err (logged; a is closed then).
 */
int accounts_init(struct accounts *a, struct store_reader *rd, struct journal *jn, struct lobby *l,
                  struct conn_hub *hub, bool fast_hash, const struct accounts_limits *lim);
/* Frees what accounts_init() made. Jobs must be done (after uv_run). */
void accounts_close(struct accounts *a);
/* register <name> <password> [bot]: answers rq once the account is stored (the password's
   last word "bot", after a space, makes it a bot's account). */
void accounts_register(struct accounts *a, struct client *c, const struct proto_req *rq);
/*
 * login <name> <password> (c is not logged in): answers rq once the password
 * is checked. A name that is no account's but a guest's: the password is the
 * guest's token (identity.h).
 */
void accounts_login(struct accounts *a, struct client *c, const struct proto_req *rq);
/*
 * login <name> as a guest (c is not logged in, name is valid): answers rq
 * once the store says the name is no account's (NAME_REGISTERED otherwise).
 */
void accounts_login_guest(struct accounts *a, struct client *c, const struct proto_req *rq);

/*
 * set bot on|off, set bots on|off, set accept ...: c's preferences become want (its bot,
 * bots_off and accept; setting: "bot", "bots" or "accept", a static string naming what the
 * reply tells). An account's are written through the journal and answered once durable
 * (c's input held meanwhile); a guest's are the connection's only (a guest is never a bot:
 * NOT_LOGGED_IN). Changing the bot flag of an account that has played: BOT_HAS_PLAYED.
 * a may be NULL (a server without a store: memory only).
 */
void accounts_set_prefs(struct accounts *a, struct client *c, const struct proto_req *rq,
                        const struct store_prefs *want, const char *setting);

#endif
