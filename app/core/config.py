"""Settings: every knob Paperboy has, read from the environment (prefix ``PAPERBOY_``).

Build them with :func:`get_settings` at an entry point and pass them down; nothing in the
project reads a module-level settings object, so tests make their own.
"""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Annotated, Literal

from pydantic import Field, field_validator
from pydantic_settings import BaseSettings, NoDecode, SettingsConfigDict

# Values a deployment must change; production refuses to start with any of them (compared
# case-insensitively, see app/core/settings_check.py), as with any secret under 32 bytes.
PLACEHOLDER_SECRETS = frozenset(
    {
        "",
        "changethis",
        "change-me",
        "change_me",
        "changeme",
        "change-this",
        "secret",
        "secret-key",
        "secret_key",
        "secretkey",
        "your-secret-key",
        "your_secret_key",
        "yoursecretkey",
        "supersecret",
        "super-secret",
        "super-secret-key",
        "password",
        "passw0rd",
        "paperboy",
        "paperboy-dev-secret",
        "development",
        "dev",
        "test",
        "testing",
        "insecure",
        "default",
        "example",
        "placeholder",
        "replace-me",
        "xxx",
        "1234567890",
    }
)
DEFAULT_CATEGORIES = ("cs.AI", "cs.CL", "cs.CV", "cs.LG")
PACKAGED_MODEL_NAME = "all-MiniLM-L6-v2"
PACKAGED_MODEL_DIMENSIONS = 384  # the width of its vectors


class Settings(BaseSettings):
    """Paperboy's configuration. Field ``x`` is read from ``PAPERBOY_X``."""

    model_config = SettingsConfigDict(env_prefix="PAPERBOY_", extra="ignore", frozen=True)

    data_dir: Path = Path("var")
    database_url: str = ""
    env: Literal["development", "production"] = "development"
    categories: Annotated[tuple[str, ...], NoDecode] = DEFAULT_CATEGORIES

    embedding_model: str = PACKAGED_MODEL_NAME
    embedding_device: str = "cpu"
    embedding_batch_size: int = Field(default=64, ge=1)
    # Papers embedded and committed together: a killed run loses at most one chunk.
    embedding_chunk_size: int = Field(default=1000, ge=1, le=10_000)
    embedding_backend: Literal["torch", "onnx-int8"] = "torch"

    topic_window_days: int = Field(default=7, ge=1)
    topic_size: int = Field(default=20, ge=2)
    topic_min_size: int = Field(default=5, ge=1)
    topic_match_cosine: float = Field(default=0.85, gt=0, le=1)
    # Order each topic's candidate label phrases by the embedding model's reading of them.
    topic_labels_by_meaning: bool = True
    edition_size: int = Field(default=100, ge=1)
    scorer: Literal["trending", "baseline"] = "trending"
    trending_model_path: Path | None = None
    diversity_max_per_topic: int = Field(default=3, ge=1)
    diversity_window: int = Field(default=10, ge=1)

    arxiv_rss_url: str = "https://rss.arxiv.org"
    arxiv_api_url: str = "https://export.arxiv.org/api/query"
    arxiv_oai_url: str = "https://oaipmh.arxiv.org/oai"
    # arXiv's author feeds: <url>/<orcid>.atom2 lists the papers of the iD's arXiv account.
    arxiv_author_feed_url: str = "https://arxiv.org/a"
    hf_api_url: str = "https://huggingface.co/api"
    arxiv_min_interval_seconds: float = Field(default=3.0, ge=0)
    contact_email: str = ""
    arxiv_feed_format: Literal["rss", "atom"] = "rss"
    arxiv_max_retries: int = Field(default=4, ge=0)
    arxiv_max_wait_seconds: float = Field(default=300.0, ge=0)
    http_timeout_seconds: float = Field(default=30.0, gt=0)
    # Real answers are at most a few MB (a busy day's RSS of many categories, an OAI page).
    ingest_max_response_bytes: int = Field(default=50 * 2**20, ge=1)
    # Hugging Face's thumbnails, fetched at ingest one at a time through their own gate:
    # real ones are social cards of about 1200x650 pixels and a few hundred KB.
    hf_thumbnail_interval_seconds: float = Field(default=1.0, ge=0)
    hf_thumbnail_timeout_seconds: float = Field(default=10.0, gt=0)
    hf_thumbnail_max_bytes: int = Field(default=5 * 2**20, ge=1)
    hf_thumbnail_max_pixels: int = Field(default=25_000_000, ge=1)
    # The hosts a thumbnail is fetched from: Hugging Face's CDN. The day's page names the
    # address, so without this a page could send ingest anywhere (an address inside the network).
    hf_thumbnail_hosts: Annotated[tuple[str, ...], NoDecode] = ("cdn-thumbnails.huggingface.co",)

    smtp_host: str = "localhost"
    smtp_port: int = 1025
    smtp_username: str = ""
    smtp_password: str = ""
    smtp_security: Literal["none", "starttls", "tls"] = "none"
    mail_from: str = "Paperboy <paperboy@localhost>"
    admin_email: str = ""

    # Subscriptions and the digest.
    digest_confirm_hours: int = Field(default=48, ge=1)
    digest_link_days: int = Field(default=90, ge=60)
    digest_signin_minutes: int = Field(default=30, ge=1)
    digest_unconfirmed_days: int = Field(default=7, ge=1)
    digest_rate_per_address: int = Field(default=3, ge=1)
    digest_rate_per_client: int = Field(default=20, ge=1)
    digest_max_items: int = Field(default=10, ge=1, le=50)
    digest_exclusion_cosine: float = Field(default=0.45, gt=0, le=1)
    digest_failure_limit: int = Field(default=3, ge=1)
    digest_smtp_retries: int = Field(default=3, ge=0)
    digest_retry_seconds: float = Field(default=2.0, ge=0)
    digest_list_id: str = "Paperboy digest <digest.paperboy.localhost>"
    dkim_selector: str = ""
    dkim_private_key_path: Path | None = None

    secret_key: str = "changethis"  # noqa: S105 (a placeholder production refuses)
    public_base_url: str = "http://localhost:8000"

    # Sign in with ORCID (OpenID Connect): off until the client's id and secret are set.
    orcid_issuer: str = "https://orcid.org"
    orcid_client_id: str = ""
    orcid_client_secret: str = ""

    # Web front end and JSON API.
    api_rate_limit_per_minute: int = Field(default=120, ge=0)
    api_rate_limit_burst: int = Field(default=30, ge=1)
    # Link previews a client may have drawn a minute (those the daily job stored cost nothing).
    preview_drawings_per_minute: int = Field(default=20, ge=0)
    preview_drawings_burst: int = Field(default=5, ge=1)
    search_semantic: bool = True
    # Load the query model and open the search index (semantic only) and the API's key-phrase
    # stop list as a web process starts, so its first reader waits for none of them.
    search_preload: bool = True
    search_max_query_length: int = Field(default=200, ge=10, le=1000)
    search_threads: int = Field(default=1, ge=1)
    # The query model: "onnx-int8" runs the cached int8 model without torch, in a fraction of
    # torch's memory and with the same search quality (docs/benchmarks.md); "torch" is
    # sentence-transformers.
    search_query_backend: Literal["torch", "onnx-int8"] = "onnx-int8"
    web_cache_seconds: float = Field(default=60.0, ge=0)
    # Show Hugging Face's one-sentence summary of a paper, labelled as Hugging Face's.
    show_hf_summary: bool = True

    # PostgreSQL streaming standbys that pages, the API, feeds and search read from (comma-
    # separated URLs); writes, the scheduler and a reader's pages just after they acted use
    # the primary. Each standby is checked every replica_check_seconds and skipped while down,
    # promoted, or lagging past replica_max_lag_seconds; it gets replica_pool_size connections.
    database_replica_urls: Annotated[tuple[str, ...], NoDecode] = ()
    replica_max_lag_seconds: float = Field(default=10.0, gt=0)
    replica_check_seconds: float = Field(default=2.0, gt=0)
    replica_pool_size: int = Field(default=5, ge=1)
    read_your_writes_seconds: int = Field(default=10, ge=1)

    # Scheduler and operations.
    scheduler_lease_seconds: float = Field(default=60.0, ge=1)
    scheduler_misfire_grace_seconds: int = Field(default=3600, ge=1)
    # How long a starting scheduler waits for a database server that does not answer yet.
    scheduler_start_wait_seconds: float = Field(default=300.0, ge=0)
    announcement_margin_minutes: int = Field(default=30, ge=0, le=600)
    # The nightly ``prune`` job: how long a mail is kept once sent or given up, and a finished
    # job run (each job's newest run and newest success are kept whatever their age).
    outbox_retention_days: int = Field(default=30, ge=1)
    job_run_retention_days: int = Field(default=30, ge=1)
    arxiv_holidays: Annotated[tuple[date, ...], NoDecode] = ()
    log_json: bool = False
    # No network to arXiv or Hugging Face (an air-gapped deployment): the jobs that need it are
    # off, and nothing is stale or failing for want of them.
    offline: bool = False

    @field_validator(
        "arxiv_holidays", "categories", "database_replica_urls", "hf_thumbnail_hosts", mode="before"
    )
    @classmethod
    def _split_commas(cls, value: object) -> object:
        """A list given as one comma-separated environment variable."""
        if isinstance(value, str):
            return tuple(part.strip() for part in value.split(",") if part.strip())
        return value

    @field_validator("categories")
    @classmethod
    def _require_categories(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        if not value:
            raise ValueError("at least one arXiv category is required")
        return value

    @property
    def orcid_sign_in(self) -> bool:
        """Whether "Sign in with ORCID" is offered: an issuer and a registered client."""
        return bool(self.orcid_issuer and self.orcid_client_id and self.orcid_client_secret)

    @property
    def resolved_database_url(self) -> str:
        """The database URL, defaulting to a SQLite file inside ``data_dir``."""
        if self.database_url:
            return self.database_url
        return f"sqlite:///{self.data_dir / 'paperboy.sqlite3'}"


def get_settings(**overrides: object) -> Settings:
    """Read settings from the environment; ``overrides`` win (used by tests and the CLI)."""
    return Settings(**overrides)  # type: ignore[arg-type]
