/*
 * client.c - the per-connection object of the layers above the connection,
 * and its one door to the connection (see client.h).
 */
#include "server/client.h"

#include <stdlib.h>

struct client *client_new(struct conn *c)
{
	struct client *cl = calloc(1, sizeof *cl);
	if (cl == NULL)
		return NULL;
	cl->conn = c;
	c->data = cl;
	return cl;
}

void client_free(struct client *cl)
{
	if (cl == NULL)
		return;
	if (cl->conn->data == cl)
		cl->conn->data = NULL;
	free(cl);
}

void client_send(struct client *cl, struct outbuf *b)
{
	conn_send(cl->conn, b);
}

bool client_slow(const struct client *cl)
{
	return conn_slow(cl->conn);
}

bool client_alive(const struct client *cl)
{
	return conn_alive(cl->conn);
}

void client_close(struct client *cl, bool graceful)
{
	conn_close(cl->conn, graceful);
}
