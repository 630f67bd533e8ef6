"""The GraphQL schema: its operations, our limits and error masking."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterator, Sequence

import strawberry
from graphql import GraphQLError
from strawberry.extensions import (
    AddValidationRules,
    DisableIntrospection,
    MaxAliasesLimiter,
    MaxTokensLimiter,
    ParserCache,
    QueryDepthLimiter,
    SchemaExtension,
    ValidationCache,
)
from strawberry.types import ExecutionContext

from api.graphql.errors import CodedErrors
from api.graphql.guards import guards_extension
from api.graphql.mutations import Mutation
from api.graphql.one_mutation import OneMutationField
from api.graphql.queries import Query
from api.graphql.subscriptions import Subscription
from api.settings import Settings

DOCUMENT_CACHE = 512  # distinct query texts kept parsed and validated


class ParsedOnce(ParserCache):
    """Strawberry's parser cache, but a document that does not parse is left unparsed, so
    the schema parses it again and answers its syntax error as a client's error. Raised
    from the cache's hook, the error escaped a subscription's error handling: the socket
    got `complete` with no error, and the server logged a traceback."""

    def on_parse(self) -> Iterator[None]:
        execution = self.execution_context
        with contextlib.suppress(GraphQLError):
            execution.graphql_document = self.cached_parse_document(
                execution.query, **execution.parse_options
            )
        yield


class ThreadlineSchema(strawberry.Schema):
    def process_errors(
        self, errors: list[GraphQLError], execution_context: ExecutionContext | None = None
    ) -> None:
        """Log nothing here: a client's error is its own business, and an internal one is
        logged once, with its trace and correlation id, where it is masked (api.graphql.errors)."""


def build_schema(
    settings: Settings, extra: Sequence[Callable[[], SchemaExtension]] = ()
) -> strawberry.Schema:
    """The schema with our limits and error masking; extensions are built per request.

    Documents are parsed and validated once per text (Strawberry's caches). The depth and
    alias rules are made once here, so the validation cache, which is keyed by the rules
    too, is hit by every request with a text it has seen.
    """
    limit_rules = [
        *QueryDepthLimiter(max_depth=settings.max_query_depth).validation_rules,
        *MaxAliasesLimiter(max_alias_count=settings.max_aliases).validation_rules,
        OneMutationField,
    ]
    extensions: list[Callable[[], SchemaExtension]] = [
        guards_extension(settings),
        CodedErrors,
        lambda: MaxTokensLimiter(max_token_count=settings.max_query_tokens),
        lambda: ParsedOnce(maxsize=DOCUMENT_CACHE),
        lambda: AddValidationRules(limit_rules),
        lambda: ValidationCache(maxsize=DOCUMENT_CACHE),
        *extra,
    ]
    if settings.production:
        extensions.append(DisableIntrospection)
    return ThreadlineSchema(
        query=Query,
        mutation=Mutation,
        subscription=Subscription,
        extensions=extensions,
    )
