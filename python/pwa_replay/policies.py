"""Reference policies written in Python: the built-in ``fcfs`` and ``easy`` again, decision for
decision, so that a replay under them gives the built-in schedule job for job (the tests check
it on real logs). They are also the templates for new policies (docs/PYTHON.md).
"""

from __future__ import annotations


class Fcfs:
    """First come, first served: start the oldest waiting job while it fits."""

    def schedule(self, state):
        for job in state.queue:
            if not state.start(job):
                return


class Easy:
    """EASY backfilling (Lifka 1995; Mu'alem & Feitelson 2001): start jobs from the head while
    they fit; give the first that does not (the head) a reservation at its earliest start if the
    running jobs end at their estimates; then start every later job, in arrival order, that fits
    now and does not delay that reservation — it ends by then, or the head still finds a place
    beside it then. The built-in ``easy``, as src/sched/easy.rs writes it (same candidates, same
    order, same allocator calls)."""

    def schedule(self, state):
        queue = state.queue  # a live view: a started job leaves it at once
        while queue and state.start(queue[0]):
            pass
        if not queue:
            return
        head = queue[0]
        res = state.earliest_start(head)
        if res is None:
            return
        state.promise(head, res.start)
        self.backfill(state, queue.fitting(after=head, reservation=res), res)

    @staticmethod
    def backfill(state, candidates, res):
        """Tries the ``candidates`` behind the head, in arrival order. They come from
        ``queue.fitting``, which skips the built-in's cheap tests in bulk: jobs needing more
        nodes than are free, and jobs outlasting the reservation that need more nodes than it
        leaves beside the head."""
        now = state.now
        no_fit = set()  # requests that do not fit now: the free set only shrinks in a pass
        refused = set()  # requests that would take the head's room, until the next start
        for job in candidates:
            end = now + job.estimate
            outlasts = end > res.start
            if job.shape in no_fit:
                continue
            if outlasts and job.shape in refused:
                continue
            where = state.find(job)
            if where is None:
                no_fit.add(job.shape)
                continue
            if outlasts and not res.admits(where):
                refused.add(job.shape)
                continue
            if state.start(job, where):
                if outlasts:
                    res.take(where)
                refused.clear()
