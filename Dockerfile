FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY graph graph
COPY api api
COPY resolvers resolvers
COPY cypher cypher
COPY bench bench
RUN pip install --no-cache-dir .
# An unprivileged user; the tokens folder is created owned by it, so the named
# volume mounted there starts out writable for `threadline new-token --append`.
RUN useradd --system --no-create-home threadline \
    && mkdir -p /run/threadline && chown threadline /run/threadline
USER threadline
ENV THREADLINE_HOST=0.0.0.0 THREADLINE_PORT=8000
EXPOSE 8000
CMD ["threadline", "serve"]
