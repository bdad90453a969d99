"""Shortest job first under strict priority, written as a Python policy: at every instant, start
the waiting jobs in order of estimate (the earlier arrival first among equals) while they fit, and
stop at the first that does not. The built-in ``fcfs:order=sjf`` decision for decision
(src/sched/ordered.rs), so the two series of experiments/python-policies.toml are equal.
"""


class Sjf:
    def schedule(self, state):
        for job in sorted(state.queue, key=lambda j: j.estimate):
            if not state.start(job):
                return
