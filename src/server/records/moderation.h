/*
 * moderation.h - what the server's admins decided, in memory: who is an
 * admin (the store's admins table, given offline by `bitarenad admin add`,
 * and the config's `admins`), the bans and mutes (of a name, or of an
 * address as "addr:ADDRESS"), each account's blocks. Loaded once from the
 * store at start (moderation_load(), before the journal's writer owns the
 * connection); every change goes to memory at once and to the store through
 * the journal (journal_add_mod(): the state row and its audit row in one
 * unit, durable before the command's reply leaves).
 *
 * The rows are kept in one array and searched by a scan: a server holds a
 * few admins, bans and mutes, and each account a few blocks; a scan costs
 * less than an index would until that stops being true.
 *
 * Threads: the loop's only. Memory: the rows are the struct's.
 */
#ifndef BITARENA_SERVER_MODERATION_H
#define BITARENA_SERVER_MODERATION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "server/store/store.h"

struct journal;
struct client;

#define MODERATION_ADDR_PREFIX "addr:" /* a target that is an address, not a name */

struct moderation {
	struct journal *jn;  /* where changes are stored (NULL: memory only, no store) */
	struct store_mod *v; /* admins, bans, mutes and blocks */
	size_t n, cap;
	char *config_admins; /* the config's admins option: names split by ',' or ' ' */
};

/* Reads every admin, ban, mute and block of db into m (zeroed first). 0 or < 0. */
int moderation_load(struct moderation *m, struct store *db);
void moderation_free(struct moderation *m);
/* The config's admins option (a copy is kept; NULL: none). */
void moderation_set_config_admins(struct moderation *m, const char *list);

/* name is an admin: in the store's table or the config's list (case-insensitive). */
bool moderation_is_admin(const struct moderation *m, const char *name);
/*
 * The row of kind for target (for a block: actor blocks target) in force at
 * now (until 0, or later than now), or NULL.
 */
const struct store_mod *moderation_find(const struct moderation *m, enum store_mod_kind kind,
                                        const char *actor, const char *target, int64_t now);
/* The ban that keeps a login of name from peer (a connection's address) out at now, or NULL. */
const struct store_mod *moderation_banned(const struct moderation *m, const char *name,
                                          const char *peer, int64_t now);
/*
 * Applies row (kind, remove, actor, target ...) to memory and queues it, with
 * its audit row when row->action is set, to the store. STORE_ENOTFOUND: a
 * remove of what is not there (nothing written); else 0 or the journal's
 * failure (nothing changed).
 */
int moderation_apply(struct moderation *m, const struct store_mod *row);
/*
 * For the session layer's chat (struct sessions' hear): true when to blocks
 * from (ud: the struct moderation).
 */
bool moderation_hides(void *ud, const struct client *to, const char *from);
/*
 * bitarenad admin add|remove NAME, admin list, audit: on the store of so (while
 * a server may run; a running server sees an admin added or removed at its next
 * start), to out; the audit trail's latest limit rows (0: all), newest first.
 * 0, 1 (the store failed, or the name is no account / no admin) or 2 (a bad
 * request), with a sentence in why.
 */
enum moderation_offline { MODERATION_ADD, MODERATION_REMOVE, MODERATION_LIST, MODERATION_AUDIT };
int moderation_offline(const struct store_options *so, enum moderation_offline op, const char *name,
                       int limit, FILE *out, char *why, size_t len);

#endif
