"""A cluster pool runs nothing but grade_job, and Ctrl-C on a cluster keeps
what was graded for a rerun to resume."""

from __future__ import annotations

import pytest

from autograder.classgrade import grade_class, grade_job
from autograder.classgrade.cluster import ClusterPool
from autograder.samples import all_samples, write_samples
from tests.autograder.test_cluster import LESSON  # noqa: F401


def test_a_cluster_pool_runs_grade_job_only():
    pool = ClusterPool.__new__(ClusterPool)
    with pytest.raises(TypeError, match="grade_job"):
        pool.submit(print, "x")
    assert grade_job  # the one function it takes


@pytest.mark.slow
def test_ctrl_c_on_a_cluster_keeps_what_was_graded_and_a_rerun_resumes(tmp_path):
    folder = tmp_path / "in"
    by_name = {s.name: s for s in all_samples([LESSON])}
    write_samples(
        folder, samples=[by_name["blank"], by_name["reference"], by_name["forgets-mps"]]
    )
    out = tmp_path / "out"

    def interrupt(result):
        raise KeyboardInterrupt  # Ctrl-C right after the first result arrives

    with pytest.raises(KeyboardInterrupt, match="stopped; 1 graded, 2 will be"):
        grade_class(
            folder,
            LESSON,
            out_dir=out,
            cluster="local:1",
            progress=False,
            on_result=interrupt,
        )
    saved = {p.stem for p in (out / "results" / LESSON).glob("*.json")}
    assert len(saved) == 1
    again = grade_class(folder, LESSON, out_dir=out, cluster="local:1", progress=False)
    assert again.reused == 1 and again.graded_now == 2
    for result in again.results:
        assert result.score == by_name[result.student].score
