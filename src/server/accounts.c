/*
 * accounts.c - accounts on the running server (see accounts.h). Every
 * request is one job that goes through up to three steps, each off the loop,
 * while the connection's further input waits:
 *   1. the store, on a reader thread: is the name an account, its hash;
 *   2. Argon2id on a libuv worker: hashing a new password, or checking one;
 *   3. a new account through the journal's writer, answered once durable.
 * A second login of an account takes the seat over from the first
 * connection; failed logins are throttled per address.
 */
#include "server/accounts.h"

#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/ratelimit.h"

enum auth_kind { AUTH_REGISTER, AUTH_LOGIN, AUTH_GUEST };

struct auth_job {
	struct store_read rd; /* first: step 1 hands back this pointer */
	uv_work_t work;       /* step 2 */
	struct accounts *a;
	enum auth_kind kind;
	uint64_t conn_id;
	struct proto_req rq; /* tag and verb only (argv cleared) */
	char name[PROTO_NAME_MAX + 1];
	char password[STORE_PASS_MAX + 1]; /* wiped once used */
	char hash[STORE_HASH_MAX];
	int found;  /* step 1: 1 an account, 0 none, < 0 the store failed */
	int result; /* step 2 */
};

static void on_account(void *ud, const struct store_rec *r);

int accounts_init(struct accounts *a, struct store_reader *rd, struct journal *jn, struct lobby *l,
                  struct conn_hub *hub, bool fast_hash)
{
	memset(a, 0, sizeof *a);
	a->rd = rd;
	a->journal = jn;
	a->lobby = l;
	a->hub = hub;
	a->opslimit = fast_hash ? crypto_pwhash_OPSLIMIT_MIN : crypto_pwhash_OPSLIMIT_INTERACTIVE;
	a->memlimit = fast_hash ? crypto_pwhash_MEMLIMIT_MIN : crypto_pwhash_MEMLIMIT_INTERACTIVE;
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
		return r;
	}
	jn->on_account = on_account;
	jn->acct_ud = a;
	return 0;
}

void accounts_close(struct accounts *a)
{
	if (a->journal != NULL && a->journal->acct_ud == a) {
		a->journal->on_account = NULL;
		a->journal->acct_ud = NULL;
	}
	ratelimit_free(a->rl);
	a->rl = NULL;
	a->rd = NULL;
}

/* ---- the job's steps ---------------------------------------------------------------- */

static void job_free(struct auth_job *j)
{
	j->a->jobs--;
	sodium_memzero(j, sizeof *j);
	free(j);
}

/* The job's client, or NULL when it went (then the job is freed: nobody to tell). */
static struct client *job_client(struct auth_job *j)
{
	struct conn *cn = conn_find(j->a->hub, j->conn_id);
	struct client *c = cn != NULL && !j->a->hub->stopping ? client_of(cn) : NULL;
	if (c == NULL)
		job_free(j);
	return c;
}

/* The job's last word: c's input goes on, the job is gone. */
static void job_done(struct auth_job *j, struct client *c)
{
	conn_release(c->conn);
	job_free(j);
}

static void job_fail(struct auth_job *j, struct client *c, const char *sentence)
{
	reply_err(c, &j->rq, "INTERNAL", "%s", sentence);
	job_done(j, c);
}

/* Step 1, on a reader thread. */
static void read_work(struct store *db, struct store_read *rd)
{
	struct auth_job *j = (struct auth_job *)rd;
	if (j->kind == AUTH_LOGIN) {
		char canon[STORE_NAME_MAX + 1];
		int r = store_account_hash(db, j->name, canon, j->hash);
		j->found = r == STORE_OK ? 1 : r == STORE_ENOTFOUND ? 0 : r;
		if (j->found == 1)
			snprintf(j->name, sizeof j->name, "%s", canon);
	} else {
		j->found = store_name_valid(j->name) ? store_account_exists(db, j->name, NULL) : 0;
	}
}

/* Step 2, on a libuv worker. */
static void auth_work(uv_work_t *req)
{
	struct auth_job *j = req->data;
	if (j->kind == AUTH_REGISTER)
		j->result =
		        store_password_hash(j->password, j->a->opslimit, j->a->memlimit, j->hash);
	else
		j->result = store_password_check(j->hash, j->password) == 0 && j->found == 1
		                    ? 0
		                    : STORE_EAUTH;
	sodium_memzero(j->password, sizeof j->password);
}

static void auth_done(uv_work_t *req, int status);

static void hash_next(struct auth_job *j, struct client *c)
{
	j->work.data = j;
	if (uv_queue_work(j->a->hub->loop, &j->work, auth_work, auth_done) != 0)
		job_fail(j, c, "the password could not be checked");
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

/* Step 1 is back, on the loop. */
static void read_done(struct store_read *rd)
{
	struct auth_job *j = (struct auth_job *)rd;
	struct client *c = job_client(j);
	if (c == NULL)
		return;
	const struct proto_req *rq = &j->rq;
	if (j->found < 0) {
		journal_log_failure(rq->verb, j->found, "reading the accounts");
		job_fail(j, c, "the accounts could not be read");
		return;
	}
	struct client *u = lobby_find_user(j->a->lobby, j->name);
	switch (j->kind) {
	case AUTH_REGISTER:
		if (j->found == 1 || (u != NULL && u != c)) {
			reply_err(c, rq, "NAME_TAKEN", "%s is %s already", j->name,
			          j->found == 1 ? "registered" : "in use by a guest");
			job_done(j, c);
		} else {
			hash_next(j, c);
		}
		break;
	case AUTH_LOGIN:
		if (j->found == 0) /* the same work as for a real account: no timing tells names */
			snprintf(j->hash, sizeof j->hash, "%s", j->a->dummy_hash);
		hash_next(j, c);
		break;
	case AUTH_GUEST:
		if (j->found == 1)
			reply_err(c, rq, "NAME_REGISTERED",
			          "%s is a registered account: login %s <password>", j->name,
			          j->name);
		else if (u != NULL)
			reply_err(c, rq, "NAME_TAKEN", "%s is connected already; pick another name",
			          j->name);
		else
			lobby_login(j->a->lobby, c, rq, j->name, false);
		job_done(j, c);
		break;
	}
}

/* Step 2 is back, on the loop. */
static void auth_done(uv_work_t *req, int status)
{
	struct auth_job *j = req->data;
	struct accounts *a = j->a;
	struct client *c = job_client(j);
	if (c == NULL)
		return;
	const struct proto_req *rq = &j->rq;
	if (status < 0) {
		job_fail(j, c, "the password could not be checked");
	} else if (j->kind == AUTH_REGISTER) {
		const char *why;
		int r = j->result;
		if (r == STORE_OK && journal_failing(a->journal, &why)) {
			journal_log_failure("register", a->journal->fail_err, why);
			r = a->journal->fail_err;
		}
		if (r == STORE_OK)
			r = journal_add_account(a->journal, j->name, j->hash, j); /* step 3 */
		if (r < 0)
			job_fail(j, c, "the account could not be stored");
	} else if (j->result == 0) {
		ratelimit_success(a->rl, c->conn->peer);
		take_over(a, c, j->name);
		lobby_login(a->lobby, c, rq, j->name, true);
		job_done(j, c);
	} else {
		ratelimit_fail(a->rl, c->conn->peer, (int64_t)uv_now(a->hub->loop));
		reply_err(c, rq, "BAD_LOGIN", "wrong name or password");
		job_done(j, c);
	}
}

/* Step 3 is back: the account is stored (or the name was taken meanwhile, or it failed). */
static void on_account(void *ud, const struct store_rec *r)
{
	(void)ud;
	struct auth_job *j = r->ud;
	struct client *c = job_client(j);
	if (c == NULL)
		return;
	const struct proto_req *rq = &j->rq;
	if (r->err == STORE_EEXISTS) {
		reply_err(c, rq, "NAME_TAKEN", "%s is registered already", j->name);
	} else if (r->err < 0) {
		reply_err(c, rq, "INTERNAL", "the account could not be stored");
	} else if (c->logged_in) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "name", j->name);
		log_info("account %s registered", j->name);
		reply_ok(c, rq, f, NULL, "registered %s; log in with it: login %s <password>",
		         j->name, j->name);
	} else {
		log_info("account %s registered", j->name);
		lobby_login(j->a->lobby, c, rq, j->name, true);
	}
	job_done(j, c);
}

/* A job for rq, its step 1 queued and c's input held; NULL (answered) on failure. */
static struct auth_job *job_start(struct accounts *a, struct client *c, const struct proto_req *rq,
                                  enum auth_kind kind, const char *name, const char *password)
{
	struct auth_job *j = calloc(1, sizeof *j);
	if (j == NULL) {
		reply_err(c, rq, "INTERNAL", "out of memory");
		return NULL;
	}
	j->a = a;
	j->kind = kind;
	j->conn_id = c->conn->id;
	j->rq = *rq;
	j->rq.argc = 0;
	memset(j->rq.argv, 0, sizeof j->rq.argv);
	snprintf(j->name, sizeof j->name, "%s", name);
	if (password != NULL)
		snprintf(j->password, sizeof j->password, "%s", password);
	j->rd.work = read_work;
	j->rd.done = read_done;
	a->jobs++;
	if (store_reader_submit(a->rd, &j->rd) != STORE_OK) {
		reply_err(c, rq, "INTERNAL", "the accounts could not be read");
		job_free(j);
		return NULL;
	}
	conn_hold(c->conn);
	return j;
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
	job_start(a, c, rq, AUTH_REGISTER, name, password);
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
	const char *name = rq->argv[0], *password = rq->argv[1];
	/* an invalid name or password is checked all the same (found stays 0: no account) */
	job_start(a, c, rq, AUTH_LOGIN, store_name_valid(name) ? name : "",
	          store_password_valid(password) ? password : "");
}

void accounts_login_guest(struct accounts *a, struct client *c, const struct proto_req *rq)
{
	job_start(a, c, rq, AUTH_GUEST, rq->argv[0], NULL);
}
