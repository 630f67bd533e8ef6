FROM python:3.11-slim
WORKDIR /app
COPY pyproject.toml README.md ./
COPY graph graph
COPY api api
COPY resolvers resolvers
COPY cypher cypher
RUN pip install --no-cache-dir .
ENV THREADLINE_HOST=0.0.0.0 THREADLINE_PORT=8000
EXPOSE 8000
CMD ["threadline", "serve"]
