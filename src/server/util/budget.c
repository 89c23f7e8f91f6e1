/*
 * budget.c - the command budget's token bucket and strikes (see budget.h).
 */
#include "server/util/budget.h"

void budget_config_default(struct budget_config *cfg)
{
	cfg->rate = BUDGET_RATE;
	cfg->burst = BUDGET_BURST;
	cfg->strikes = BUDGET_STRIKES;
}

static int64_t cap_milli(const struct budget_config *cfg)
{
	return (int64_t)(cfg->burst > 0 ? cfg->burst : 1) * 1000;
}

void budget_init(struct budget *b, const struct budget_config *cfg, uint64_t now)
{
	b->milli = cap_milli(cfg);
	b->at = now;
	b->strikes = 0;
	b->wait_end = 0;
	b->started = true;
}

/* Tokens come at rate a second: rate thousandths a millisecond. */
static void refill(struct budget *b, const struct budget_config *cfg, uint64_t now)
{
	if (!b->started)
		budget_init(b, cfg, now);
	if (now > b->at) {
		uint64_t dt = now - b->at, cap = (uint64_t)cap_milli(cfg);
		/* no overflow: past a full refill the bucket is full */
		if (dt >= cap / cfg->rate + 1)
			b->milli = (int64_t)cap;
		else if ((b->milli += (int64_t)(dt * cfg->rate)) > (int64_t)cap)
			b->milli = (int64_t)cap;
		b->at = now;
	}
}

enum budget_result budget_take(struct budget *b, const struct budget_config *cfg, uint64_t now,
                               unsigned cost, uint64_t *wait_ms)
{
	*wait_ms = 0;
	if (cfg->rate == 0)
		return BUDGET_OK;
	refill(b, cfg, now);
	int64_t need = (int64_t)cost * 1000;
	if (need > cap_milli(cfg))
		need = cap_milli(cfg); /* a command dearer than the bucket waits for a full one */
	if (b->milli >= need) {
		b->milli -= need;
		return BUDGET_OK;
	}
	/* forgiven: a full refill time went by since the last wait without a refusal */
	uint64_t refill_ms = (uint64_t)cap_milli(cfg) / cfg->rate;
	if (b->strikes > 0 && now >= b->wait_end + refill_ms)
		b->strikes = 0;
	b->strikes++;
	if (cfg->strikes > 0 && b->strikes >= cfg->strikes)
		return BUDGET_FLOOD;
	uint64_t wait = ((uint64_t)(need - b->milli) + cfg->rate - 1) / cfg->rate;
	for (unsigned i = 1; i < b->strikes && wait < BUDGET_WAIT_MAX; i++)
		wait *= 2;
	if (wait > BUDGET_WAIT_MAX)
		wait = BUDGET_WAIT_MAX;
	if (wait == 0)
		wait = 1;
	b->wait_end = now + wait;
	*wait_ms = wait;
	return BUDGET_LIMITED;
}

bool budget_spend(struct budget *b, const struct budget_config *cfg, uint64_t now, unsigned cost,
                  uint64_t *wait_ms)
{
	*wait_ms = 0;
	if (cfg->rate == 0)
		return true;
	refill(b, cfg, now);
	int64_t need = (int64_t)cost * 1000;
	if (need > cap_milli(cfg))
		need = cap_milli(cfg);
	if (b->milli >= need) {
		b->milli -= need;
		return true;
	}
	*wait_ms = ((uint64_t)(need - b->milli) + cfg->rate - 1) / cfg->rate;
	return false;
}

void budget_charge(struct budget *b, const struct budget_config *cfg, unsigned cost)
{
	if (cfg->rate == 0)
		return;
	b->milli -= (int64_t)cost * 1000;
	if (b->milli < -cap_milli(cfg))
		b->milli = -cap_milli(cfg);
}

bool budget_heavy(const struct budget *b, const struct budget_config *cfg)
{
	return cfg->rate > 0 && b->started && b->milli < cap_milli(cfg) / 2;
}

bool budget_spending(const struct budget *b, const struct budget_config *cfg)
{
	return cfg->rate > 0 && b->started && b->milli < cap_milli(cfg) - cap_milli(cfg) / 20;
}
