/*
 * accounts.c - accounts on the running server (see accounts.h). Every
 * request is one job that goes through up to three steps, each off the loop,
 * while the connection's further input waits:
 *   1. the store, on a reader thread: is the name an account, its hash;
 *   2. Argon2id on a libuv worker: hashing a new password, or checking one;
 *   3. a new account through the journal's writer, answered once durable.
 * A second login of an account takes the seat over from the first
 * connection; a login is counted against its limits when it starts (before
 * step 1) and taken back when it succeeds.
 */
#include "server/records/accounts.h"

#include <ctype.h>
#include <inttypes.h>
#include <sodium.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/net/addrcount.h"
#include "server/play/identity.h"

enum auth_kind { AUTH_REGISTER, AUTH_LOGIN, AUTH_GUEST, AUTH_PREFS };

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
	/* a login's: the account's preferences (step 1); a register's: bot; a set's: what
	   is written, and which setting the reply names */
	struct store_prefs prefs;
	const char *setting;
	int result; /* step 2 */
	/* a login's counts (login_attempt): under these keys, at this time */
	int64_t at;
	bool acct_counted;
	char pair[RATELIMIT_ADDR_MAX + 1], acct[PROTO_NAME_MAX + 1];
};

static void on_account(void *ud, const struct store_rec *r);
static void guest_refused(void *ud, struct client *c, const char *name);

/* A limiter of n per window_ms (n: 0 the default, < 0 none: NULL); *ok false when out of memory. */
static struct ratelimit *limiter(int n, int dflt, int64_t window_ms, bool *ok)
{
	if (n < 0)
		return NULL;
	struct ratelimit *rl =
	        ratelimit_new((unsigned)(n > 0 ? n : dflt), window_ms, RATELIMIT_MAX_ENTRIES);
	*ok &= rl != NULL;
	return rl;
}

int accounts_init(struct accounts *a, struct store_reader *rd, struct journal *jn, struct lobby *l,
                  struct conn_hub *hub, bool fast_hash, const struct accounts_limits *lim)
{
	static const struct accounts_limits defaults;
	memset(a, 0, sizeof *a);
	a->rd = rd;
	a->journal = jn;
	a->lobby = l;
	a->hub = hub;
	a->opslimit = fast_hash ? crypto_pwhash_OPSLIMIT_MIN : crypto_pwhash_OPSLIMIT_INTERACTIVE;
	a->memlimit = fast_hash ? crypto_pwhash_MEMLIMIT_MIN : crypto_pwhash_MEMLIMIT_INTERACTIVE;
	lim = lim != NULL ? lim : &defaults;
	bool ok = true;
	a->rl_pair =
	        limiter(lim->login_pair, ACCOUNTS_LOGIN_PAIR_DEFAULT, ACCOUNTS_LOGIN_PAIR_MS, &ok);
	a->rl_addr =
	        limiter(lim->login_addr, ACCOUNTS_LOGIN_ADDR_DEFAULT, ACCOUNTS_LOGIN_ADDR_MS, &ok);
	a->rl_acct =
	        limiter(lim->login_acct, ACCOUNTS_LOGIN_ACCT_DEFAULT, ACCOUNTS_LOGIN_ACCT_MS, &ok);
	a->known = limiter(a->rl_acct != NULL ? 1 : -1, 1, ACCOUNTS_KNOWN_MS, &ok);
	a->rl_reg =
	        limiter(lim->register_addr, ACCOUNTS_REGISTER_DEFAULT, ACCOUNTS_REGISTER_MS, &ok);
	/* a hash of a random password: unknown names are checked against it */
	unsigned char rnd[24];
	char pw[2 * sizeof rnd + 1];
	randombytes_buf(rnd, sizeof rnd);
	sodium_bin2hex(pw, sizeof pw, rnd, sizeof rnd);
	int r = !ok ? STORE_ENOMEM
	            : store_password_hash(pw, a->opslimit, a->memlimit, a->dummy_hash);
	sodium_memzero(pw, sizeof pw);
	if (r < 0) {
		log_error("accounts cannot start err=%s", LOG_Q(store_strerror(r)));
		accounts_close(a);
		return r;
	}
	jn->on_account = on_account;
	jn->acct_ud = a;
	l->login_failed = guest_refused;
	l->login_failed_ud = a;
	return 0;
}

void accounts_close(struct accounts *a)
{
	if (a->journal != NULL && a->journal->acct_ud == a) {
		a->journal->on_account = NULL;
		a->journal->acct_ud = NULL;
	}
	if (a->lobby != NULL && a->lobby->login_failed_ud == a) {
		a->lobby->login_failed = NULL;
		a->lobby->login_failed_ud = NULL;
	}
	struct ratelimit **all[] = {&a->rl_pair, &a->rl_addr, &a->rl_acct, &a->known, &a->rl_reg};
	for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
		ratelimit_free(*all[i]);
		*all[i] = NULL;
	}
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
	reply_err(c, &j->rq, ERR_INTERNAL, "%s", sentence);
	job_done(j, c);
}

/* Step 1, on a reader thread. */
static void read_work(struct store *db, struct store_read *rd)
{
	struct auth_job *j = (struct auth_job *)rd;
	if (j->kind == AUTH_LOGIN && !store_name_valid(j->name)) {
		j->found = 0; /* a guest's name, or nobody's */
	} else if (j->kind == AUTH_LOGIN) {
		char canon[STORE_NAME_MAX + 1];
		int r = store_account_hash(db, j->name, canon, j->hash);
		if (r == STORE_OK)
			r = store_prefs_get(db, canon, &j->prefs);
		j->found = r == STORE_OK ? 1 : r == STORE_ENOTFOUND ? 0 : r;
		if (j->found == 1)
			snprintf(j->name, sizeof j->name, "%s", canon);
	} else {
		j->found = store_name_valid(j->name) ? store_account_exists(db, j->name, NULL) : 0;
	}
}

static void hash_next(struct auth_job *j, struct client *c);

/* Step 1b of a register in a cluster: whether a guest on another node holds the name. */
static void name_checked(void *arg, int verdict)
{
	struct auth_job *j = arg;
	struct client *c = job_client(j);
	if (c == NULL)
		return;
	if (verdict > 0) {
		reply_err(c, &j->rq, ERR_NAME_TAKEN,
		          "%s is a guest's on another node (connected, or with seats in games not "
		          "yet ended)",
		          j->name);
		job_done(j, c);
	} else if (verdict < 0) {
		reply_err(c, &j->rq, ERR_CLUSTER_DOWN,
		          "the cluster's bus (Redis) cannot be reached, so the other nodes' guests "
		          "cannot be asked for the name; try again shortly");
		job_done(j, c);
	} else {
		hash_next(j, c);
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

/* ---- limits ------------------------------------------------------------------------- */

/* A refusal by a limit: code, the sentence, when to try again (retry_s, retry_after_ms). */
static void throttled(struct client *c, const struct proto_req *rq, enum err_code code,
                      int64_t retry_ms, const char *why)
{
	int64_t secs = (retry_ms + 999) / 1000;
	cJSON *j = cJSON_CreateObject();
	cJSON_AddStringToObject(j, "type", "error");
	cJSON_AddStringToObject(j, "code", err_name(code));
	char *t = xasprintf("%s; try again in %" PRId64 " s", why, secs);
	cJSON_AddStringToObject(j, "message", t ? t : "");
	cJSON_AddNumberToObject(j, "retry_s", (double)secs);
	cJSON_AddNumberToObject(j, "retry_after_ms", (double)retry_ms);
	cJSON_AddStringToObject(j, "cmd", rq->cmd->name);
	if (rq->tagged)
		cJSON_AddStringToObject(j, "id", rq->tag);
	send_msg(c, j,
	         xasprintf("%s%s%serror %s: %s", rq->tagged ? "#" : "", rq->tagged ? rq->tag : "",
	                   rq->tagged ? " " : "", err_name(code), t ? t : ""));
	free(t);
}

/* Throttled under key (a NULL limiter never is)? *retry_ms then says how long. */
static bool limited(struct ratelimit *rl, const char *key, int64_t now, int64_t *retry_ms)
{
	return rl != NULL && ratelimit_check(rl, key, now, retry_ms) == RATELIMIT_THROTTLED;
}

static void count(struct ratelimit *rl, const char *key, int64_t now)
{
	if (rl != NULL)
		ratelimit_fail(rl, key, now);
}

static void uncount(struct ratelimit *rl, const char *key, int64_t at)
{
	if (rl != NULL)
		ratelimit_undo(rl, key, at);
}

/*
 * The address limits count c's address as --max-per-address does
 * (addrcount.h): an IPv4 address as itself, an IPv6 address by its /64.
 */
static const char *addr_of(const struct client *c, char out[2 * ADDR_KEY_LEN + 1])
{
	sodium_bin2hex(out, 2 * ADDR_KEY_LEN + 1, c->conn->addr.b, ADDR_KEY_LEN);
	return out;
}

/* name has logged in (or registered) from peer now: an account's limit does not close it there
   for ACCOUNTS_KNOWN_MS (a limiter of one entry a key: the newest time is kept). */
static void known_add(struct accounts *a, const char *pair, int64_t now)
{
	if (a->known != NULL)
		ratelimit_fail(a->known, pair, now);
}

/* name logged in from that address lately (the pair key of pair_key()). */
static bool known_at(struct accounts *a, const char *pair, int64_t now)
{
	return a->known != NULL && ratelimit_count(a->known, pair, now) > 0;
}

/* The "name\naddress" key of a login (the name in lower case: names are case-insensitive). */
static void pair_key(struct auth_job *j, const char *peer)
{
	size_t i = 0;
	for (; j->name[i] != '\0' && i < PROTO_NAME_MAX; i++)
		j->acct[i] = (char)tolower((unsigned char)j->name[i]);
	j->acct[i] = '\0';
	snprintf(j->pair, sizeof j->pair, "%s\n%s", j->acct, peer);
}

/* Counts a failed login of j from peer at now (its account too unless known there). */
static void count_failure(struct accounts *a, struct auth_job *j, const char *peer, int64_t now,
                          bool known)
{
	j->at = now;
	count(a->rl_addr, peer, now);
	count(a->rl_pair, j->pair, now);
	j->acct_counted = !known;
	if (j->acct_counted)
		count(a->rl_acct, j->acct, now);
}

/*
 * A login of name from c's address starts: refused (answered, false) when a
 * limit is reached, else counted as a failure at once (taken back by
 * login_succeeded), so that attempts under way together count together.
 */
static bool login_attempt(struct accounts *a, struct client *c, const struct proto_req *rq,
                          struct auth_job *j)
{
	char abuf[2 * ADDR_KEY_LEN + 1];
	const char *peer = addr_of(c, abuf);
	int64_t now = (int64_t)uv_now(a->hub->loop), retry = 0;
	pair_key(j, peer);
	bool known = known_at(a, j->pair, now);
	char why[160];
	if (limited(a->rl_addr, peer, now, &retry))
		snprintf(why, sizeof why, "too many failed logins from your address");
	else if (limited(a->rl_pair, j->pair, now, &retry))
		snprintf(why, sizeof why, "too many failed logins of %s from your address",
		         j->acct);
	else if (!known && limited(a->rl_acct, j->acct, now, &retry))
		snprintf(why, sizeof why,
		         "too many failed logins of %s from new addresses (it still opens from "
		         "an address it logged in from)",
		         j->acct);
	else
		why[0] = '\0';
	if (why[0] != '\0') {
		throttled(c, rq, ERR_LOGIN_THROTTLED, retry, why);
		return false;
	}
	count_failure(a, j, peer, now, known);
	return true;
}

/*
 * A guest login with a token that the cluster checks on the other nodes (hooks.guest) after
 * read_done let it go on: its counts are taken back meanwhile (its address is not made known
 * to the name), and counted again if the cluster refuses it (guest_refused).
 */
static void login_pending(struct accounts *a, struct client *c, struct auth_job *j)
{
	char abuf[2 * ADDR_KEY_LEN + 1];
	uncount(a->rl_addr, addr_of(c, abuf), j->at);
	uncount(a->rl_pair, j->pair, j->at);
	if (j->acct_counted)
		uncount(a->rl_acct, j->acct, j->at);
}

/* The cluster refused c's guest login of name (a wrong token): a failed login, counted now. */
static void guest_refused(void *ud, struct client *c, const char *name)
{
	struct accounts *a = ud;
	struct auth_job j = {.a = a};
	char abuf[2 * ADDR_KEY_LEN + 1];
	const char *peer = addr_of(c, abuf);
	int64_t now = (int64_t)uv_now(a->hub->loop);
	snprintf(j.name, sizeof j.name, "%s", name);
	pair_key(&j, peer);
	count_failure(a, &j, peer, now, known_at(a, j.pair, now));
}

/* The login of j succeeded: its counts are taken back, and its address is known to the account. */
static void login_succeeded(struct accounts *a, struct client *c, struct auth_job *j)
{
	char abuf[2 * ADDR_KEY_LEN + 1];
	uncount(a->rl_addr, addr_of(c, abuf), j->at);
	if (a->rl_pair != NULL)
		ratelimit_success(a->rl_pair, j->pair);
	if (j->acct_counted)
		uncount(a->rl_acct, j->acct, j->at);
	known_add(a, j->pair, j->at);
}

/* ---- the job's steps, on the loop ------------------------------------------------------ */

/* Step 1 is back, on the loop. */
static void read_done(struct store_read *rd)
{
	struct auth_job *j = (struct auth_job *)rd;
	struct accounts *a = j->a;
	struct client *c = job_client(j);
	if (c == NULL)
		return;
	const struct proto_req *rq = &j->rq;
	if (j->found < 0) {
		journal_log_failure(rq->verb, j->found, "reading the accounts");
		job_fail(j, c, "the accounts could not be read");
		return;
	}
	int64_t retry = 0;
	char abuf[2 * ADDR_KEY_LEN + 1];
	switch (j->kind) {
	case AUTH_REGISTER:
		if (j->found == 1 || identity_guest_holds(a->lobby, j->name, c, NULL)) {
			reply_err(c, rq, ERR_NAME_TAKEN, "%s is %s", j->name,
			          j->found == 1
			                  ? "registered already"
			                  : "a guest's (connected, or with seats in games not "
			                    "yet ended)");
			job_done(j, c);
		} else if (a->rl_reg != NULL && ratelimit_attempt(a->rl_reg, addr_of(c, abuf),
		                                                  (int64_t)uv_now(a->hub->loop),
		                                                  &retry) == RATELIMIT_THROTTLED) {
			throttled(c, rq, ERR_REGISTER_THROTTLED, retry,
			          "too many accounts registered from your address");
			job_done(j, c);
		} else if (a->lobby->hooks.name_held == NULL ||
		           !a->lobby->hooks.name_held(a->lobby->hooks.ud, c, j->name, name_checked,
		                                      j)) {
			hash_next(j, c);
		} /* else the cluster asks the other nodes: name_checked */
		break;
	case AUTH_LOGIN:
		if (j->found == 0 && (identity_guest_holds(a->lobby, j->name, NULL, NULL) ||
		                      a->lobby->hooks.guest != NULL)) {
			/* a guest's name: the password is its token (no hash: names are public). In
			   a cluster the name may be a guest's on another node: the cluster checks
			   the token against that node's seats (identity_guest_login) and answers
			   later: the attempt is taken back meanwhile, counted again if refused */
			bool on = identity_guest_login(a->lobby, c, rq, j->name, j->password);
			if (on && c->logged_in)
				login_succeeded(a, c, j);
			else if (on) /* the cluster answers */
				login_pending(a, c, j);
			job_done(j, c);
			break;
		}
		if (j->found == 0) /* the same work as for a real account: no timing tells names */
			snprintf(j->hash, sizeof j->hash, "%s", a->dummy_hash);
		hash_next(j, c);
		break;
	case AUTH_GUEST:
		if (j->found == 1 && !c->json && c->fe == NULL && rq->cmd != NULL)
			msg_ask_password(
			        c, rq->cmd->name, j->name,
			        "%s is a registered account; type its password on the next "
			        "line:",
			        j->name);
		else if (j->found == 1)
			reply_err(c, rq, ERR_NAME_REGISTERED,
			          "%s is a registered account: login %s <password>", j->name,
			          j->name);
		else
			identity_guest_login(a->lobby, c, rq, j->name, NULL);
		job_done(j, c);
		break;
	case AUTH_PREFS: /* written through the journal, never read */
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
			r = journal_add_account(a->journal, j->name, j->hash, j->prefs.bot,
			                        j); /* step 3 */
		if (r < 0)
			job_fail(j, c, "the account could not be stored");
	} else if (j->result == 0) {
		login_succeeded(a, c, j);
		identity_take_over(a->lobby, c, j->name);
		c->prefs = j->prefs;
		lobby_login(a->lobby, c, rq, j->name, true);
		job_done(j, c);
	} else { /* counted when it started */
		identity_refuse_login(c, rq);
		job_done(j, c);
	}
}

static void prefs_done(struct auth_job *j, struct client *c, int err);

/* Step 3 is back: the account is stored (or the name was taken meanwhile, or it failed). */
static void on_account(void *ud, const struct store_rec *r)
{
	(void)ud;
	struct auth_job *j = r->ud;
	struct client *c = job_client(j);
	if (c == NULL)
		return;
	const struct proto_req *rq = &j->rq;
	if (j->kind == AUTH_PREFS) {
		prefs_done(j, c, r->err);
		return;
	}
	if (r->err == STORE_EEXISTS) {
		reply_err(c, rq, ERR_NAME_TAKEN, "%s is registered already", j->name);
	} else if (r->err < 0) {
		reply_err(c, rq, ERR_INTERNAL, "the account could not be stored");
	} else if (c->logged_in) {
		cJSON *f = cJSON_CreateObject();
		cJSON_AddStringToObject(f, "name", j->name);
		log_info("account registered user=%s", j->name);
		reply_ok(c, rq, f, NULL, "registered %s; log in with it: login %s <password>",
		         j->name, j->name);
	} else {
		log_info("account registered user=%s", j->name);
		char abuf[2 * ADDR_KEY_LEN + 1];
		pair_key(j, addr_of(c, abuf));
		known_add(j->a, j->pair, (int64_t)uv_now(j->a->hub->loop));
		c->prefs = j->prefs;
		lobby_login(j->a->lobby, c, rq, j->name, true);
	}
	job_done(j, c);
}

/* A job for rq, not started; NULL (answered) on failure. */
static struct auth_job *job_new(struct accounts *a, struct client *c, const struct proto_req *rq,
                                enum auth_kind kind, const char *name, const char *password)
{
	struct auth_job *j = calloc(1, sizeof *j);
	if (j == NULL) {
		reply_oom(c, rq);
		return NULL;
	}
	a->jobs++;
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
	return j;
}

/* j's step 1 queued and c's input held (or answered and freed on failure). */
static void job_submit(struct auth_job *j, struct client *c)
{
	if (store_reader_submit(j->a->rd, &j->rd) != STORE_OK) {
		reply_err(c, &j->rq, ERR_INTERNAL, "the accounts could not be read");
		job_free(j);
		return;
	}
	conn_hold(c->conn);
}

static void job_start(struct accounts *a, struct client *c, const struct proto_req *rq,
                      enum auth_kind kind, const char *name, const char *password)
{
	struct auth_job *j = job_new(a, c, rq, kind, name, password);
	if (j != NULL)
		job_submit(j, c);
}

/* register <name> <password> bot: the password's last word "bot" (after a space) is the flag;
 *len is the password's length without it. */
static bool bot_flag(const char *password, size_t *len)
{
	size_t n = strlen(password);
	*len = n;
	if (n < 5 || strcasecmp(password + n - 4, " bot") != 0)
		return false;
	for (n -= 4; n > 0 && password[n - 1] == ' '; n--)
		;
	*len = n;
	return n > 0;
}

void accounts_register(struct accounts *a, struct client *c, const struct proto_req *rq)
{
	const char *name = rq->argv[0];
	size_t len;
	bool bot = bot_flag(rq->argv[1], &len);
	if (!store_name_valid(name)) {
		reply_err(c, rq, ERR_BAD_NAME,
		          "account names are %d to %d characters of A-Z a-z 0-9 _", STORE_NAME_MIN,
		          STORE_NAME_MAX);
		return;
	}
	if (proto_name_house(name)) {
		reply_err(c, rq, ERR_NAME_TAKEN, "%s is the name of one of the server's own bots",
		          name);
		return;
	}
	if (len < STORE_PASS_MIN || len > STORE_PASS_MAX) {
		reply_err(c, rq, ERR_BAD_PASSWORD, "passwords are %d to %d bytes", STORE_PASS_MIN,
		          STORE_PASS_MAX);
		return;
	}
	char password[STORE_PASS_MAX + 1];
	snprintf(password, sizeof password, "%.*s", (int)len, rq->argv[1]);
	struct auth_job *j = job_new(a, c, rq, AUTH_REGISTER, name, password);
	sodium_memzero(password, sizeof password);
	if (j == NULL)
		return;
	j->prefs.bot = bot;
	job_submit(j, c);
}

void accounts_login(struct accounts *a, struct client *c, const struct proto_req *rq)
{
	const char *name = rq->argv[0], *password = rq->argv[1];
	/* an invalid password is checked all the same (found stays 0 for a name that cannot be
	   an account's) */
	struct auth_job *j =
	        job_new(a, c, rq, AUTH_LOGIN, name, store_password_valid(password) ? password : "");
	if (j != NULL && login_attempt(a, c, rq, j))
		job_submit(j, c);
	else if (j != NULL)
		job_free(j);
}

void accounts_login_guest(struct accounts *a, struct client *c, const struct proto_req *rq)
{
	job_start(a, c, rq, AUTH_GUEST, rq->argv[0], NULL);
}

/* ---- preferences: set bot, set bots, set accept --------------------------------------- */

static void prefs_reply(struct client *c, const struct proto_req *rq, const char *setting)
{
	const struct store_prefs *p = &c->prefs;
	cJSON *f = cJSON_CreateObject();
	cJSON_AddBoolToObject(f, "bot", p->bot);
	cJSON_AddStringToObject(f, "bots", p->bots_off ? "off" : "on");
	cJSON_AddStringToObject(f, "accept", p->accept);
	if (strcmp(setting, "bot") == 0)
		reply_ok(c, rq, f, NULL, "%s",
		         p->bot ? "you are a bot: shown as such to everyone" : "you are not a bot");
	else if (strcmp(setting, "bots") == 0)
		reply_ok(c, rq, f, NULL, "%s",
		         p->bots_off
		                 ? "bots off: you do not see bots' seeks, they do not see yours, "
		                   "and games with bots are refused"
		                 : "bots on: you may meet bots");
	else if (p->accept[0] != '\0')
		reply_ok(c, rq, f, NULL, "you accept: %s", p->accept);
	else
		reply_ok(c, rq, f, NULL, "you accept every game");
}

/* BOT_HAS_PLAYED: c's account has played, so its bot flag stays. */
static void refuse_bot_change(struct client *c, const struct proto_req *rq)
{
	c->prefs.played = true;
	reply_err(c, rq, ERR_BOT_HAS_PLAYED,
	          "%s has played games as %s; an account stays what it played as (register "
	          "another one for a bot)",
	          c->name, c->prefs.bot ? "a bot" : "a human");
}

/* The write of j's preferences is back (err from the store). */
static void prefs_done(struct auth_job *j, struct client *c, int err)
{
	const struct proto_req *rq = &j->rq;
	if (err == STORE_ESTATE) {
		refuse_bot_change(c, rq);
	} else if (err < 0) {
		reply_err(c, rq, ERR_INTERNAL, "it could not be stored (%s); nothing changed",
		          store_strerror(err));
	} else if (!c->logged_in || strcasecmp(c->name, j->name) != 0) {
		reply_err(c, rq, ERR_NOT_LOGGED_IN,
		          "you logged out meanwhile; nothing changed here");
	} else {
		bool played = c->prefs.played;
		c->prefs = j->prefs;
		c->prefs.played = played;
		log_info("preferences user=%s bot=%d bots_off=%d accept=%s", c->name,
		         (int)c->prefs.bot, (int)c->prefs.bots_off, LOG_Q(c->prefs.accept));
		prefs_reply(c, rq, j->setting);
	}
	job_done(j, c);
}

void accounts_set_prefs(struct accounts *a, struct client *c, const struct proto_req *rq,
                        const struct store_prefs *want, const char *setting)
{
	if (want->bot != c->prefs.bot && !c->registered) {
		reply_err(c, rq, ERR_NOT_LOGGED_IN,
		          "a bot is an account: register one (register <name> <password> bot)");
		return;
	}
	if (want->bot != c->prefs.bot && c->prefs.played) {
		refuse_bot_change(c, rq);
		return;
	}
	if (!c->registered || a == NULL) { /* a guest's: this connection's, in memory */
		bool bot = c->prefs.bot, played = c->prefs.played;
		c->prefs = *want;
		c->prefs.bot = bot;
		c->prefs.played = played;
		prefs_reply(c, rq, setting);
		return;
	}
	struct auth_job *j = job_new(a, c, rq, AUTH_PREFS, c->name, NULL);
	if (j == NULL)
		return;
	j->prefs = *want;
	j->setting = setting;
	const char *why = "queued";
	int r = journal_failing(a->journal, &why) ? a->journal->fail_err
	                                          : journal_add_prefs(a->journal, c->name, want, j);
	if (r < 0) {
		journal_log_failure(rq->verb, r, why);
		reply_err(c, rq, ERR_INTERNAL,
		          "your preferences could not be stored; nothing changed");
		job_free(j);
		return;
	}
	conn_hold(c->conn); /* released by prefs_done */
}
