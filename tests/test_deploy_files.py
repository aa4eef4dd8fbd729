"""deploy/: what can be checked without a Docker engine or a cluster is checked here.

- the Dockerfile passes hadolint and is multi-stage, non-root, health-checked, CPU torch, embedder baked in;
- compose.yaml parses with a Compose-spec validating parser, and API and Chroma share a volume and a URL;
- every Kubernetes manifest validates (strict) against the Kubernetes schemas bundled in kubernetes-validate,
  and the manifests agree with each other (selectors, service names, ports, Secret, HPA target);
- every TWINSIM_* variable named anywhere in deploy/ is a real setting, and every probe path a real route.
"""

from __future__ import annotations

import copy
import json
import re
import subprocess
import sys
from pathlib import Path
from urllib.parse import urlparse

import kubernetes_validate
import pytest
import yaml
from compose_spec import PyCompose
from fastapi.testclient import TestClient

from service.api.app import create_app
from service.settings import Settings

DEPLOY = Path(__file__).resolve().parents[1] / "deploy"
K8S = DEPLOY / "kubernetes"
K8S_VERSION = "1.33.0"
HADOLINT = Path(sys.executable).with_name("hadolint")


def dockerfile_instructions() -> list[tuple[str, str]]:
    """(INSTRUCTION, arguments) with continuation lines joined and comments dropped."""
    text = re.sub(r"\\\n", " ", (DEPLOY / "Dockerfile").read_text())
    rows = []
    for line in text.splitlines():
        line = line.strip()
        if line and not line.startswith("#"):
            keyword, _, rest = line.partition(" ")
            rows.append((keyword.upper(), rest.strip()))
    return rows


def manifests() -> dict[str, dict]:
    docs = {}
    for path in sorted(K8S.glob("*.yaml")):
        if path.name != "kustomization.yaml":
            for doc in yaml.safe_load_all(path.read_text()):
                docs[f"{doc['kind']}/{doc['metadata']['name']}"] = doc
    return docs


def container_env(container: dict) -> dict[str, str]:
    return {item["name"]: item.get("value") for item in container.get("env", [])}


# ---- Dockerfile -----------------------------------------------------------------------------------------


def test_dockerfile_passes_hadolint():
    result = subprocess.run(
        [str(HADOLINT), "--format", "json", str(DEPLOY / "Dockerfile")], capture_output=True, text=True
    )
    findings = json.loads(result.stdout or "[]")
    assert findings == [], findings


def test_hadolint_does_catch_a_bad_dockerfile(tmp_path):
    bad = tmp_path / "Dockerfile"
    bad.write_text("FROM python:latest\nRUN apt-get install curl\nRUN cd /tmp\n")
    result = subprocess.run([str(HADOLINT), "--format", "json", str(bad)], capture_output=True, text=True)
    assert {f["code"] for f in json.loads(result.stdout)} >= {"DL3007", "DL3008"}


def test_dockerfile_is_multi_stage_non_root_health_checked_with_cpu_torch_and_the_embedder_baked_in():
    rows = dockerfile_instructions()
    stages = [args for keyword, args in rows if keyword == "FROM"]
    assert len(stages) >= 2 and stages[-1].endswith("AS runtime")
    runtime = rows[max(i for i, (k, _) in enumerate(rows) if k == "FROM") :]
    users = [args for keyword, args in runtime if keyword == "USER"]
    assert users and users[-1].split(":")[0] not in ("root", "0")
    assert any(k == "COPY" and "--from=build" in a for k, a in runtime)
    (healthcheck,) = [args for keyword, args in runtime if keyword == "HEALTHCHECK"]
    assert "/healthz" in healthcheck
    text = (DEPLOY / "Dockerfile").read_text()
    pinned = re.search(r"TORCH_VERSION=(\S+)", text).group(1)
    assert pinned == re.search(r'"torch==([^"]+)"', (DEPLOY.parent / "pyproject.toml").read_text()).group(1)
    assert "whl/cpu" in text and '"torch==${TORCH_VERSION}"' in text
    build = " ".join(a for k, a in rows[: len(rows) - len(runtime)] if k == "RUN")
    assert "HF_HUB_OFFLINE=1" in build and "Embedder()" in build  # the build proves the model loads offline
    env = " ".join(a for k, a in runtime if k == "ENV")
    assert "HF_HUB_OFFLINE=1" in env and "LITELLM_LOCAL_MODEL_COST_MAP=True" in env
    (cmd,) = [json.loads(a) for k, a in runtime if k == "CMD"]
    assert cmd[:2] == ["twinsim", "serve"]


# ---- compose --------------------------------------------------------------------------------------------


def test_compose_file_is_valid_and_api_and_chroma_share_a_volume_and_a_url():
    text = (DEPLOY / "compose.yaml").read_text()
    parsed = PyCompose.from_yaml(text)
    parsed.validate()
    assert sorted(parsed.service_names()) == ["api", "chroma"]
    compose = yaml.safe_load(text)
    api, chroma = compose["services"]["api"], compose["services"]["chroma"]

    def volume_of(service):
        return {m.split(":")[0]: m.split(":")[1] for m in service["volumes"]}

    shared = set(volume_of(api)) & set(volume_of(chroma))
    assert shared and shared <= set(compose["volumes"])
    command = chroma["command"]
    assert command[:2] == ["chroma", "run"]
    chroma_path = command[command.index("--path") + 1]
    assert any(chroma_path.startswith(mount) for mount in volume_of(chroma).values())
    url = urlparse(api["environment"]["TWINSIM_CHROMA_URL"])
    assert url.hostname == "chroma" and str(url.port) == command[command.index("--port") + 1]
    assert api["depends_on"]["chroma"]["condition"] == "service_healthy" and "healthcheck" in chroma
    assert ":?" in api["environment"]["TWINSIM_API_KEY"]  # no key, no start: never an open API by accident


def test_the_compose_parser_does_reject_a_broken_file():
    with pytest.raises(ValueError):
        PyCompose.from_yaml("services:\n  api:\n    image: twinsim\n    ports: ['eighty:8000']\n").validate()


# ---- Kubernetes -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("name", sorted(manifests()))
def test_manifest_validates_against_the_kubernetes_schema(name):
    kubernetes_validate.validate(manifests()[name], K8S_VERSION, strict=True)


def test_the_validator_does_reject_a_broken_manifest():
    broken = copy.deepcopy(manifests()["Deployment/twinsim-api"])
    broken["spec"]["template"]["spec"]["containers"][0]["readinessProbe"]["httpGet"]["prot"] = 8000
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSION, strict=True)
    broken = copy.deepcopy(manifests()["Deployment/twinsim-api"])
    broken["spec"]["replicas"] = "two"
    with pytest.raises(kubernetes_validate.ValidationError):
        kubernetes_validate.validate(broken, K8S_VERSION, strict=True)


def test_kustomization_lists_every_manifest():
    listed = yaml.safe_load((K8S / "kustomization.yaml").read_text())["resources"]
    assert sorted(listed) == sorted(p.name for p in K8S.glob("*.yaml") if p.name != "kustomization.yaml")


def test_manifests_agree_with_each_other():
    docs = manifests()
    kinds = {key.split("/")[0] for key in docs}
    assert {"Deployment", "Service", "HorizontalPodAutoscaler", "StatefulSet", "Secret"} <= kinds
    api = docs["Deployment/twinsim-api"]
    pod = api["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    assert container["readinessProbe"]["httpGet"]["path"] and container["livenessProbe"]["httpGet"]["path"]
    assert docs["Service/twinsim-api"]["spec"]["selector"].items() <= pod["metadata"]["labels"].items()
    assert docs["HorizontalPodAutoscaler/twinsim-api"]["spec"]["scaleTargetRef"] == {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "name": "twinsim-api",
    }
    assert [ref["secretRef"]["name"] for ref in container["envFrom"]] == ["twinsim-secrets"]
    assert set(docs["Secret/twinsim-secrets"]["stringData"]) == {"TWINSIM_API_KEY", "TWINSIM_LLM_API_KEY"}

    chroma = docs["StatefulSet/twinsim-chroma"]
    assert chroma["spec"]["volumeClaimTemplates"][0]["metadata"]["name"] in {
        m["name"] for m in chroma["spec"]["template"]["spec"]["containers"][0]["volumeMounts"]
    }
    chroma_service = docs[f"Service/{chroma['spec']['serviceName']}"]
    assert chroma_service["spec"]["clusterIP"] == "None"
    assert chroma_service["spec"]["selector"].items() <= chroma["spec"]["template"]["metadata"]["labels"].items()
    url = urlparse(container_env(container)["TWINSIM_CHROMA_URL"])
    assert url.hostname == chroma_service["metadata"]["name"] and url.port == chroma_service["spec"]["ports"][0]["port"]

    grace = float(container_env(container)["TWINSIM_SHUTDOWN_GRACE_S"])
    assert pod["spec"]["terminationGracePeriodSeconds"] > grace + container["lifecycle"]["preStop"]["sleep"]["seconds"]
    assert pod["spec"]["securityContext"]["runAsNonRoot"] is True


# ---- deploy/ against the code ---------------------------------------------------------------------------


def test_every_twinsim_variable_in_deploy_is_a_real_setting():
    named = set()
    for path in [DEPLOY / "Dockerfile", DEPLOY / "compose.yaml", *K8S.glob("*.yaml")]:
        named |= set(re.findall(r"\bTWINSIM_([A-Z0-9_]+)", path.read_text()))
    fields = {name.upper() for name in Settings.model_fields}
    assert named and named <= fields, f"not settings: {sorted(named - fields)}"


def test_every_probe_path_answers_200_without_a_key(tmp_path):
    pod = manifests()["Deployment/twinsim-api"]["spec"]["template"]
    (container,) = pod["spec"]["containers"]
    paths = {container[p]["httpGet"]["path"] for p in ("startupProbe", "livenessProbe", "readinessProbe")}
    paths.add(re.search(r"8000(/\w+)", (DEPLOY / "Dockerfile").read_text()).group(1))  # HEALTHCHECK
    paths.add(pod["metadata"]["annotations"]["prometheus.io/path"])
    with TestClient(create_app(Settings(data_dir=tmp_path, api_key="probes-carry-no-key"))) as client:
        assert {path: client.get(path).status_code for path in sorted(paths)} == dict.fromkeys(sorted(paths), 200)
