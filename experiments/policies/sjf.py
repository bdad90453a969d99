"""Shortest job first under strict priority, written as a Python policy: at every instant, start
the waiting jobs in order of estimate (the earlier arrival first among equals) while they fit, and
stop at the first that does not. The built-in ``fcfs:order=sjf`` decision for decision
(src/sched/ordered.rs), so the two series of experiments/python-policies.toml are equal.

The queue is kept sorted as jobs arrive (``on_arrival``), so a call of ``schedule`` looks at the
jobs it starts and one more, not at every waiting job.
"""

import bisect


class Sjf:
    def __init__(self):
        self.waiting = []  # (estimate, arrival index, job), shortest first

    def on_arrival(self, state, job):
        bisect.insort(self.waiting, (job.estimate, job.index, job))

    def schedule(self, state):
        started = 0
        for _, _, job in self.waiting:
            if not state.start(job):
                break
            started += 1
        del self.waiting[:started]
