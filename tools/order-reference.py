#!/usr/bin/env python3
"""An independent reference for pwa-replay's queue orders (docs/ALGORITHMS.md, "Queue orders:
agreement with independent simulators"): strict priority and EASY under an order on a flat
machine, written from the textbook definitions, sharing no code with pwa-replay; and a job-by-job
comparison of two per-job tables.

    tools/order-reference.py replay SWF NODES strict|easy ORDER exact|user OUT.csv [--rl]
    tools/order-reference.py compare A.csv B.csv

replay: one pass per instant at which a job arrives or ends (a job outliving its estimate calls no
pass), after that instant's ends and arrivals. A pass ranks the waiting jobs by the order's value
at that instant (larger first, ties by submit time then job id) and starts the top while it fits;
under EASY the first that does not fit gets the reservation (the shadow time from the running jobs'
estimated ends, a job past its estimate ending now; the shadow state frees every job estimated to
end by then) and every other job, in rank order, starts if it fits now and either ends by its
estimate no later than the shadow time or fits in the extra nodes (which it then uses up). Submit
times count from the first submission; records with a negative run time or no processors are
dropped. ORDER: fcfs sjf ljf saf laf sqf lqf xf wfp3 unicep f1 f2 f3 f4.

--rl: RLScheduler's loop instead (HPCSimPickJobs.schedule_curr_sequence_reset of
github.com/DIR-LAB/deep-batch-scheduler): one event at a time, an arrival before an end of the
same second, a decision after each; the top of the order is chosen and kept until it fits; under
EASY its reservation is computed once, when it is chosen, and the others are backfilled in arrival
order if they fit and end strictly before it (no extra-nodes rule). The order's values stay
pwa-replay's.

compare: jobs in common, starts that differ, mean bounded slowdown (10 s) of each side, and the
earliest differing start.
"""
import csv
import math
import sys


def read_swf(path, estimate):
    jobs = []
    for line in open(path):
        if line.startswith(";") or not line.strip():
            continue
        f = line.split()
        jid, submit, run, procs, req_time = (
            int(f[0]), float(f[1]), float(f[3]), int(f[4]), float(f[8]))
        if run < 0 or procs <= 0:  # dropped as pwa-replay drops them (traces/README.md)
            continue
        est = run if estimate == "exact" or req_time <= 0 else req_time
        jobs.append(dict(id=jid, submit=submit, run=run, size=procs, est=est))
    t0 = min(j["submit"] for j in jobs)
    for j in jobs:
        j["submit"] -= t0
    jobs.sort(key=lambda j: (j["submit"], j["id"]))
    return jobs


def key(order, j, now):
    """The order's value, larger first (docs/ALGORITHMS.md, "Queue orders")."""
    w, r, n, s = now - j["submit"], j["est"], j["size"], j["submit"]
    if order == "fcfs":
        return -s
    if order == "sjf":
        return -r
    if order == "ljf":
        return r
    if order == "saf":
        return -(n * r)
    if order == "laf":
        return n * r
    if order == "sqf":
        return -n
    if order == "lqf":
        return n
    if order == "xf":
        return (w + r) / max(r, 1)
    if order == "wfp3":
        return (w / max(r, 1)) ** 3 * n
    if order == "unicep":
        return w / (math.log2(max(n, 2)) * max(r, 1))
    if order == "f1":
        return -(math.log10(max(r, 1)) * n + 870 * math.log10(max(s, 1)))
    if order == "f2":
        return -(math.sqrt(r) * n + 25600 * math.log10(max(s, 1)))
    if order == "f3":
        return -(r * n + 6860000 * math.log10(max(s, 1)))
    if order == "f4":
        return -(r * math.sqrt(n) + 530000 * math.log10(max(s, 1)))
    raise SystemExit(f"unknown order {order}")


def replay(jobs, nodes, sched, order, rl=False):
    """Sets every job's "start" under SCHED in ORDER on a flat machine of NODES."""
    free = nodes
    st = {}
    running = []  # jobs started, not ended
    waiting = []
    arrivals = iter(jobs)
    nxt = next(arrivals, None)
    done = 0
    while done < len(jobs):
        # The next instant: an arrival or an end (a job outliving its estimate calls no pass).
        cands = [j["start"] + j["run"] for j in running]
        if nxt is not None:
            cands.append(nxt["submit"])
        now = min(cands)
        if rl:
            # RLScheduler takes one event at a time, an arrival before an end of the same second,
            # and decides after each.
            if nxt is not None and nxt["submit"] == now:
                waiting.append(nxt)
                nxt = next(arrivals, None)
            else:
                ending = (j for j in running if j["start"] + j["run"] == now)
                j = min(ending, key=lambda j: j["start"])
                running.remove(j)
                free += j["size"]
                done += 1
            free = rl_pass(waiting, running, free, now, sched, order, st)
            continue
        for j in [j for j in running if j["start"] + j["run"] == now]:
            running.remove(j)
            free += j["size"]
            done += 1
        while nxt is not None and nxt["submit"] == now:
            waiting.append(nxt)
            nxt = next(arrivals, None)
        free = one_pass(waiting, running, free, now, sched, order)
    return jobs


def start(j, now, waiting, running):
    """Starts waiting job J now; the nodes it takes."""
    j["start"] = now
    waiting.remove(j)
    running.append(j)
    return j["size"]


def rl_pass(waiting, running, free, now, sched, order, st):
    """RLScheduler's loop (HPCSimPickJobs.schedule_curr_sequence_reset): the top of the order is
    chosen and kept (committed) until it fits; under EASY its reservation is computed once, when it
    is chosen, and the others are backfilled in arrival order if they end strictly before it."""
    while True:
        c = st.get("committed")
        if c is None:
            if not waiting:
                return free
            c = min(waiting, key=lambda j: (-key(order, j, now), j["submit"], j["id"]))
            st["committed"] = c
            if sched == "easy" and c["size"] > free:
                avail, st["shadow"] = free, now
                for end, size in sorted((j["start"] + j["est"], j["size"]) for j in running):
                    avail += size
                    st["shadow"] = end
                    if avail >= c["size"]:
                        break
        if c["size"] <= free:
            free -= start(c, now, waiting, running)
            st["committed"] = None
            continue
        if sched == "easy":
            for j in sorted(waiting, key=lambda j: (j["submit"], j["id"])):
                if j is not c and now + j["est"] < st["shadow"] and j["size"] <= free:
                    free -= start(j, now, waiting, running)
        return free


def one_pass(waiting, running, free, now, sched, order):
    """The pass of one instant; the nodes left free."""
    ranked = sorted(waiting, key=lambda j: (-key(order, j, now), j["submit"], j["id"]))
    i = 0
    while i < len(ranked) and ranked[i]["size"] <= free:
        free -= start(ranked[i], now, waiting, running)
        i += 1
    if sched == "strict" or i == len(ranked):
        return free
    head = ranked[i]
    ends = sorted((max(j["start"] + j["est"], now), j["size"]) for j in running)
    avail, shadow = free, None
    for end, size in ends:
        avail += size
        if avail >= head["size"]:
            shadow = end
            break
    # The shadow state: the machine at the shadow time, every job estimated to end then freed.
    avail = free + sum(size for end, size in ends if end <= shadow)
    extra = avail - head["size"]
    for j in ranked[i + 1:]:
        if j["size"] > free:
            continue
        if now + j["est"] <= shadow:
            free -= start(j, now, waiting, running)
        elif j["size"] <= extra:
            extra -= j["size"]
            free -= start(j, now, waiting, running)
    return free


def replay_main(args):
    path, nodes, sched, order, estimate, out = args[:6]
    jobs = replay(read_swf(path, estimate), int(nodes), sched, order, "--rl" in args)
    with open(out, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["job_id", "submit_s", "start_s", "run_s", "size"])
        for j in sorted(jobs, key=lambda j: j["id"]):
            w.writerow([j["id"], j["submit"], j["start"], j["run"], j["size"]])


def load(path):
    return {int(r["job_id"]): (float(r["submit_s"]), float(r["start_s"]), float(r["run_s"]))
            for r in csv.DictReader(open(path))}


def bounded_slowdown(rows):
    return sum(max(1.0, (st - s + r) / max(r, 10.0)) for s, st, r in rows) / len(rows)


def compare_main(args):
    a, b = load(args[0]), load(args[1])
    common = sorted(set(a) & set(b))
    diff = [j for j in common if abs(a[j][1] - b[j][1]) > 1e-6]
    first = min(diff, key=lambda j: (min(a[j][1], b[j][1]), j)) if diff else None
    print(f"jobs {len(common)} only_a {len(set(a) - set(b))} only_b {len(set(b) - set(a))} "
          f"differ {len(diff)} bsld_a {bounded_slowdown([a[j] for j in common]):.4f} "
          f"bsld_b {bounded_slowdown([b[j] for j in common]):.4f} first {first}"
          + (f" a {a[first][1]} b {b[first][1]}" if first else ""))


if __name__ == "__main__":
    if len(sys.argv) < 2 or sys.argv[1] not in ("replay", "compare"):
        sys.exit(__doc__)
    (replay_main if sys.argv[1] == "replay" else compare_main)(sys.argv[2:])
