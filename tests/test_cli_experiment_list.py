"""`twinsim experiment list` shows the API's experiments on this data dir, newest first, without loading a model."""

from __future__ import annotations

from typer.testing import CliRunner

from service.cli.main import app
from service.jobs.experiment_store import ExperimentStore


def test_lists_the_data_dirs_experiments_newest_first(tmp_path):
    runner = CliRunner()
    env = {"TWINSIM_DATA_DIR": str(tmp_path), "COLUMNS": "300"}
    empty = runner.invoke(app, ["experiment", "list"], env=env)
    assert empty.exit_code == 0 and "no experiments yet" in empty.output

    store = ExperimentStore(tmp_path / "experiments.sqlite")
    first = store.create({"name": "price test"}, total=40)
    second = store.create({"name": "reviews test"}, total=10)
    store.set_progress(second, 4, 10)
    result = runner.invoke(app, ["experiment", "list"], env=env)
    assert result.exit_code == 0, result.output
    lines = result.output.strip().splitlines()
    assert [line.split("\t")[:4] for line in lines] == [
        [second, "reviews test", "queued", "4/10"],
        [first, "price test", "queued", "0/40"],
    ]
    assert runner.invoke(app, ["experiment", "list", "--limit", "0"], env=env).exit_code != 0
