/*
 * check_json_out.c - the server's JSON writer (src/server/json_out.c) against
 * cJSON_PrintUnformatted(), which it replaces on the wire and must equal byte
 * for byte: every kind of number (integers either side of 10^15, -0, fractions,
 * NaN and infinities), every byte in strings and keys, raw and invalid items,
 * empty and nested containers, thousands of random trees, and json_outbuf()'s
 * line beyond its stack buffer.
 */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "server/util/json_out.h"
#include "server/msg/msg.h"
#include "check_main.h"

/* j through json_out() equals cJSON_PrintUnformatted(j) (both failing counts as equal). */
static void same(const cJSON *j)
{
	char *want = cJSON_PrintUnformatted(j);
	char small[16]; /* tiny: every test grows it */
	struct json_buf b;
	json_buf_init(&b, small, sizeof small);
	bool ok = json_out(&b, j);
	if (want == NULL) {
		ck_assert_msg(!ok, "cJSON fails, json_out does not");
	} else {
		ck_assert_msg(ok, "json_out fails on %s", want);
		ck_assert_msg(b.len == strlen(want) && memcmp(b.p, want, b.len) == 0,
		              "want %s\n got %.*s", want, (int)b.len, b.p);
	}
	json_buf_free(&b);
	cJSON_free(want);
}

static void same_number(double d)
{
	cJSON *n = cJSON_CreateNumber(d);
	same(n);
	cJSON_Delete(n);
}

START_TEST(test_numbers)
{
	static const double v[] = {0,
	                           1,
	                           -1,
	                           7,
	                           10,
	                           42,
	                           1000,
	                           65536,
	                           2147483647.0,
	                           2147483648.0,
	                           -2147483648.0,
	                           -2147483649.0,
	                           4294967296.0,
	                           9007199254740992.0,
	                           123456789012345.0,
	                           999999999999999.0,
	                           -999999999999999.0,
	                           1e15,
	                           -1e15,
	                           1e15 + 2,
	                           1e16,
	                           1e21,
	                           1e300,
	                           -1e300,
	                           0.5,
	                           -0.5,
	                           0.1,
	                           1.0 / 3,
	                           2.5e-7,
	                           1e-300,
	                           5e-324,
	                           123.456,
	                           99999999999999.5,
	                           1.7976931348623157e308};
	for (size_t i = 0; i < sizeof v / sizeof v[0]; i++) {
		same_number(v[i]);
		same_number(-v[i]);
	}
	same_number(-0.0);
	same_number(NAN);
	same_number(INFINITY);
	same_number(-INFINITY);
	for (int64_t k = -100000; k <= 100000; k += 7)
		same_number((double)k);
	/* cJSON_SetNumberValue keeps valueint apart from valuedouble: only the double counts */
	cJSON *n = cJSON_CreateNumber(3.0);
	n->valueint = 99;
	same(n);
	cJSON_Delete(n);
}
END_TEST

START_TEST(test_strings_and_keys)
{
	char s[4] = "a?b";
	for (int c = 1; c < 256; c++) {
		s[1] = (char)c;
		cJSON *o = cJSON_CreateObject();
		cJSON_AddStringToObject(o, s, s);
		cJSON_AddItemToObject(o, "x", cJSON_CreateString(s + 1));
		same(o);
		cJSON_Delete(o);
	}
	cJSON *o = cJSON_CreateObject();
	cJSON_AddStringToObject(o, "", "");
	cJSON_AddStringToObject(o, "q",
	                        "\"\\/\b\f\n\r\t\x01\x1f\x7f h\xc3\xa9llo \xf0\x9f\x98\x80");
	cJSON_AddStringToObject(o, "q", "duplicate keys are kept in order");
	same(o);
	/* a string item or a key without text prints as "" */
	cJSON *t = cJSON_CreateString("gone");
	cJSON_free(t->valuestring);
	t->valuestring = NULL;
	cJSON_AddItemToObject(o, "none", t);
	same(o);
	cJSON *k = o->child;
	cJSON_free(k->string);
	k->string = NULL;
	same(o);
	cJSON_Delete(o);
}
END_TEST

START_TEST(test_containers_raw_invalid)
{
	cJSON *o = cJSON_CreateObject();
	same(o);
	cJSON_AddItemToObject(o, "a", cJSON_CreateArray());
	cJSON_AddItemToObject(o, "o", cJSON_CreateObject());
	cJSON_AddNullToObject(o, "n");
	cJSON_AddTrueToObject(o, "t");
	cJSON_AddFalseToObject(o, "f");
	cJSON_AddRawToObject(o, "r", "[1, 2 ,3]");
	cJSON *a = cJSON_AddArrayToObject(o, "nested");
	cJSON *in = cJSON_CreateArray();
	cJSON_AddItemToArray(in, cJSON_CreateArray());
	cJSON_AddItemToArray(in, cJSON_CreateNumber(1));
	cJSON_AddItemToArray(a, in);
	cJSON_AddItemToArray(a, cJSON_CreateString("x"));
	same(o);
	/* a raw item without text, and an invalid item, fail both */
	cJSON *r = cJSON_CreateRaw("1");
	cJSON_free(r->valuestring);
	r->valuestring = NULL;
	cJSON_AddItemToArray(a, r);
	same(o);
	r->type = cJSON_Invalid;
	same(o);
	cJSON_Delete(o);
	ck_assert(!json_out(&(struct json_buf){0}, NULL));
}
END_TEST

static uint64_t rng_state = 0x9e3779b97f4a7c15ull;
static uint64_t rnd(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

static char *rnd_text(char *buf, size_t cap)
{
	size_t n = rnd() % (cap - 1);
	for (size_t i = 0; i < n; i++) {
		unsigned c = (unsigned)(rnd() % 256);
		buf[i] = (char)(c == 0 ? 'z' : c);
	}
	buf[n] = '\0';
	return buf;
}

static cJSON *rnd_tree(int depth)
{
	char t[24];
	switch (rnd() % (depth > 3 ? 5 : 7)) {
	case 0:
		return cJSON_CreateNull();
	case 1:
		return cJSON_CreateBool(rnd() % 2);
	case 2: {
		double d;
		switch (rnd() % 4) {
		case 0:
			d = (double)(int64_t)(rnd() % 2000000) - 1000000;
			break;
		case 1:
			d = (double)(int64_t)rnd() / (double)(1ull << (rnd() % 64));
			break;
		case 2:
			d = (double)(int64_t)(rnd() >> (rnd() % 64));
			break;
		default: {
			uint64_t bits = rnd();
			memcpy(&d, &bits, sizeof d);
		}
		}
		return cJSON_CreateNumber(d);
	}
	case 3:
	case 4:
		return cJSON_CreateString(rnd_text(t, sizeof t));
	case 5: {
		cJSON *a = cJSON_CreateArray();
		for (int n = (int)(rnd() % 5); n > 0; n--)
			cJSON_AddItemToArray(a, rnd_tree(depth + 1));
		return a;
	}
	default: {
		cJSON *o = cJSON_CreateObject();
		for (int n = (int)(rnd() % 5); n > 0; n--)
			cJSON_AddItemToObject(o, rnd_text(t, sizeof t), rnd_tree(depth + 1));
		return o;
	}
	}
}

START_TEST(test_random_trees)
{
	for (int i = 0; i < 5000; i++) {
		cJSON *j = rnd_tree(0);
		same(j);
		cJSON_Delete(j);
	}
}
END_TEST

/* json_outbuf(): cJSON's text and one newline, also past its stack buffer. */
START_TEST(test_outbuf_line)
{
	cJSON *a = cJSON_CreateArray();
	for (int n = 1; n <= 20000; n *= 2) {
		while (cJSON_GetArraySize(a) < n)
			cJSON_AddItemToArray(a, cJSON_CreateString("0123456789"));
		char *want = cJSON_PrintUnformatted(a);
		struct outbuf *b = json_outbuf(a);
		ck_assert_ptr_nonnull(b);
		ck_assert_uint_eq(b->len, strlen(want) + 1);
		ck_assert(memcmp(b->data, want, b->len - 1) == 0);
		ck_assert_int_eq(b->data[b->len - 1], '\n');
		ck_assert_int_eq(b->data[b->len], '\0');
		outbuf_unref(b);
		cJSON_free(want);
	}
	cJSON_Delete(a);
	cJSON *bad = cJSON_CreateRaw("x");
	bad->type = cJSON_Invalid;
	ck_assert_ptr_null(json_outbuf(bad));
	cJSON_Delete(bad);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("json_out");
	TCase *tc = tcase_create("json_out");
	tcase_add_test(tc, test_numbers);
	tcase_add_test(tc, test_strings_and_keys);
	tcase_add_test(tc, test_containers_raw_invalid);
	tcase_add_test(tc, test_random_trees);
	tcase_add_test(tc, test_outbuf_line);
	suite_add_tcase(s, tc);
	return check_run(s);
}
