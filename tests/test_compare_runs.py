"""Comparing real runs end to end: experiments run with `twinsim experiment run` (embedded brain, sample pages)
compared with `twinsim report compare`; simulations of the demo shop and experiments run through the API compared
with GET /simulations/compare and /experiments/compare (and the simulations' output directories with the CLI).
Every share must be the one in the run's own document, every test the one its table calls for (McNemar on
twins in both runs, else the two-proportion or Fisher's test); paths that are not finished runs, runs of two
kinds, unknown ids and unfinished runs are refused with the reason."""

from __future__ import annotations

import csv
import json
import time
from pathlib import Path

import pytest
import yaml
from fastapi.testclient import TestClient
from scipy import stats
from statsmodels.stats.proportion import proportions_ztest
from typer.testing import CliRunner

from agent.allowed_hosts import LOOPBACK
from service.api.app import create_app
from service.cli.main import app
from service.jobs.experiment_store import ExperimentStore
from service.settings import Settings
from tests.conftest import PAGES, REPO, page

pytestmark = pytest.mark.integration

EXAMPLES = REPO / "examples" / "experiments"
PERSONA_FILES = [REPO / "personas" / "examples" / "maria.yaml", REPO / "personas" / "examples" / "sam-chen.json"]
OPERA_USERS = ["7f0c8207-6a6f-49cd-9d7e-17987cfafcb9", "85aeec61-2d4e-489d-93bf-76c928d2d795"]
PRODUCT_URL = "https://www.amazon.com/dp/B0TWINSIM1"
KEY = "compare-key"
TASK = {"goal": "Put a USB-C cable in the cart", "success": {"url": "*/cart*"}}


# -- experiments from the CLI ----------------------------------------------------------------------------------


def write_spec(path: Path, **overrides) -> Path:
    spec = yaml.safe_load((EXAMPLES / "deal_banner.yaml").read_text())
    spec["variants"][0]["page"]["path"] = str(PAGES / "product_page.html")
    spec["variants"][1]["page"]["path"] = str(EXAMPLES / "pages" / "product_deal_banner.html")
    spec.update(population={"ids": ["maria-lopez", "sam-chen"]}, samples_per_persona=5, segments=[])
    spec.update(overrides)
    path.write_text(yaml.safe_dump(spec))
    return path


@pytest.fixture(scope="module")
def cli_runs(tmp_path_factory) -> Path:
    """Three experiment runs: a (seed 42), b (seed 7: the same twins, paired), c (4 instances: not all paired)."""
    root = tmp_path_factory.mktemp("cli-runs")
    with pytest.MonkeyPatch.context() as env:
        env.setenv("TWINSIM_DATA_DIR", str(root / "data"))
        personas = [arg for path in PERSONA_FILES for arg in ("--personas", str(path))]
        for name, overrides in (("a", {}), ("b", {"seed": 7}), ("c", {"samples_per_persona": 4})):
            spec = write_spec(root / f"{name}.yaml", **overrides)
            result = CliRunner().invoke(
                app, ["experiment", "run", str(spec), "--out", str(root / name), *(personas if name == "a" else [])]
            )
            assert result.exit_code == 0, result.output
    return root


def compare(*args) -> tuple[int, str, str]:
    result = CliRunner().invoke(app, ["report", "compare", *map(str, args)])
    return result.exit_code, result.stdout, result.stderr


def results(run: Path) -> dict:
    return json.loads((run / "results.json").read_text())


def samples_by_twin(run: Path) -> dict[tuple, dict]:
    rows = [json.loads(line) for line in (run / "samples.jsonl").read_text().splitlines()]
    return {(r["variant"], r["persona_id"], r["instance"]): r for r in rows}


def outcome_of(sample: dict, outcome: str) -> bool:
    if outcome.startswith("target:"):
        return sample["target_clicks"][outcome.removeprefix("target:")]
    return sample[outcome]


def mcnemar_p(a_only: int, b_only: int) -> float:
    return stats.binomtest(min(a_only, b_only), a_only + b_only, 0.5).pvalue if a_only + b_only else 1.0


def independent_p(metric: dict) -> float:
    t = metric["table"]
    if metric["test"] == "Fisher exact":
        return stats.fisher_exact([[t["a_yes"], t["a_no"]], [t["b_yes"], t["b_no"]]]).pvalue
    assert metric["test"] == "two-proportion z-test"
    return proportions_ztest([t["b_yes"], t["a_yes"]], [t["b_yes"] + t["b_no"], t["a_yes"] + t["a_no"]])[1]


def assert_shares_are_the_documents(comparison: dict, doc_a: dict, doc_b: dict) -> None:
    for variant in comparison["variants"]:
        name = variant["variant"]
        rates = [m for m in variant["metrics"] if m["metric"] != "task"]
        assert [m["metric"] for m in rates] == list(doc_a["analysis"]["variants"][name]["rates"])
        for metric in rates:
            for side, doc in (("a", doc_a), ("b", doc_b)):
                recorded = doc["analysis"]["variants"][name]["rates"][metric["metric"]]
                assert {k: metric[side][k] for k in ("successes", "n", "rate")} == {
                    k: recorded[k] for k in ("successes", "n", "rate")
                }
            assert metric["difference"] == pytest.approx(metric["b"]["rate"] - metric["a"]["rate"])
            assert metric["p_adjusted"] >= metric["p_value"] and metric["beyond_noise"] == (metric["p_adjusted"] < 0.05)


def test_two_experiment_runs_of_the_same_twins_are_paired(cli_runs):
    code, stdout, stderr = compare(cli_runs / "a", cli_runs / "b")
    assert code == 0, stderr
    comparison = json.loads(stdout)
    doc_a, doc_b = results(cli_runs / "a"), results(cli_runs / "b")
    assert comparison["kind"] == "experiment" and [v["variant"] for v in comparison["variants"]] == ["A", "B"]
    assert comparison["config"]["differences"] == [{"setting": "seed", "a": 42, "b": 7}]
    assert comparison["comparability"]["same_population"] is True and "seeds differ (42 vs 7)" in stderr
    assert_shares_are_the_documents(comparison, doc_a, doc_b)
    twins_a, twins_b = samples_by_twin(cli_runs / "a"), samples_by_twin(cli_runs / "b")
    assert set(twins_a) == set(twins_b)
    for variant in comparison["variants"]:
        assert variant["pairing"]["paired"] is True
        for metric in variant["metrics"]:
            pairs = [
                (outcome_of(s, metric["metric"]), outcome_of(twins_b[key], metric["metric"]))
                for key, s in twins_a.items()
                if key[0] == variant["variant"]
            ]
            table = {
                "both": sum(x and y for x, y in pairs),
                "a_only": sum(x and not y for x, y in pairs),
                "b_only": sum(y and not x for x, y in pairs),
                "neither": sum(not x and not y for x, y in pairs),
            }
            assert metric["table"] == table and metric["test"] == "McNemar exact (binomial)"
            assert metric["p_value"] == pytest.approx(mcnemar_p(table["a_only"], table["b_only"]))


def test_runs_with_other_instances_are_independent_samples_written_as_json_and_html(cli_runs, tmp_path):
    out = tmp_path / "comparison"
    code, stdout, stderr = compare(cli_runs / "a", cli_runs / "c", "--out", out)
    assert code == 0, stderr
    comparison = json.loads((out / "comparison.json").read_text())
    assert {d["setting"] for d in comparison["config"]["differences"]} == {"samples per persona"}
    assert_shares_are_the_documents(comparison, results(cli_runs / "a"), results(cli_runs / "c"))
    for variant in comparison["variants"]:
        assert variant["pairing"]["paired"] is False and "ran in one run only" in variant["pairing"]["why"]
        assert (variant["n_a"], variant["n_b"]) == (10, 8)
        for metric in variant["metrics"]:
            assert metric["p_value"] == pytest.approx(independent_p(metric))
    html = (out / "comparison.html").read_text()
    assert "two experiments compared" in html and "Independent samples" in html and "samples per persona" in html
    assert "comparison.html" in stdout and "variant A: independent samples" in stdout


def test_paths_that_are_not_finished_runs_are_refused(cli_runs, tmp_path):
    stopped = tmp_path / "stopped"
    stopped.mkdir()
    (stopped / "samples.jsonl").write_text((cli_runs / "a" / "samples.jsonl").read_text())
    (tmp_path / "empty").mkdir()
    (tmp_path / "browsing" / "traces").mkdir(parents=True)
    (tmp_path / "cut").mkdir()
    (tmp_path / "cut" / "results.json").write_text((cli_runs / "a" / "results.json").read_text()[:100])
    for path, reason in (
        (tmp_path / "missing", "no such directory"),
        (tmp_path / "empty", "not a run"),
        (stopped, "an experiment that has not finished"),
        (tmp_path / "browsing", "a simulation that has not finished"),
        (tmp_path / "cut", "results.json: not valid JSON"),
    ):
        code, stdout, stderr = compare(cli_runs / "a", path)
        assert code == 2 and reason in " ".join(stderr.split()) and not stdout
        assert "Traceback" not in stderr


# -- simulations and experiments through the API ---------------------------------------------------------------


def wait_for(client: TestClient, path: str, limit_s: float = 240) -> dict:
    deadline = time.monotonic() + limit_s  # a guard against hanging, not a speed assertion
    while (body := client.get(path).json())["status"] in ("queued", "running"):
        assert time.monotonic() < deadline, body
        time.sleep(0.3)
    assert body["status"] == "done", body.get("error")
    return body


def experiment_spec(seed: int) -> dict:
    banner = (EXAMPLES / "pages" / "product_deal_banner.html").read_text()
    return {
        "name": "Deal banner",
        "seed": seed,
        "samples_per_persona": 3,
        "population": {"ids": OPERA_USERS},
        "variants": [
            {"name": "A", "page": {"simplified_html": page("product_page.html"), "page_url": PRODUCT_URL}},
            {"name": "B", "page": {"simplified_html": banner, "page_url": PRODUCT_URL}},
        ],
        "targets": ["deal_banner"],
        "task": {"goal": "Find a good deal on a cable", "success": {"element": "deal_banner"}},
    }


@pytest.fixture(scope="module")
def api(tmp_path_factory, opera_dir, shop_url):
    """One app: two simulations of the two OPeRA sample users on the demo shop (3 steps, seeds 0 and 1) and two
    experiments of the same users (seeds 5 and 6), all finished."""
    csv.field_size_limit(10**9)
    data_dir = tmp_path_factory.mktemp("compare-api")
    with TestClient(
        create_app(Settings(data_dir=data_dir, api_key=KEY, allowed_hosts=LOOPBACK)), headers={"X-API-Key": KEY}
    ) as client:
        with open(opera_dir / "users_sample.csv", newline="") as handle:
            for row in csv.DictReader(handle):
                assert client.post("/personas", json=row).status_code == 201
        sims = [
            client.post(
                "/simulations",
                json={"url": shop_url + "/", "personas": OPERA_USERS, "max_steps": 3, "seed": seed, "task": TASK},
            ).json()["id"]
            for seed in (0, 1)
        ]
        exps = [client.post("/experiments", json=experiment_spec(seed)).json()["id"] for seed in (5, 6)]
        bodies = {i: wait_for(client, f"/simulations/{i}") for i in sims}
        bodies |= {i: wait_for(client, f"/experiments/{i}") for i in exps}
        yield {
            "client": client,
            "data_dir": data_dir,
            "sims": sims,
            "exps": exps,
            "bodies": bodies,
            "shop_url": shop_url,
        }


def test_two_simulations_compared_through_the_api_and_the_cli(api):
    client, (s1, s2) = api["client"], api["sims"]
    response = client.get("/simulations/compare", params={"a": s1, "b": s2})
    assert response.status_code == 200, response.text
    comparison = response.json()
    first, second = api["bodies"][s1], api["bodies"][s2]
    assert comparison["kind"] == "simulation" and comparison["pairing"]["paired"] is True
    assert comparison["config"]["differences"] == [{"setting": "seed", "a": 0, "b": 1}]
    stages = {m["metric"].removeprefix("stage:"): m for m in comparison["metrics"] if m["metric"].startswith("stage:")}
    assert list(stages) == [row["stage"] for row in first["funnel"]["reached"]]
    for side, body in (("a", first), ("b", second)):
        for row in body["funnel"]["reached"]:
            assert (stages[row["stage"]][side]["successes"], stages[row["stage"]][side]["n"]) == (row["twins"], 2)
            assert stages[row["stage"]][side]["rate"] == pytest.approx(row["share"])
        for outcome, count in body["funnel"]["outcomes"].items():
            assert (
                next(m for m in comparison["metrics"] if m["metric"] == f"outcome:{outcome}")[side]["successes"]
                == count
            )
    task = next(m for m in comparison["metrics"] if m["metric"] == "task")
    for side, body in (("a", first), ("b", second)):
        assert (task[side]["successes"], task[side]["n"]) == (body["task"]["reached"], body["task"]["judged"]) != (0, 0)
    by_persona = [{t["persona_id"]: t for t in body["traces"]} for body in (first, second)]
    for stage, metric in stages.items():
        pairs = [(stage in by_persona[0][p]["stages"], stage in by_persona[1][p]["stages"]) for p in OPERA_USERS]
        a_only, b_only = sum(x and not y for x, y in pairs), sum(y and not x for x, y in pairs)
        assert (metric["table"]["a_only"], metric["table"]["b_only"]) == (a_only, b_only)
        assert metric["test"] == "McNemar exact (binomial)" and metric["p_value"] == pytest.approx(
            mcnemar_p(a_only, b_only)
        )
        assert metric["beyond_noise"] is False  # two twins cannot show a difference beyond noise

    runs = api["data_dir"] / "simulations"
    code, stdout, stderr = compare(runs / s1, runs / s2)
    assert code == 0, stderr
    assert json.loads(stdout)["metrics"] == comparison["metrics"]
    report = client.get("/simulations/compare/report", params={"a": s1, "b": s2})
    assert report.status_code == 200 and report.headers["content-type"].startswith("text/html")
    assert "two simulations compared" in report.text and "Paired" in report.text


def test_two_experiments_compared_through_the_api(api):
    client, (e1, e2) = api["client"], api["exps"]
    response = client.get("/experiments/compare", params={"a": e1, "b": e2})
    assert response.status_code == 200, response.text
    comparison = response.json()
    assert comparison["runs"]["a"]["label"] == e1 and comparison["config"]["differences"] == [
        {"setting": "seed", "a": 5, "b": 6}
    ]
    assert all(v["pairing"]["paired"] for v in comparison["variants"])  # paired through the stored samples
    first, second = api["bodies"][e1]["results"], api["bodies"][e2]["results"]
    assert_shares_are_the_documents(comparison, first, second)
    for variant in comparison["variants"]:
        task = variant["metrics"][-1]
        assert task["metric"] == "task"
        for side, results in (("a", first), ("b", second)):
            recorded = results["task"]["variants"][variant["variant"]]
            assert (task[side]["successes"], task[side]["n"]) == (recorded["reached"], recorded["judged"]) != (0, 0)
    assert client.get("/experiments/compare/report", params={"a": e1, "b": e2}).status_code == 200


def test_unknown_unfinished_and_mixed_runs_are_refused_with_the_reason(api, cli_runs):
    client, (s1, _), (e1, _) = api["client"], api["sims"], api["exps"]
    unknown = client.get("/experiments/compare", params={"a": e1, "b": "nope"})
    assert unknown.status_code == 404 and unknown.json()["detail"] == "experiment 'nope' not found"
    mixed = client.get("/simulations/compare", params={"a": s1, "b": e1})
    assert mixed.status_code == 404 and "is an experiment" in mixed.json()["detail"]
    mixed = client.get("/experiments/compare", params={"a": s1, "b": e1})
    assert mixed.status_code == 404 and "is a simulation" in mixed.json()["detail"]
    assert client.get("/simulations/compare", params={"a": s1}).status_code == 422

    queued = ExperimentStore(api["data_dir"] / "experiments.sqlite").create({"name": "never started"}, total=4)
    waiting = client.get("/experiments/compare", params={"a": e1, "b": queued})
    assert waiting.status_code == 409 and "has no results yet (status queued, 0/4)" in waiting.json()["detail"]

    started = client.post(
        "/simulations", json={"url": api["shop_url"] + "/", "personas": OPERA_USERS[:1], "max_steps": 3, "seed": 0}
    ).json()["id"]
    running = client.get("/simulations/compare", params={"a": s1, "b": started})
    assert running.status_code == 409 and "has not finished" in running.json()["detail"]
    wait_for(client, f"/simulations/{started}")
    fewer = client.get("/simulations/compare", params={"a": s1, "b": started}).json()
    assert fewer["pairing"]["paired"] is False and fewer["comparability"]["personas_only_in_a"] == OPERA_USERS[1:]
    *shares, task = fewer["metrics"]
    assert all(m["p_value"] == pytest.approx(independent_p(m)) for m in shares)
    assert (task["metric"], task["p_value"], task["reason"]) == ("task", None, "no twin was judged in run B")
    assert {d["setting"] for d in fewer["config"]["differences"]} == {"personas", "task"}

    code, stdout, stderr = compare(cli_runs / "a", api["data_dir"] / "simulations" / s1)
    assert code == 2 and "is an experiment and run" in stderr and "is a simulation" in stderr and not stdout
