# Paperboy: the web app by default; the same image runs the CLI and the scheduler.
#   docker build -t paperboy .
#   docker run -p 8000:8000 -v paperboy:/var/lib/paperboy paperboy
#   docker run -v paperboy:/var/lib/paperboy paperboy paperboy scheduler
#   docker run -p 8000:8000 -v paperboy:/var/lib/paperboy paperboy paperboy demo --host 0.0.0.0
# With PostgreSQL, a mail catcher and several web processes: compose.yaml, docs/deploy.md.
FROM python:3.11-slim-bookworm

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1 \
    HF_HUB_OFFLINE=1 \
    PAPERBOY_DATA_DIR=/var/lib/paperboy

WORKDIR /srv/paperboy

# DejaVu Sans draws the link previews' text (Greek and maths symbols included).
RUN apt-get update -qq \
    && apt-get install -y -qq --no-install-recommends fonts-dejavu-core > /dev/null \
    && rm -rf /var/lib/apt/lists/*

# The CPU build of torch first: left to PyPI, sentence-transformers would pull a multi-GB CUDA build.
# Alone: its dependencies come with the rest, at the versions of requirements/lock.txt.
RUN pip install --no-deps --index-url https://download.pytorch.org/whl/cpu torch==2.13.0

# Dependencies before the code, so a code change does not reinstall them.
COPY pyproject.toml README.md ./
COPY requirements/lock.txt ./requirements/lock.txt
RUN mkdir app ingest ranking digest accounts search \
    && touch app/__init__.py ingest/__init__.py ranking/__init__.py digest/__init__.py \
        accounts/__init__.py search/__init__.py \
    && pip install -c requirements/lock.txt -e . \
    && rm -r app ingest ranking digest accounts search

COPY app ./app
COPY ingest ./ingest
COPY ranking ./ranking
COPY digest ./digest
COPY accounts ./accounts
COPY search ./search
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static

RUN useradd --system --uid 10001 --home-dir /srv/paperboy --shell /usr/sbin/nologin paperboy \
    && mkdir -p /var/lib/paperboy \
    && chown paperboy /var/lib/paperboy
USER paperboy
VOLUME ["/var/lib/paperboy"]
EXPOSE 8000

# Ready (database reachable, schema current), not just alive. A scheduler container has no web
# server: compose.yaml turns this check off for it.
HEALTHCHECK --interval=30s --timeout=5s \
    CMD python -c "import urllib.request; urllib.request.urlopen('http://127.0.0.1:8000/readyz', timeout=4)"

# uvicorn runs WEB_CONCURRENCY worker processes (its own variable), sharing the database;
# migrate first (a no-op when the schema is current).
ENV WEB_CONCURRENCY=2
CMD ["sh", "-c", "paperboy migrate && exec uvicorn app.web.app:create_app --factory --host 0.0.0.0 --port 8000 --proxy-headers"]
