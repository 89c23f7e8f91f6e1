/*
 * moderation.c - admins, bans, mutes and blocks in memory, loaded from the
 * store and changed through the journal (see moderation.h).
 */
#include "server/records/moderation.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "server/msg/client.h"
#include "server/records/journal.h"

int moderation_load(struct moderation *m, struct store *db)
{
	memset(m, 0, sizeof *m);
	static const enum store_mod_kind kinds[] = {STORE_MOD_ADMIN, STORE_MOD_BAN, STORE_MOD_MUTE,
	                                            STORE_MOD_BLOCK};
	for (size_t k = 0; k < sizeof kinds / sizeof kinds[0]; k++) {
		struct store_mod *rows;
		size_t n;
		int err = store_mod_list(db, kinds[k], 0, &rows, &n);
		for (size_t i = 0; err == 0 && i < n; i++)
			err = store_mod_push(&m->v, &m->n, &m->cap, &rows[i]);
		free(rows);
		if (err < 0) {
			moderation_free(m);
			return err;
		}
	}
	return 0;
}

void moderation_free(struct moderation *m)
{
	free(m->v);
	free(m->config_admins);
	m->v = NULL;
	m->n = m->cap = 0;
	m->config_admins = NULL;
}

void moderation_set_config_admins(struct moderation *m, const char *list)
{
	free(m->config_admins);
	m->config_admins = list != NULL ? strdup(list) : NULL;
}

/* name is one of the words of list (split by ',' or ' '), in any letter case. */
static bool listed(const char *list, const char *name)
{
	size_t len = strlen(name);
	for (const char *p = list; p != NULL && *p != '\0';) {
		p += strspn(p, ", ");
		size_t w = strcspn(p, ", ");
		if (w == len && w > 0 && strncasecmp(p, name, len) == 0)
			return true;
		p += w;
	}
	return false;
}

static bool in_force(const struct store_mod *r, int64_t now)
{
	return r->until == 0 || r->until > now;
}

static struct store_mod *row_of(const struct moderation *m, enum store_mod_kind kind,
                                const char *actor, const char *target)
{
	for (size_t i = 0; i < m->n; i++) {
		struct store_mod *r = &m->v[i];
		if (r->kind == kind && strcasecmp(r->target, target) == 0 &&
		    (kind != STORE_MOD_BLOCK || strcasecmp(r->actor, actor) == 0))
			return r;
	}
	return NULL;
}

bool moderation_is_admin(const struct moderation *m, const char *name)
{
	return row_of(m, STORE_MOD_ADMIN, NULL, name) != NULL || listed(m->config_admins, name);
}

const struct store_mod *moderation_find(const struct moderation *m, enum store_mod_kind kind,
                                        const char *actor, const char *target, int64_t now)
{
	const struct store_mod *r = row_of(m, kind, actor, target);
	return r != NULL && in_force(r, now) ? r : NULL;
}

const struct store_mod *moderation_banned(const struct moderation *m, const char *name,
                                          const char *peer, int64_t now)
{
	const struct store_mod *r = moderation_find(m, STORE_MOD_BAN, NULL, name, now);
	if (r != NULL || peer == NULL || peer[0] == '\0')
		return r;
	char addr[STORE_TARGET_MAX + 1];
	snprintf(addr, sizeof addr, MODERATION_ADDR_PREFIX "%.58s", peer);
	return moderation_find(m, STORE_MOD_BAN, NULL, addr, now);
}

int moderation_apply(struct moderation *m, const struct store_mod *row)
{
	struct store_mod *had =
	        row->kind == STORE_MOD_AUDIT ? NULL : row_of(m, row->kind, row->actor, row->target);
	if (row->remove && had == NULL)
		return STORE_ENOTFOUND;
	bool added = !row->remove && had == NULL && row->kind != STORE_MOD_AUDIT;
	if (added) {
		int err = store_mod_push(&m->v, &m->n, &m->cap, row);
		if (err < 0)
			return err;
	}
	int err = m->jn != NULL ? journal_add_mod(m->jn, row) : 0;
	if (err < 0) { /* not stored: memory stays as the store is */
		if (added)
			m->n--;
		return err;
	}
	if (had != NULL && row->remove)
		*had = m->v[--m->n];
	else if (had != NULL)
		*had = *row;
	return 0;
}

bool moderation_hides(void *ud, const struct client *to, const char *from)
{
	const struct moderation *m = ud;
	return to->logged_in && row_of(m, STORE_MOD_BLOCK, to->name, from) != NULL;
}

/* ---- offline: bitarenad admin, bitarenad audit ------------------------------------------- */

/* ms since 1970 as "2026-11-28T10:00:00Z". */
static const char *iso(int64_t ms, char *buf, size_t len)
{
	time_t t = (time_t)(ms / 1000);
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
	return buf;
}

int moderation_offline(const struct store_options *so, enum moderation_offline op, const char *name,
                       int limit, FILE *out, char *why, size_t len)
{
	bool add = op == MODERATION_ADD, remove = op == MODERATION_REMOVE;
	bool audit = op == MODERATION_AUDIT;
	if ((add || remove) != (name != NULL) || (name != NULL && !store_name_valid(name))) {
		snprintf(why, len,
		         "admin add NAME | admin remove NAME | admin list (a name: 2-20 of "
		         "A-Z a-z 0-9 _)");
		return 2;
	}
	struct store *db = NULL;
	int err = store_open_opts(so, &db);
	if (err == 0 && add) {
		err = store_account_exists(db, name, NULL);
		if (err == 0) {
			snprintf(why, len, "%s is no account of this store (register it first)",
			         name);
			store_close(db);
			return 1;
		}
	}
	if (err >= 0 && (add || remove)) {
		/* the host's own doing: audited as "host", the one actor no account can be */
		struct store_mod m = {
		        .kind = STORE_MOD_ADMIN, .remove = remove, .at = store_now_ms()};
		snprintf(m.actor, sizeof m.actor, "(host)");
		snprintf(m.action, sizeof m.action, "%s", add ? "admin add" : "admin remove");
		snprintf(m.target, sizeof m.target, "%s", name);
		err = store_mod_write(db, &m);
		if (err == STORE_ENOTFOUND) {
			snprintf(why, len, "%s is not an admin", name);
			store_close(db);
			return 1;
		}
		if (err == 0)
			fprintf(out, "%s %s\n", name, add ? "is an admin" : "is no admin now");
	} else if (err >= 0) {
		struct store_mod *v;
		size_t n;
		err = store_mod_list(db, audit ? STORE_MOD_AUDIT : STORE_MOD_ADMIN, limit, &v, &n);
		for (size_t i = 0; err >= 0 && i < n; i++) {
			char at[32], until[32];
			if (audit)
				fprintf(out, "%s %s %s %s%s%s%s%s\n", iso(v[i].at, at, sizeof at),
				        v[i].actor, v[i].action, v[i].target,
				        v[i].until ? " until=" : "",
				        v[i].until ? iso(v[i].until, until, sizeof until) : "",
				        v[i].reason[0] ? " reason=" : "", v[i].reason);
			else
				fprintf(out, "%s (since %s, by %s)\n", v[i].target,
				        iso(v[i].at, at, sizeof at), v[i].actor);
		}
		free(v);
	}
	if (err < 0)
		snprintf(why, len, "the store: %s (%s)", store_strerror(err),
		         db != NULL ? store_last_error(db) : "cannot open");
	store_close(db);
	return err < 0 ? 1 : 0;
}
