/*
 * net.c - the blocking line client of net.h: getaddrinfo + connect with a
 * deadline, buffered line reads with poll() timeouts and an overlong-line
 * limit, and complete writes that cannot raise SIGPIPE.
 */
#include "lib/net.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

const char *net_strerror(int err)
{
	switch (err) {
	case NET_OK:
		return "ok";
	case NET_ETIMEOUT:
		return "timed out";
	case NET_ECLOSED:
		return "connection closed by peer";
	case NET_EIO:
		return "input/output error";
	case NET_ETOOLONG:
		return "line too long";
	case NET_EADDR:
		return "bad or unknown address";
	case NET_ECONNECT:
		return "cannot connect";
	case NET_ENOMEM:
		return "out of memory";
	case NET_EINVAL:
		return "invalid argument";
	default:
		return "unknown error";
	}
}

long long net_now_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Milliseconds left until deadline (-1: none) as a poll() timeout. */
static int time_left(long long deadline)
{
	if (deadline < 0)
		return -1;
	long long left = deadline - net_now_ms();
	return left <= 0 ? 0 : left > 3600000 ? 3600000 : (int)left;
}

static long long deadline_after(int timeout_ms)
{
	return timeout_ms < 0 ? -1 : net_now_ms() + timeout_ms;
}

/* poll() one fd for events until deadline; 1 ready, 0 timed out, < 0 error. */
static int wait_fd(int fd, short events, long long deadline)
{
	for (;;) {
		struct pollfd p = {.fd = fd, .events = events};
		int r = poll(&p, 1, time_left(deadline));
		if (r < 0 && errno == EINTR)
			continue;
		return r;
	}
}

__attribute__((format(printf, 3, 4))) static void set_err(char *err, size_t errlen, const char *fmt,
                                                          ...)
{
	va_list ap;
	va_start(ap, fmt);
	if (err != NULL && errlen > 0)
		vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

static int init_conn(struct net_conn *c, int fd, size_t max_line)
{
	memset(c, 0, sizeof *c);
	c->fd = -1;
	c->max_line = max_line ? max_line : NET_DEFAULT_MAX_LINE;
	c->cap = c->max_line + 2; /* room for the longest line plus CR LF */
	c->write_timeout_ms = 10000;
	c->buf = malloc(c->cap + 1); /* + 1 for the NUL after an unterminated last line */
	if (c->buf == NULL)
		return NET_ENOMEM;
	int type;
	socklen_t tl = sizeof type;
	c->is_socket = getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &tl) == 0;
	c->fd = fd;
	return NET_OK;
}

int net_open_fd(struct net_conn *c, int fd, size_t max_line)
{
	int r = init_conn(c, fd, max_line);
	if (r < 0)
		close(fd);
	return r;
}

void net_close(struct net_conn *c)
{
	if (c->fd >= 0)
		close(c->fd);
	c->fd = -1;
	free(c->buf);
	c->buf = NULL;
	c->cap = c->start = c->end = 0;
}

/* Splits "host:port", "[v6]:port", "host", ":port" or a bare IPv6 address. */
static int split_hostport(const char *hp, char *host, size_t hlen, char *port, size_t plen)
{
	const char *h = hp, *p = NULL;
	size_t n;
	if (hp[0] == '[') {
		const char *close = strchr(hp, ']');
		if (close == NULL || (close[1] != '\0' && close[1] != ':'))
			return NET_EADDR;
		h = hp + 1;
		n = (size_t)(close - h);
		p = close[1] == ':' ? close + 2 : NULL;
	} else {
		const char *colon = strrchr(hp, ':');
		if (colon != NULL && strchr(hp, ':') == colon) {
			n = (size_t)(colon - hp);
			p = colon + 1;
		} else {
			n = strlen(hp); /* no colon, or a bare IPv6 address */
		}
	}
	if (n >= hlen || (p != NULL && (*p == '\0' || strlen(p) >= plen)))
		return NET_EADDR;
	memcpy(host, h, n);
	host[n] = '\0';
	snprintf(port, plen, "%s", p ? p : PROTO_DEFAULT_PORT);
	return NET_OK;
}

/* Non-blocking connect to one address, waiting until deadline. Returns fd or -1 (errno). */
static int connect_one(const struct addrinfo *ai, long long deadline)
{
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC, ai->ai_protocol);
	if (fd < 0)
		return -1;
	int flags = fcntl(fd, F_GETFL);
	if (flags < 0 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
		goto fail;
	if (connect(fd, ai->ai_addr, ai->ai_addrlen) < 0) {
		if (errno != EINPROGRESS)
			goto fail;
		int r = wait_fd(fd, POLLOUT, deadline);
		if (r <= 0) {
			if (r == 0)
				errno = ETIMEDOUT;
			goto fail;
		}
		int soerr = 0;
		socklen_t sl = sizeof soerr;
		if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &sl) < 0)
			goto fail;
		if (soerr != 0) {
			errno = soerr;
			goto fail;
		}
	}
	if (fcntl(fd, F_SETFL, flags) < 0)
		goto fail;
	int one = 1; /* a line protocol: send each line at once */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	return fd;
fail:;
	int e = errno;
	close(fd);
	errno = e;
	return -1;
}

int net_connect(struct net_conn *c, const char *hostport, size_t max_line, int timeout_ms,
                char *err, size_t errlen)
{
	char host[256], port[32];
	memset(c, 0, sizeof *c);
	c->fd = -1;
	if (hostport == NULL ||
	    split_hostport(hostport, host, sizeof host, port, sizeof port) < 0) {
		set_err(err, errlen, "bad address '%s' (use HOST:PORT or [IPv6]:PORT)",
		        hostport ? hostport : "");
		return NET_EADDR;
	}
	struct addrinfo hints = {.ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM}, *res = NULL;
	int g = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (g != 0) {
		set_err(err, errlen, "cannot resolve '%s': %s", hostport, gai_strerror(g));
		return NET_EADDR;
	}
	long long deadline = deadline_after(timeout_ms);
	int fd = -1, e = 0;
	for (const struct addrinfo *ai = res; ai != NULL && fd < 0; ai = ai->ai_next) {
		fd = connect_one(ai, deadline);
		if (fd < 0)
			e = errno;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		c->err_no = e;
		set_err(err, errlen, "cannot connect to %s: %s", hostport, strerror(e));
		return NET_ECONNECT;
	}
	int r = net_open_fd(c, fd, max_line);
	if (r < 0)
		set_err(err, errlen, "%s", net_strerror(r));
	return r;
}

int net_send_raw(struct net_conn *c, const void *data, size_t len)
{
	const char *p = data;
	long long deadline = deadline_after(c->write_timeout_ms);
	if (c->fd < 0)
		return NET_ECLOSED;
	while (len > 0) {
		ssize_t n = c->is_socket ? send(c->fd, p, len, MSG_NOSIGNAL | MSG_DONTWAIT)
		                         : write(c->fd, p, len);
		if (n > 0) {
			p += n;
			len -= (size_t)n;
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			int r = wait_fd(c->fd, POLLOUT, deadline);
			if (r == 0)
				return NET_ETIMEOUT;
			if (r > 0)
				continue;
		}
		c->err_no = errno;
		return errno == EPIPE || errno == ECONNRESET ? NET_ECLOSED : NET_EIO;
	}
	return NET_OK;
}

int net_send_line(struct net_conn *c, const char *text)
{
	size_t n = strlen(text);
	if (memchr(text, '\n', n) != NULL || memchr(text, '\r', n) != NULL)
		return NET_EINVAL;
	char small[1024];
	char *line = n + 1 <= sizeof small ? small : malloc(n + 1);
	if (line == NULL)
		return NET_ENOMEM;
	memcpy(line, text, n);
	line[n] = '\n';
	int r = net_send_raw(c, line, n + 1); /* one write: the line is never split by us */
	if (line != small)
		free(line);
	return r;
}

int net_vsendf(struct net_conn *c, const char *fmt, va_list ap)
{
	char line[65536];
	int n = vsnprintf(line, sizeof line, fmt, ap);
	if (n < 0 || (size_t)n >= sizeof line)
		return NET_EINVAL;
	return net_send_line(c, line);
}

int net_sendf(struct net_conn *c, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = net_vsendf(c, fmt, ap);
	va_end(ap);
	return r;
}

bool net_buffered(const struct net_conn *c)
{
	return c->buf != NULL && (memchr(c->buf + c->start, '\n', c->end - c->start) != NULL ||
	                          (c->eof && c->end > c->start));
}

/* Reads what the fd has into the buffer: 1 got bytes, 0 timed out, or a negative error. */
static int fill(struct net_conn *c, long long deadline)
{
	if (c->start > 0) {
		memmove(c->buf, c->buf + c->start, c->end - c->start);
		c->end -= c->start;
		c->start = 0;
	}
	for (;;) {
		int r = wait_fd(c->fd, POLLIN, deadline);
		if (r == 0)
			return 0;
		if (r < 0) {
			c->err_no = errno;
			return NET_EIO;
		}
		ssize_t n = read(c->fd, c->buf + c->end, c->cap - c->end);
		if (n > 0) {
			c->end += (size_t)n;
			return 1;
		}
		if (n == 0) {
			c->eof = true;
			return 1;
		}
		if (errno == EINTR || errno == EAGAIN || errno == EWOULDBLOCK)
			continue;
		c->err_no = errno;
		return errno == ECONNRESET ? NET_ECLOSED : NET_EIO;
	}
}

/* Cuts buf[start, end) (end excluded) as the next line; strips a CR before the end. */
static int take_line(struct net_conn *c, size_t end, size_t next, char **line)
{
	size_t len = end - c->start;
	char *s = c->buf + c->start;
	if (len > 0 && s[len - 1] == '\r')
		len--;
	s[len] = '\0';
	c->start = next;
	if (len > c->max_line)
		return NET_ETOOLONG;
	*line = s;
	return (int)len;
}

int net_read_line(struct net_conn *c, int timeout_ms, char **line)
{
	long long deadline = deadline_after(timeout_ms);
	if (c->buf == NULL)
		return NET_ECLOSED;
	for (;;) {
		char *nl = memchr(c->buf + c->start, '\n', c->end - c->start);
		if (nl != NULL) {
			size_t at = (size_t)(nl - c->buf);
			if (c->skipping) { /* the tail of an overlong line, already reported */
				c->skipping = false;
				c->start = at + 1;
				continue;
			}
			return take_line(c, at, at + 1, line);
		}
		if (c->eof) {
			if (c->end > c->start && !c->skipping)
				return take_line(c, c->end, c->end, line);
			c->start = c->end = 0;
			c->skipping = false;
			return NET_ECLOSED;
		}
		if (c->end - c->start >= c->cap) { /* full and no terminator: over the limit */
			c->start = c->end = 0;
			if (!c->skipping) {
				c->skipping = true;
				return NET_ETOOLONG;
			}
		}
		if (c->skipping) {
			c->start = c->end = 0;
		}
		int r = fill(c, deadline);
		if (r == 0)
			return NET_ETIMEOUT;
		if (r < 0)
			return r;
	}
}
