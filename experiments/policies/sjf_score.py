"""Shortest job first as a priority function: the built-in ``easy`` ranks its queue by this score
(larger first, the earlier arrival first among equals), so ``easy:order=py:policies/sjf_score.py:score``
is the built-in ``easy:order=sjf`` (whose expression is ``-estimate``). A function of the job alone
is asked once per job (docs/PYTHON.md, "Priority functions").
"""


def score(job):
    return -job.estimate
