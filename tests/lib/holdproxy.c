/*
 * holdproxy.c - the holding TCP proxy of the tests (holdproxy.h): one thread, blocking writes
 * (a test's traffic is small), poll() over the listener, a wake pipe and every connection's
 * two sockets. The held bytes of a connection are its own buffer, owned by the proxy.
 */
#include "holdproxy.h"

#include <arpa/inet.h>
#include <check.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

struct conn_pair {
	int c, s;   /* the client's socket, the server's */
	char *held; /* what the client sent while held (malloc'd) */
	size_t nheld, cap;
	bool c_eof; /* the client closed: closed on our side once its bytes went */
};

struct holdproxy {
	int lfd, target, wake[2];
	pthread_t th;
	pthread_mutex_t mu;
	bool hold, stop; /* under mu */
	struct conn_pair pp[HOLDPROXY_CONNS];
	int n;
};

static void write_all(int fd, const char *b, size_t n)
{
	while (n > 0) {
		ssize_t w = send(fd, b, n, MSG_NOSIGNAL);
		if (w <= 0)
			return; /* the peer is gone: what it would have got does not matter */
		b += w;
		n -= (size_t)w;
	}
}

static void pair_close(struct holdproxy *p, int i)
{
	close(p->pp[i].c);
	close(p->pp[i].s);
	free(p->pp[i].held);
	p->pp[i] = p->pp[--p->n];
}

static void keep(struct conn_pair *cp, const char *b, size_t n)
{
	if (cp->nheld + n > cp->cap) {
		size_t cap = (cp->nheld + n) * 2;
		char *h = realloc(cp->held, cap);
		if (h == NULL)
			abort();
		cp->held = h;
		cp->cap = cap;
	}
	memcpy(cp->held + cp->nheld, b, n);
	cp->nheld += n;
}

static void accept_one(struct holdproxy *p)
{
	int c = accept(p->lfd, NULL, NULL);
	if (c < 0)
		return;
	int s = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)p->target)};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	if (p->n == HOLDPROXY_CONNS || s < 0 || connect(s, (struct sockaddr *)&a, sizeof a) != 0) {
		close(c);
		if (s >= 0)
			close(s);
		return;
	}
	p->pp[p->n++] = (struct conn_pair){.c = c, .s = s};
}

static void *run(void *arg)
{
	struct holdproxy *p = arg;
	char buf[65536];
	for (;;) {
		pthread_mutex_lock(&p->mu);
		bool hold = p->hold, stop = p->stop;
		pthread_mutex_unlock(&p->mu);
		if (stop)
			return NULL;
		for (int i = p->n - 1; i >= 0 && !hold; i--) { /* released: what waited goes */
			write_all(p->pp[i].s, p->pp[i].held, p->pp[i].nheld);
			p->pp[i].nheld = 0;
			if (p->pp[i].c_eof)
				pair_close(p, i);
		}
		struct pollfd fds[2 + 2 * HOLDPROXY_CONNS];
		fds[0] = (struct pollfd){.fd = p->wake[0], .events = POLLIN};
		fds[1] = (struct pollfd){.fd = p->lfd, .events = POLLIN};
		int n = p->n;
		for (int i = 0; i < n; i++) {
			fds[2 + 2 * i] = (struct pollfd){.fd = p->pp[i].c_eof ? -1 : p->pp[i].c,
			                                 .events = POLLIN};
			fds[3 + 2 * i] = (struct pollfd){.fd = p->pp[i].s, .events = POLLIN};
		}
		if (poll(fds, (nfds_t)(2 + 2 * n), -1) < 0)
			continue;
		pthread_mutex_lock(&p->mu); /* a hold set while we waited counts for what came */
		hold = p->hold;
		pthread_mutex_unlock(&p->mu);
		if (fds[0].revents)
			(void)read(p->wake[0], buf, sizeof buf);
		for (int i = n - 1; i >= 0;
		     i--) { /* from the end: a closed pair takes the last's place */
			struct conn_pair *cp = &p->pp[i];
			if (fds[3 + 2 * i].revents) {
				ssize_t r = read(cp->s, buf, sizeof buf);
				if (r <= 0) {
					pair_close(p, i);
					continue;
				}
				write_all(cp->c, buf, (size_t)r);
			}
			if (fds[2 + 2 * i].revents) {
				ssize_t r = read(cp->c, buf, sizeof buf);
				if (r <= 0 && !hold && cp->nheld == 0)
					pair_close(p, i);
				else if (r <= 0)
					cp->c_eof = true;
				else if (hold || cp->nheld > 0)
					keep(cp, buf, (size_t)r);
				else
					write_all(cp->s, buf, (size_t)r);
			}
		}
		if (fds[1].revents)
			accept_one(p);
	}
}

struct holdproxy *holdproxy_start(int target_port, int *port)
{
	struct holdproxy *p = calloc(1, sizeof *p);
	ck_assert_ptr_nonnull(p);
	p->target = target_port;
	ck_assert_int_eq(pipe(p->wake), 0);
	pthread_mutex_init(&p->mu, NULL);
	p->lfd = socket(AF_INET, SOCK_STREAM, 0);
	ck_assert_int_ge(p->lfd, 0);
	struct sockaddr_in a = {.sin_family = AF_INET};
	a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
	socklen_t len = sizeof a;
	ck_assert_int_eq(bind(p->lfd, (struct sockaddr *)&a, sizeof a), 0);
	ck_assert_int_eq(listen(p->lfd, 16), 0);
	ck_assert_int_eq(getsockname(p->lfd, (struct sockaddr *)&a, &len), 0);
	*port = ntohs(a.sin_port);
	ck_assert_int_eq(pthread_create(&p->th, NULL, run, p), 0);
	return p;
}

static void set(struct holdproxy *p, bool *what, bool v)
{
	pthread_mutex_lock(&p->mu);
	*what = v;
	pthread_mutex_unlock(&p->mu);
	ck_assert_int_eq(write(p->wake[1], "w", 1), 1);
}

void holdproxy_hold(struct holdproxy *p, bool hold)
{
	set(p, &p->hold, hold);
}

void holdproxy_stop(struct holdproxy *p)
{
	set(p, &p->stop, true);
	pthread_join(p->th, NULL);
	while (p->n > 0)
		pair_close(p, p->n - 1);
	close(p->lfd);
	close(p->wake[0]);
	close(p->wake[1]);
	pthread_mutex_destroy(&p->mu);
	free(p);
}
