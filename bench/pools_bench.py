#!/usr/bin/env python3
"""pools_bench.py - bots in the ttt pool and on a ttt ladder for S seconds (issue 22, Measure).

Starts its own bitarenad (a fresh data directory, loopback, no command budget, --fast-hash,
--http for /metrics) and, in this one asyncio process, connects:
  - --bots guests in JSON, each of which joins the `ttt` pool, plays a random legal move as soon
    as it is to move, and joins again when its game ends;
  - --ladder bot accounts (`register NAME PW bot`), each of which joins the ladder
    `ttt time=1+0` (concurrency 1) and plays the games the ladder starts for it.
It prints:
  - pool: the time from `pool join` (sent) to `game_start` (read), p50/p90/p99/max, for the
    joins that found a partner waiting (the pool's waiting count, read by a sampler's `pools`
    every 100 ms, was at least one at the join: an estimate) and for all joins; beside it, as
    the reference measured in the same run, the join's own round trip (`pool join` sent to its
    `ok` read); and the server's side (/metrics bitarena_pool_wait_seconds: from the join to
    its pairing, at the histogram's resolution);
  - ladder: the share of the members' time spent idle while another member was idle too (a
    partner free), sampled every 500 ms from `ladder show` (members connected and active with
    no game on), and the games played;
  - CPU: the server's (user+sys from /proc), and of it the pairing's, from the server's own
    histograms (bitarena_pool_pairing_seconds, bitarena_ladder_pairing_seconds: count, sum);
  - the run-queue wait (/proc/PID/schedstat: time runnable but not running) of the server's
    threads and of this client: on a loaded machine the latencies are mostly that wait.
Not a test: figures only, for the README.

    python3 bench/pools_bench.py --bitarenad build/bitarenad [--bots 500] [--ladder 200]
                                 [--seconds 120] [--tmp /dev/shm]
A game_start goes out once the game's first record is durable (the journal's barrier), and the
join's `ok` waits behind whatever the connection has held (the end of its last game): on a disk
that fsync is most of the join's latency, so --tmp /dev/shm shows the pairing itself.
"""
import argparse
import asyncio
import json
import math
import os
import random
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.request

LADDER = "ttt time=1+0"


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]


def spread(xs):
    ms = lambda p: pct(xs, p) * 1000
    return "p50 %.1f ms p90 %.1f ms p99 %.1f ms max %.1f ms" % (ms(50), ms(90), ms(99), ms(100))


class Bot:
    """A pool guest (ladder False) or a ladder member (an account, a bot's)."""

    def __init__(self, name, port, stats, stop, ladder=False):
        self.name, self.port, self.stats, self.stop = name, port, stats, stop
        self.ladder = ladder

    async def send(self, line):
        self.w.write((line + "\n").encode())

    async def run(self):
        self.r, self.w = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
        await self.r.readline()  # the welcome
        await self.send("set format json")
        if self.ladder:
            await self.send("register %s secret-%s bot" % (self.name, self.name))
            await self.send("ladder join " + LADDER)
        else:
            await self.send("login " + self.name)
            await self.join()
        while not self.stop.is_set():
            line = await self.r.readline()
            if not line:
                return
            try:
                m = json.loads(line)
            except ValueError:
                continue
            t = m.get("type")
            if t == "ok" and m.get("cmd") == "pool":
                self.stats["ok"].append(time.monotonic() - self.t0)
            elif t == "error":
                self.stats["errors"][m.get("code")] = self.stats["errors"].get(m.get("code"), 0) + 1
            elif t == "game_start" and not self.ladder:
                dt = time.monotonic() - self.t0
                self.stats["lat"].append(dt)
                if self.partner:
                    self.stats["lat_partner"].append(dt)
            elif t == "state":
                if m.get("over"):
                    self.stats["ladder_games" if self.ladder else "games"] += 1
                    if not self.ladder and not self.stop.is_set():
                        await self.join()
                elif m.get("seat") in m.get("to_move", []) and m.get("legal"):
                    self.stats["moves"] += 1
                    await self.send("move %d %s" % (m["game"], random.choice(m["legal"])))
        self.w.close()

    async def join(self):
        self.partner = self.stats["waiting"] > 0
        self.t0 = time.monotonic()
        await self.send("pool join ttt")


async def request(r, w, line, cmd):
    """Sends line and returns the reply to cmd (other lines skipped)."""
    w.write((line + "\n").encode())
    while True:
        m = json.loads(await r.readline() or b"{}")
        if not m or m.get("cmd") == cmd:
            return m


async def pool_sampler(port, stats, stop):
    r, w = await asyncio.open_connection("127.0.0.1", port, limit=1 << 22)
    await r.readline()
    w.write(b"set format json\n")
    while not stop.is_set():
        for p in (await request(r, w, "pools", "pools")).get("pools", []):
            if p["name"] == "ttt":
                stats["waiting"] = p["waiting"]
        await asyncio.sleep(0.1)
    w.close()


async def ladder_sampler(port, stats, stop, measuring):
    """Every 500 ms: members connected and active, and of them the idle ones (no game on)."""
    r, w = await asyncio.open_connection("127.0.0.1", port, limit=1 << 22)
    await r.readline()
    w.write(b"set format json\n")
    while not stop.is_set():
        m = await request(r, w, "ladder show ttt", "ladder")
        if measuring.is_set():
            for lad in m.get("ladders", []):
                here = [x for x in lad.get("members", [])
                        if x.get("online") and x.get("state") == "active"]
                idle = sum(1 for x in here if x.get("running", 0) == 0)
                stats["member_samples"] += len(here)
                stats["idle_samples"] += idle
                stats["idle_free_samples"] += idle if idle >= 2 else 0
        await asyncio.sleep(0.5)
    w.close()


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def runq_s(pid):
    """(running, waiting to run) seconds summed over pid's threads (schedstat)."""
    run = wait = 0
    for t in os.listdir("/proc/%d/task" % pid):
        try:
            with open("/proc/%d/task/%s/schedstat" % (pid, t)) as f:
                a, b, _ = f.read().split()
        except OSError:
            continue
        run, wait = run + int(a) / 1e9, wait + int(b) / 1e9
    return run, wait


def metrics(http):
    with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % http, timeout=10) as r:
        text = r.read().decode()
    out = {}
    for line in text.splitlines():
        if line and not line.startswith("#"):
            k, v = line.rsplit(" ", 1)
            out[k] = float(v)
    return out


def hist(a, b, name):
    """(count, sum, [(le, count)]) of histogram name between /metrics a and b."""
    buckets = []
    for k, v in b.items():
        if k.startswith(name + "_bucket{le=\""):
            le = k[len(name) + 12:-2]
            buckets.append((math.inf if le == "+Inf" else float(le), v - a.get(k, 0.0)))
    buckets.sort()
    d = lambda s: b.get(name + s, 0.0) - a.get(name + s, 0.0)
    return d("_count"), d("_sum"), buckets


def bucket_of(buckets, count, q):
    """The upper bound of the bucket that holds quantile q, as text."""
    for le, v in buckets:
        if v >= q * count:
            return "> last bucket" if le == math.inf else "<= %.3g ms" % (le * 1000)
    return "-"


def wait_file(path, proc):
    while not os.path.exists(path) or not open(path).read().strip():
        if proc.poll() is not None:
            raise SystemExit("bitarenad exited (%d)" % proc.returncode)
        time.sleep(0.05)
    return int(open(path).read())


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bitarenad", default="build/bitarenad")
    ap.add_argument("--bots", type=int, default=500, help="guests in the ttt pool")
    ap.add_argument("--ladder", type=int, default=200, help="bot accounts on the ttt ladder")
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--tmp", default=None,
                    help="where the store goes (/dev/shm: without the disk's fsync, which holds "
                         "every game_start until its game is durable)")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="pools-bench.", dir=a.tmp)
    pf, hpf = os.path.join(d, "port"), os.path.join(d, "http-port")
    log = open(os.path.join(d, "log"), "w+")
    srv = subprocess.Popen([a.bitarenad, "--listen", "127.0.0.1:0", "--port-file", pf, "--data",
                            os.path.join(d, "data"), "--cmd-rate", "0", "--max-clients",
                            str(a.bots + a.ladder + 100), "--max-per-address", "0",
                            "--fast-hash", "--register-limit", "0", "--http", "127.0.0.1:0", "--http-port-file", hpf],
                           stdout=log, stderr=subprocess.STDOUT)
    try:
        port, http = wait_file(pf, srv), wait_file(hpf, srv)
        stats = {"lat": [], "lat_partner": [], "ok": [], "games": 0, "ladder_games": 0,
                 "moves": 0, "waiting": 0, "errors": {}, "member_samples": 0,
                 "idle_samples": 0, "idle_free_samples": 0}
        stop, measuring = asyncio.Event(), asyncio.Event()
        tasks = [asyncio.create_task(pool_sampler(port, stats, stop)),
                 asyncio.create_task(ladder_sampler(port, stats, stop, measuring))]
        for i in range(a.ladder):
            tasks.append(asyncio.create_task(Bot("lb%d" % i, port, stats, stop, True).run()))
            if i % 50 == 49:
                await asyncio.sleep(0.05)
        for i in range(a.bots):
            tasks.append(asyncio.create_task(Bot("pb%d" % i, port, stats, stop).run()))
            if i % 50 == 49:
                await asyncio.sleep(0.05)
        await asyncio.sleep(2)  # everyone in
        for k in ("lat", "lat_partner", "ok"):
            stats[k].clear()
        stats["games"] = stats["ladder_games"] = stats["moves"] = 0
        m0 = metrics(http)
        c0, t0 = cpu_s(srv.pid), time.monotonic()
        q0, qc0 = runq_s(srv.pid), runq_s(os.getpid())
        measuring.set()
        await asyncio.sleep(a.seconds)
        measuring.clear()
        m1 = metrics(http)
        c1, t1 = cpu_s(srv.pid), time.monotonic()
        q1, qc1 = runq_s(srv.pid), runq_s(os.getpid())
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        srv.send_signal(signal.SIGTERM)
        srv.wait(30)
        el = t1 - t0
        print("pools_bench: %d pool guests, %d ladder bots, %.0f s: %d pool games, %d ladder "
              "games, %d moves" % (a.bots, a.ladder, el, stats["games"] // 2,
                                   stats["ladder_games"] // 2, stats["moves"]))
        if stats["errors"]:
            print("errors: %s" % stats["errors"])
        for key, what in (("lat_partner", "a partner waiting"), ("lat", "all joins")):
            print("pool join -> game_start (%s, %d): %s" %
                  (what, len(stats[key]), spread(stats[key])))
        print("pool join -> its ok (the round trip, %d): %s" % (len(stats["ok"]),
                                                              spread(stats["ok"])))
        n, s, b = hist(m0, m1, "bitarena_pool_wait_seconds")
        if n:
            print("server: join -> pairing (%d players paired): mean %.1f ms, p50 %s, p99 %s" %
                  (n, s / n * 1000, bucket_of(b, n, 0.5), bucket_of(b, n, 0.99)))
        if stats["member_samples"]:
            print("ladder: members idle %.1f%% of their time, idle while another member was "
                  "idle too %.1f%%" % (100.0 * stats["idle_samples"] / stats["member_samples"],
                                       100.0 * stats["idle_free_samples"] /
                                       stats["member_samples"]))
        cpu = c1 - c0
        print("server CPU: %.2f s of %.0f s (%.1f%% of one core)" % (cpu, el, 100 * cpu / el))
        for name, what in (("bitarena_pool_pairing_seconds", "pool"),
                           ("bitarena_ladder_pairing_seconds", "ladder")):
            n, s, b = hist(m0, m1, name)
            if n:
                print("%s pairing: %d passes, %.1f ms of CPU (%.3f%% of the server's), mean "
                      "%.1f us, p99 %s" % (what, n, s * 1000, 100 * s / cpu if cpu else 0,
                                           s / n * 1e6, bucket_of(b, n, 0.99)))
        print("run-queue wait (runnable, no core free): server %.1f s (running %.1f s), this "
              "client %.1f s (running %.1f s), of %.0f s" %
              (q1[1] - q0[1], q1[0] - q0[0], qc1[1] - qc0[1], qc1[0] - qc0[0], el))
    finally:
        if srv.poll() is None:
            srv.kill()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
