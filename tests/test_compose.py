"""compose.yaml is a valid Compose file that wires Paperboy the way docs/deploy.md says.

No Docker engine runs here: the file is checked against the Compose Specification's own JSON
schema (tests/fixtures/deploy/compose-spec.json), then for what a deployment depends on.
"""

from __future__ import annotations

import json
import re
from typing import Any

import jsonschema
import pytest
import yaml
from sqlalchemy.engine import make_url

from tests.conftest import FIXTURES, PROJECT_ROOT

SCHEMA = FIXTURES / "deploy" / "compose-spec.json"


@pytest.fixture(scope="module")
def compose() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((PROJECT_ROOT / "compose.yaml").read_text())
    return loaded


@pytest.fixture(scope="module")
def services(compose: dict[str, Any]) -> dict[str, Any]:
    found: dict[str, Any] = compose["services"]
    return found


def _data_dir_of_the_image() -> str:
    found = re.search(r"PAPERBOY_DATA_DIR=(\S+)", (PROJECT_ROOT / "Dockerfile").read_text())
    assert found is not None, "the Dockerfile sets PAPERBOY_DATA_DIR"
    return found[1]


def test_compose_yaml_follows_the_compose_specification(compose: dict[str, Any]) -> None:
    # Draft 7 by name: the schema's "$schema" (https, no "#") is not a URI jsonschema knows.
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator(schema).validate(compose)


def test_a_misspelt_key_would_fail_the_schema(compose: dict[str, Any]) -> None:
    schema = json.loads(SCHEMA.read_text())
    broken = {**compose, "services": {**compose["services"], "web": {"imagee": "paperboy"}}}
    with pytest.raises(jsonschema.ValidationError):
        jsonschema.Draft7Validator(schema).validate(broken)


def test_the_database_has_pgvector_and_is_the_one_every_process_uses(
    services: dict[str, Any],
) -> None:
    postgres = services["postgres"]
    assert postgres["image"].startswith("pgvector/pgvector:")
    roles = ("migrate", "web", "scheduler")
    urls = {name: services[name]["environment"]["PAPERBOY_DATABASE_URL"] for name in roles}
    assert len(set(urls.values())) == 1, urls
    url = make_url(urls["web"])
    settings = postgres["environment"]
    assert url.get_backend_name() == "postgresql" and url.host == "postgres"
    assert (url.username, url.password, url.database) == (
        settings["POSTGRES_USER"],
        settings["POSTGRES_PASSWORD"],
        settings["POSTGRES_DB"],
    )


def test_the_schema_is_migrated_once_before_web_and_scheduler_start(
    services: dict[str, Any],
) -> None:
    assert services["migrate"]["command"] == ["paperboy", "migrate"]
    assert services["migrate"]["depends_on"]["postgres"]["condition"] == "service_healthy"
    for name in ("web", "scheduler"):
        assert services[name]["depends_on"]["migrate"]["condition"] == (
            "service_completed_successfully"
        )
        assert "migrate" not in " ".join(services[name]["command"])


def test_the_web_reports_ready_and_the_scheduler_has_no_web_check(
    services: dict[str, Any],
) -> None:
    web_check = services["web"]["healthcheck"]
    assert "http://127.0.0.1:8000/readyz" in " ".join(web_check["test"])
    assert services["scheduler"]["healthcheck"] == {"disable": True}
    assert services["postgres"]["healthcheck"]["test"][1] == "pg_isready"


def test_web_scheduler_and_database_come_back_after_a_crash_or_a_reboot(
    services: dict[str, Any],
) -> None:
    for name in ("postgres", "web", "scheduler"):
        assert services[name]["restart"] == "unless-stopped", name
    assert "restart" not in services["migrate"]  # one-shot: it runs once, then web starts


def test_web_and_scheduler_keep_the_data_dir_on_a_named_volume(
    compose: dict[str, Any], services: dict[str, Any]
) -> None:
    for name in ("web", "scheduler"):
        [mount] = services[name]["volumes"]
        volume, path = mount.split(":")
        assert volume in compose["volumes"] and path == _data_dir_of_the_image()


def test_mail_goes_to_the_catcher_unless_a_relay_is_set(services: dict[str, Any]) -> None:
    environment = services["scheduler"]["environment"]
    assert environment["PAPERBOY_SMTP_HOST"] == "${PAPERBOY_SMTP_HOST:-mailpit}"
    assert "mailpit" in services
    assert environment == {
        key: value
        for key, value in services["web"]["environment"].items()
        if key not in {"WEB_CONCURRENCY", "FORWARDED_ALLOW_IPS"}
    }


def test_the_caught_mail_page_answers_only_on_this_machine(services: dict[str, Any]) -> None:
    # Mailpit's page shows every caught mail, sign-in links included: never on all interfaces.
    for published in services["mailpit"]["ports"]:
        assert str(published).startswith("127.0.0.1:"), published


@pytest.fixture(scope="module")
def replica_override() -> dict[str, Any]:
    loaded: dict[str, Any] = yaml.safe_load((PROJECT_ROOT / "compose.replica.yaml").read_text())
    return loaded


def test_the_standby_override_follows_the_compose_specification(
    replica_override: dict[str, Any],
) -> None:
    schema = json.loads(SCHEMA.read_text())
    jsonschema.Draft7Validator(schema).validate(replica_override)


def test_the_standby_copies_the_primary_and_only_the_web_reads_from_it(
    services: dict[str, Any], replica_override: dict[str, Any]
) -> None:
    added = replica_override["services"]
    standby = added["postgres-standby"]
    assert standby["image"] == services["postgres"]["image"]
    script = standby["entrypoint"][-1]
    assert "pg_basebackup -h postgres -U paperboy" in script and " -R " in script
    assert "hot_standby=on" in script and "-C -S paperboy_standby" in script
    primary_command = replica_override["services"]["postgres"]["command"]
    assert (
        primary_command[: len(services["postgres"]["command"])] == services["postgres"]["command"]
    )
    assert "max_slot_wal_keep_size=10GB" in primary_command
    url = make_url(added["web"]["environment"]["PAPERBOY_DATABASE_REPLICA_URLS"])
    primary = make_url(services["web"]["environment"]["PAPERBOY_DATABASE_URL"])
    assert url.host == "postgres-standby" and url.set(host="postgres") == primary
    assert set(added) == {"postgres", "postgres-standby", "web"}  # the schedulers write
    allow = replica_override["configs"]["allow-replication"]["content"]
    assert "host replication paperboy all scram-sha-256" in allow
