#!/usr/bin/env python3
"""pools_bench.py - N bot connections in the ttt pool for S seconds (issue 22, Measure).

Starts its own bitarenad (a fresh data directory, loopback, no command budget), connects N
guests in JSON, each of which joins the `ttt` pool, plays random legal moves as soon as it is
to move, and joins again when its game ends. It prints:
  - the time from `pool join` (sent) to `game_start` (read), p50/p90/p99/max, for the joins
    that found a partner waiting (the pool's waiting count, read by a sampler's `pools` every
    100 ms, was at least one at the join: an estimate) and for all joins;
  - games played, moves;
  - the server's CPU time (user+sys from /proc) and, from its log at shutdown, the time it
    spent pairing (events/pools.c measures each pairing pass with uv_hrtime()).
Not a test: figures only, for the README.

    python3 bench/pools_bench.py --bitarenad build/bitarenad [--bots 500] [--seconds 120]
                                 [--tmp /dev/shm]
A game_start goes out once the game's first record is durable (the journal's barrier): on a
disk that fsync is most of the join's latency, so --tmp /dev/shm shows the pairing itself.
"""
import argparse
import asyncio
import json
import os
import random
import re
import shutil
import signal
import subprocess
import tempfile
import time


def pct(xs, p):
    if not xs:
        return float("nan")
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(p / 100.0 * len(xs)))]


class Bot:
    def __init__(self, name, port, stats, stop):
        self.name, self.port, self.stats, self.stop = name, port, stats, stop

    async def send(self, line):
        self.w.write((line + "\n").encode())

    async def run(self):
        self.r, self.w = await asyncio.open_connection("127.0.0.1", self.port, limit=1 << 20)
        await self.r.readline()  # the welcome
        await self.send("set format json")
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
            if t == "game_start":
                dt = time.monotonic() - self.t0
                self.stats["lat"].append(dt)
                if self.partner:
                    self.stats["lat_partner"].append(dt)
            elif t == "state":
                if m.get("over"):
                    self.stats["games"] += 1
                    if not self.stop.is_set():
                        await self.join()
                elif m.get("seat") in m.get("to_move", []) and m.get("legal"):
                    self.stats["moves"] += 1
                    await self.send("move %d %s" % (m["game"], random.choice(m["legal"])))
        self.w.close()

    async def join(self):
        self.partner = self.stats["waiting"] > 0
        self.t0 = time.monotonic()
        await self.send("pool join ttt")


async def sampler(port, stats, stop):
    r, w = await asyncio.open_connection("127.0.0.1", port)
    await r.readline()
    w.write(b"set format json\n")
    while not stop.is_set():
        w.write(b"pools\n")
        while True:
            m = json.loads(await r.readline() or b"{}")
            if m.get("cmd") == "pools" or not m:
                break
        for p in m.get("pools", []):
            if p["name"] == "ttt":
                stats["waiting"] = p["waiting"]
        await asyncio.sleep(0.1)
    w.close()


def cpu_s(pid):
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--bitarenad", default="build/bitarenad")
    ap.add_argument("--bots", type=int, default=500)
    ap.add_argument("--seconds", type=float, default=120)
    ap.add_argument("--tmp", default=None,
                    help="where the store goes (/dev/shm: without the disk's fsync, which holds "
                         "every game_start until its game is durable)")
    a = ap.parse_args()
    d = tempfile.mkdtemp(prefix="pools-bench.", dir=a.tmp)
    pf = os.path.join(d, "port")
    log = open(os.path.join(d, "log"), "w+")
    srv = subprocess.Popen([a.bitarenad, "--listen", "127.0.0.1:0", "--port-file", pf, "--data",
                            os.path.join(d, "data"), "--cmd-rate", "0", "--max-clients",
                            str(a.bots + 100), "--max-per-address", "0"],
                           stdout=log, stderr=subprocess.STDOUT)
    try:
        while not os.path.exists(pf) or not open(pf).read().strip():
            await asyncio.sleep(0.05)
        port = int(open(pf).read())
        stats = {"lat": [], "lat_partner": [], "games": 0, "moves": 0, "waiting": 0}
        stop = asyncio.Event()
        tasks = [asyncio.create_task(sampler(port, stats, stop))]
        for i in range(a.bots):
            tasks.append(asyncio.create_task(Bot("b%d" % i, port, stats, stop).run()))
            if i % 50 == 49:
                await asyncio.sleep(0.05)
        c0, t0 = cpu_s(srv.pid), time.monotonic()
        await asyncio.sleep(a.seconds)
        c1, t1 = cpu_s(srv.pid), time.monotonic()
        stop.set()
        for t in tasks:
            t.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        srv.send_signal(signal.SIGTERM)
        srv.wait(30)
        log.seek(0)
        m = re.search(r"pools: (\d+) games paired, pairing took ([0-9.]+) ms", log.read())
        ms = lambda xs, p: pct(xs, p) * 1000
        print("pools_bench: %d bots, %.0f s, %d games, %d moves" %
              (a.bots, t1 - t0, stats["games"], stats["moves"]))
        for key, what in (("lat_partner", "a partner waiting"), ("lat", "all joins")):
            xs = stats[key]
            print("join -> game_start (%s, %d): p50 %.2f ms p90 %.2f ms p99 %.2f ms max %.2f ms" %
                  (what, len(xs), ms(xs, 50), ms(xs, 90), ms(xs, 99), ms(xs, 100)))
        print("server CPU: %.2f s of %.0f s (%.1f%% of one core)" %
              (c1 - c0, t1 - t0, 100 * (c1 - c0) / (t1 - t0)))
        if m:
            print("pairing: %s games paired, %.1f ms of CPU in pairing passes (whole run)" %
                  (m.group(1), float(m.group(2))))
    finally:
        if srv.poll() is None:
            srv.kill()
        shutil.rmtree(d, ignore_errors=True)


if __name__ == "__main__":
    asyncio.run(main())
