# duelbot: runs `duelbot run` as a non-root user, migrations applied at start.
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_NO_CACHE_DIR=1
WORKDIR /app
COPY pyproject.toml README.md ./
COPY bot ./bot
COPY migrations ./migrations
COPY alembic.ini ./
RUN pip install . && useradd --create-home --uid 10001 duelbot && mkdir /data \
    && chown duelbot /data
USER duelbot
WORKDIR /data
ENV DUELBOT_DATABASE_URL=sqlite+aiosqlite:////data/duelbot.db \
    DUELBOT_MIGRATIONS_DIR=/app/migrations DUELBOT_HEARTBEAT_FILE=/data/.duelbot-heartbeat
# The bot refreshes a heartbeat file while connected; `duelbot health` checks it is fresh.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 CMD ["duelbot", "health"]
CMD ["sh", "-c", "duelbot db upgrade && exec duelbot run"]
