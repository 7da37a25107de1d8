"""The course gradebook, as nbgrader itself would make it."""

from __future__ import annotations

import sqlite3

from autograder.classgrade.gradebook import create_gradebook


def _schema(path) -> dict:
    with sqlite3.connect(path) as db:
        tables = db.execute(
            "SELECT name, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ).fetchall()
        version = db.execute("SELECT version_num FROM alembic_version").fetchall()
    return {"tables": tables, "version": version}


def test_a_new_gradebook_is_the_one_nbgrader_makes(tmp_path):
    """Same tables, same alembic stamp (nbgrader asks the `alembic` command for
    it; here nbgrader's migration scripts are read), and made only once."""
    from nbgrader.api import Gradebook

    from autograder.config.settings import put_python_on_path

    put_python_on_path()  # nbgrader runs `alembic` by name
    with Gradebook(f"sqlite:///{tmp_path / 'nbgrader.db'}"):
        pass
    ours = tmp_path / "ours.db"
    create_gradebook(f"sqlite:///{ours}")
    assert _schema(ours) == _schema(tmp_path / "nbgrader.db")
    with Gradebook(f"sqlite:///{ours}") as book:  # nbgrader opens it as its own
        book.add_student("ada")
    create_gradebook(f"sqlite:///{ours}")  # there already: left as it is
    with Gradebook(f"sqlite:///{ours}") as book:
        assert [s.id for s in book.students] == ["ada"]
