/*
 * accounts.c - accounts on the running server (see accounts.h): register and
 * password login, whose Argon2id work runs on a libuv worker while the
 * connection's further input waits; a second login of an account takes the
 * seat over from the first connection; failed logins are throttled per
 * address.
 */
#include "server/accounts.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/ratelimit.h"

int accounts_init(struct accounts *a, struct store *db, struct journal *jn, struct lobby *l,
                  struct conn_hub *hub, bool fast_hash)
{
	memset(a, 0, sizeof *a);
	a->db = db;
	a->journal = jn;
	a->lobby = l;
	a->hub = hub;
	a->opslimit = fast_hash ? crypto_pwhash_OPSLIMIT_MIN : crypto_pwhash_OPSLIMIT_INTERACTIVE;
	a->memlimit = fast_hash ? crypto_pwhash_MEMLIMIT_MIN : crypto_pwhash_MEMLIMIT_INTERACTIVE;
	store_set_hash_cost(db, a->opslimit, a->memlimit);
	a->rl = ratelimit_new(RATELIMIT_MAX_FAILURES, RATELIMIT_WINDOW_MS, RATELIMIT_MAX_ENTRIES);
	/* a hash of a random password: unknown names are checked against it */
	unsigned char rnd[24];
	char pw[2 * sizeof rnd + 1];
	randombytes_buf(rnd, sizeof rnd);
	sodium_bin2hex(pw, sizeof pw, rnd, sizeof rnd);
	int r = a->rl == NULL ? STORE_ENOMEM
	                      : store_password_hash(pw, a->opslimit, a->memlimit, a->dummy_hash);
	sodium_memzero(pw, sizeof pw);
	if (r < 0) {
		log_error("cannot set up accounts: %s", store_strerror(r));
		accounts_close(a);
	}
	return r;
}

void accounts_close(struct accounts *a)
{
	ratelimit_free(a->rl);
	a->rl = NULL;
	a->db = NULL;
}

int accounts_is_account(const struct accounts *a, const char *name)
{
	if (a == NULL || a->db == NULL || !store_name_valid(name))
		return 0;
	return store_account_exists(a->db, name, NULL);
}

/* One Argon2id job: hashing a new password, or checking one against a hash. */
struct auth_job {
	uv_work_t req;
	struct accounts *a;
	uint64_t conn_id;
	struct proto_req rq; /* tag and verb only (argv cleared) */
	bool reg;            /* register (hash) or login (check) */
	bool known;          /* login: the name is an account */
	char name[STORE_NAME_MAX + 1];
	char password[STORE_PASS_MAX + 1]; /* wiped once used */
	char hash[STORE_HASH_MAX];
	int result;
};

static void auth_work(uv_work_t *req)
{
	struct auth_job *j = req->data;
	if (j->reg)
		j->result =
		        store_password_hash(j->password, j->a->opslimit, j->a->memlimit, j->hash);
	else
		j->result = store_password_check(j->hash, j->password) == 0 && j->known
		                    ? 0
		                    : STORE_EAUTH;
	sodium_memzero(j->password, sizeof j->password);
}

/* The account's other connection is told why and closed; its seats wait for c. */
static void take_over(struct accounts *a, struct client *c, const char *name)
{
	struct client *old = lobby_find_user(a->lobby, name);
	if (old == NULL || old == c)
		return;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "info");
	cJSON_AddStringToObject(j, "event", "session_taken");
	cJSON_AddStringToObject(j, "code", "SESSION_TAKEN");
	char *t = xasprintf("%s logged in from elsewhere (%s); this connection closes", name,
	                    c->conn->peer);
	cJSON_AddStringToObject(j, "message", t ? t : "");
	send_msg(old, j, xasprintf("info SESSION_TAKEN: %s", t ? t : ""));
	free(t);
	log_info("conn %llu takes over %s from conn %llu", (unsigned long long)c->conn->id, name,
	         (unsigned long long)old->conn->id);
	client_close(old, true);
}

static void auth_done(uv_work_t *req, int status)
{
	struct auth_job *j = req->data;
	struct accounts *a = j->a;
	a->jobs--;
	struct conn *cn = conn_find(a->hub, j->conn_id);
	struct client *c = cn != NULL ? client_of(cn) : NULL;
	if (c == NULL || a->hub->stopping) { /* gone meanwhile: nothing to tell */
		sodium_memzero(j, sizeof *j);
		free(j);
		return;
	}
	const struct proto_req *rq = &j->rq;
	if (status < 0) {
		reply_err(c, rq, "INTERNAL", "the password could not be checked");
	} else if (j->reg) {
		int r = j->result;
		if (a->journal != NULL)
			journal_retry(a->journal);
		if (r == 0)
			r = store_account_insert(a->db, j->name, j->hash, store_now_ms());
		if (r == STORE_EEXISTS) {
			reply_err(c, rq, "NAME_TAKEN", "%s is registered already", j->name);
		} else if (r < 0) {
			journal_log_failure(a->db, "register", r);
			reply_err(c, rq, "INTERNAL", "the account could not be stored");
		} else if (c->logged_in) {
			cJSON *f = cJSON_CreateObject();
			cJSON_AddStringToObject(f, "name", j->name);
			log_info("account %s registered", j->name);
			reply_ok(c, rq, f, NULL,
			         "registered %s; log in with it: login %s <password>", j->name,
			         j->name);
		} else {
			log_info("account %s registered", j->name);
			lobby_login(a->lobby, c, rq, j->name, true);
		}
	} else if (j->result == 0) {
		ratelimit_success(a->rl, c->conn->peer);
		take_over(a, c, j->name);
		lobby_login(a->lobby, c, rq, j->name, true);
	} else {
		ratelimit_fail(a->rl, c->conn->peer, (int64_t)uv_now(a->hub->loop));
		reply_err(c, rq, "BAD_LOGIN", "wrong name or password");
	}
	sodium_memzero(j, sizeof *j);
	free(j);
	conn_release(c->conn);
}

/* Queues j; the connection's input waits until auth_done. False (and j freed) on failure. */
static bool auth_queue(struct accounts *a, struct client *c, const struct proto_req *rq,
                       struct auth_job *j)
{
	j->a = a;
	j->conn_id = c->conn->id;
	j->rq = *rq;
	j->rq.argc = 0;
	memset(j->rq.argv, 0, sizeof j->rq.argv);
	j->req.data = j;
	if (uv_queue_work(a->hub->loop, &j->req, auth_work, auth_done) != 0) {
		sodium_memzero(j, sizeof *j);
		free(j);
		reply_err(c, rq, "INTERNAL", "the password could not be checked");
		return false;
	}
	a->jobs++;
	conn_hold(c->conn);
	return true;
}

void accounts_register(struct accounts *a, struct client *c, const struct proto_req *rq)
{
	const char *name = rq->argv[0], *password = rq->argv[1];
	if (!store_name_valid(name)) {
		reply_err(c, rq, "BAD_NAME",
		          "account names are %d to %d characters of A-Z a-z 0-9 _", STORE_NAME_MIN,
		          STORE_NAME_MAX);
		return;
	}
	if (!store_password_valid(password)) {
		reply_err(c, rq, "BAD_PASSWORD", "passwords are %d to %d bytes", STORE_PASS_MIN,
		          STORE_PASS_MAX);
		return;
	}
	int r = store_account_exists(a->db, name, NULL);
	if (r < 0) {
		journal_log_failure(a->db, "register", r);
		reply_err(c, rq, "INTERNAL", "the accounts could not be read");
		return;
	}
	struct client *u = lobby_find_user(a->lobby, name);
	if (r == 1 || (u != NULL && u != c)) {
		reply_err(c, rq, "NAME_TAKEN", "%s is %s already", name,
		          r == 1 ? "registered" : "in use by a guest");
		return;
	}
	struct auth_job *j = calloc(1, sizeof *j);
	if (j == NULL) {
		reply_err(c, rq, "INTERNAL", "out of memory");
		return;
	}
	j->reg = true;
	snprintf(j->name, sizeof j->name, "%s", name);
	snprintf(j->password, sizeof j->password, "%s", password);
	auth_queue(a, c, rq, j);
}

void accounts_login(struct accounts *a, struct client *c, const struct proto_req *rq)
{
	int64_t retry = 0;
	if (ratelimit_check(a->rl, c->conn->peer, (int64_t)uv_now(a->hub->loop), &retry) ==
	    RATELIMIT_THROTTLED) {
		int64_t secs = (retry + 999) / 1000;
		cJSON *j = cJSON_CreateObject();
		cJSON_AddStringToObject(j, "type", "error");
		cJSON_AddStringToObject(j, "code", "LOGIN_THROTTLED");
		char *t = xasprintf(
		        "too many failed logins from your address; try again in %" PRId64 " s",
		        secs);
		cJSON_AddStringToObject(j, "message", t ? t : "");
		cJSON_AddNumberToObject(j, "retry_s", (double)secs);
		cJSON_AddStringToObject(j, "cmd", rq->cmd->name);
		if (rq->tagged)
			cJSON_AddStringToObject(j, "id", rq->tag);
		send_msg(c, j,
		         xasprintf("%s%s%serror LOGIN_THROTTLED: %s", rq->tagged ? "#" : "",
		                   rq->tagged ? rq->tag : "", rq->tagged ? " " : "", t ? t : ""));
		free(t);
		return;
	}
	struct auth_job *j = calloc(1, sizeof *j);
	if (j == NULL) {
		reply_err(c, rq, "INTERNAL", "out of memory");
		return;
	}
	const char *name = rq->argv[0], *password = rq->argv[1];
	int r = store_name_valid(name) && store_password_valid(password)
	                ? store_account_hash(a->db, name, j->name, j->hash)
	                : STORE_ENOTFOUND;
	if (r < 0 && r != STORE_ENOTFOUND) {
		journal_log_failure(a->db, "login", r);
		free(j);
		reply_err(c, rq, "INTERNAL", "the accounts could not be read");
		return;
	}
	j->known = r == 0;
	if (!j->known) /* the same work as for a real account: no timing tells names apart */
		snprintf(j->hash, sizeof j->hash, "%s", a->dummy_hash);
	snprintf(j->password, sizeof j->password, "%s", password);
	auth_queue(a, c, rq, j);
}
