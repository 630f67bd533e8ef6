"""Expiry, the tokens file kept current, `revoke-token`, the audit line and the rate rule:
the parts without a server."""

from __future__ import annotations

import asyncio
import re
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from typer.testing import CliRunner

from api.audit import Audit
from api.auth import Principal, Refusal, Scope, TokenBook, expiry
from api.cli import app
from api.http.rate_limits import MOST_HELD, Rate, RateLimits
from api.live_tokens import LiveTokens
from api.settings import Settings
from graph.errors import ErrorCode
from tests.support.tokens import audit_lines, console, shown_token
from tests.support.tokens import token_entry as entry

runner = CliRunner()
NOW = datetime(2026, 6, 1, 12, 0, tzinfo=UTC)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2026-07-01", datetime(2026, 7, 1, tzinfo=UTC)),
        ("2026-07-01T10:30:00", datetime(2026, 7, 1, 10, 30, tzinfo=UTC)),
        ("2026-07-01T10:30:00Z", datetime(2026, 7, 1, 10, 30, tzinfo=UTC)),
        ("2026-07-01T12:30:00+02:00", datetime(2026, 7, 1, 10, 30, tzinfo=UTC)),
        ("30d", NOW + timedelta(days=30)),
        ("12h", NOW + timedelta(hours=12)),
        ("90m", NOW + timedelta(minutes=90)),
        ("2w", NOW + timedelta(weeks=2)),
    ],
)
def test_an_expiry_is_a_duration_from_now_or_an_instant_in_utc(
    text: str, expected: datetime
) -> None:
    assert expiry(text, NOW) == expected


@pytest.mark.parametrize("text", ["soon", "30", "30 days", "2026-13-01", "-1d"])
def test_anything_else_is_not_an_expiry(text: str) -> None:
    with pytest.raises(ValueError):
        expiry(text, NOW)


def test_the_file_takes_toml_date_times_and_iso_strings() -> None:
    book = TokenBook.from_toml(
        entry("a", "ta", "expires = 2026-06-01T12:00:00Z")
        + entry("b", "tb", 'expires = "2026-06-02"')
        + entry("c", "tc", "expires = 2026-06-01T12:00:01")  # no offset: UTC
    )
    with pytest.raises(Refusal) as refused:
        book.authenticate("Bearer ta", now=NOW)
    assert refused.value.code is ErrorCode.UNAUTHENTICATED
    assert refused.value.event == "expired"
    assert (refused.value.token, refused.value.workspace) == ("a", "w")
    assert "expired at 2026-06-01T12:00:00+00:00" in refused.value.message
    assert book.authenticate("Bearer tb", now=NOW).name == "b"
    assert book.authenticate("Bearer tc", now=NOW).name == "c"
    with pytest.raises(Refusal):
        book.authenticate("Bearer tc", now=NOW + timedelta(seconds=1))


@pytest.mark.parametrize(
    "extra", ['expires = "someday"', "rps = 0", "burst = 0", 'rps = "fast"', "expires = 12"]
)
def test_a_bad_expiry_or_rate_is_an_invalid_file(extra: str) -> None:
    with pytest.raises(ValueError, match="Invalid tokens file"):
        TokenBook.from_toml(entry("a", "ta", extra))


def test_a_token_may_carry_its_own_rate() -> None:
    book = TokenBook.from_toml(entry("a", "ta", "rps = 5\nburst = 20"))
    principal = book.authenticate("Bearer ta")
    assert (principal.rps, principal.burst) == (5, 20)
    limits = RateLimits(Rate(50, 200))
    assert limits.rate(principal) == Rate(5, 20)


def test_an_unknown_or_missing_token_is_refused_with_its_audit_event() -> None:
    book = TokenBook.from_toml(entry("a", "ta"))
    for header in (None, "Bearer nope", "Basic ta"):
        with pytest.raises(Refusal) as refused:
            book.authenticate(header)
        assert (refused.value.event, refused.value.token) == ("unauthenticated", None)
    principal = book.authenticate("Bearer ta")
    with pytest.raises(Refusal) as forbidden:
        principal.require(Scope.admin)
    assert (forbidden.value.event, forbidden.value.token) == ("forbidden", "a")


def test_the_file_is_read_again_when_it_changes_and_a_broken_one_keeps_the_last_good(
    tmp_path: Path,
) -> None:
    tokens, log = tmp_path / "tokens.toml", tmp_path / "audit.log"
    tokens.write_text(entry("a", "ta"))
    audit = Audit(log)
    live = LiveTokens(tokens, audit, check_s=0)
    with audit.opened():
        assert live.authenticate("Bearer ta").name == "a"
        tokens.write_text(entry("b", "tb"))
        assert live.authenticate("Bearer tb").name == "b"
        with pytest.raises(Refusal):
            live.authenticate("Bearer ta")
        tokens.write_text("[[tokens]]\nname = ")  # mid-edit
        assert live.authenticate("Bearer tb").name == "b"
        assert live.authenticate("Bearer tb").name == "b"  # one error line per change
        tokens.unlink()
        assert live.authenticate("Bearer tb").name == "b"
    events = [line["event"] for line in audit_lines(log)]
    assert events == ["tokens_reloaded", "tokens_reload_failed", "tokens_reload_failed"]
    assert all(str(tokens) == line["path"] for line in audit_lines(log))


def test_sighup_reads_the_file_at_once(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(entry("a", "ta"))
    live = LiveTokens(tokens, Audit(None), check_s=3600)
    tokens.write_text(entry("b", "tb"))
    with pytest.raises(Refusal):
        live.authenticate("Bearer tb")  # not looked at again within the hour
    live.refresh(force=True)  # what SIGHUP calls
    assert live.authenticate("Bearer tb").name == "b"


async def test_a_burst_then_the_sustained_rate() -> None:
    assert Rate(50, 200).window_s == 4
    assert Rate(3, 10).window_s == 4  # rounded up: never more than rps sustained
    limits = RateLimits(Rate(1, 5))
    one = Principal(name="one", workspace="w", scope=Scope.write)
    other = Principal(name="other", workspace="w", scope=Scope.write)
    assert [await limits.take(one) for _ in range(5)] == [None] * 5
    refused = await limits.take(one)
    assert refused is not None and refused.code is ErrorCode.RATE_LIMITED
    retry_after = refused.extensions["retryAfter"]
    assert isinstance(retry_after, int) and 1 <= retry_after <= 5
    assert await limits.take(other) is None, "one token's flood is not another's"
    assert await RateLimits(None).take(one) is None  # RATE_LIMIT_RPS=0


async def test_a_refusal_waits_a_pause_unless_many_of_the_token_already_wait() -> None:
    limits = RateLimits(Rate(0.1, 5), hold_s=30.0)
    one = Principal(name="one", workspace="w", scope=Scope.write)
    other = Principal(name="one", workspace="v", scope=Scope.write)
    assert 15.0 <= limits.pause(one, retry_after=50) <= 30.0, "half to all of hold_s"
    assert 1.0 <= limits.pause(one, retry_after=2) <= 2.0, "never longer than Retry-After"
    assert RateLimits(Rate(0.1, 5)).pause(one, retry_after=50) == 0.0, "hold_s 0: at once"
    [await limits.take(one) for _ in range(5)]
    refused = await limits.take(one)
    assert refused is not None
    held = [asyncio.create_task(limits.hold(one, refused)) for _ in range(MOST_HELD)]
    await asyncio.sleep(0)  # each task runs up to its pause
    assert limits.pause(one, retry_after=50) == 0.0, "MOST_HELD wait: the next is answered"
    assert limits.pause(other, retry_after=50) >= 15.0, "another workspace's token waits"
    for task in held:
        task.cancel()
    await asyncio.gather(*held, return_exceptions=True)
    assert limits.pause(one, retry_after=50) >= 15.0, "a cancelled pause is no longer held"


def test_the_limit_is_on_by_default() -> None:
    settings = Settings(_env_file=None)  # type: ignore[call-arg]
    assert (settings.rate_limit_rps, settings.rate_limit_burst) == (50, 200)
    assert settings.rate_limit_hold_s == 1.0


def test_revoke_token_removes_only_its_entry_and_keeps_comments(tmp_path: Path) -> None:
    tokens, log = tmp_path / "tokens.toml", tmp_path / "audit.log"
    tokens.write_text("# who may call us\n" + entry("a", "ta") + entry("b", "tb"))
    tokens.chmod(0o640)
    output = console("new-token", "c", "--append", str(tokens), "--expires", "30d", audit=log)
    token_c = shown_token(output)
    console("revoke-token", "b", "--file", str(tokens), audit=log)
    text = tokens.read_text()
    assert text.startswith("# who may call us\n")
    book = TokenBook.from_toml(text)
    assert book.authenticate("Bearer ta").name == "a"
    assert book.authenticate(f"Bearer {token_c}").name == "c"
    with pytest.raises(Refusal):
        book.authenticate("Bearer tb")
    assert re.search(r"expires = \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", text)
    assert tokens.stat().st_mode & 0o777 == 0o640
    assert [(line["event"], line["token"], line["operation"]) for line in audit_lines(log)] == [
        ("token_created", "c", "new-token"),
        ("token_revoked", "b", "revoke-token"),
    ]
    assert token_c not in log.read_text()


def test_revoking_an_unknown_name_says_so_in_one_line(tmp_path: Path) -> None:
    tokens = tmp_path / "tokens.toml"
    tokens.write_text(entry("a", "ta"))
    before = tokens.read_text()
    result = runner.invoke(app, ["revoke-token", "zed", "--file", str(tokens)])
    assert result.exit_code == 2
    assert result.stderr.strip() == f"No token named 'zed' in {tokens}."
    assert tokens.read_text() == before


def test_a_bad_expires_is_refused(tmp_path: Path) -> None:
    result = runner.invoke(app, ["new-token", "x", "--expires", "soon"])
    assert result.exit_code == 2
    assert "--expires" in result.output


def test_a_past_expires_makes_the_token_and_says_it_is_expired(tmp_path: Path) -> None:
    result = runner.invoke(app, ["new-token", "x", "--expires", "2020-01-01"])
    assert result.exit_code == 0
    assert "--expires 2020-01-01T00:00:00+00:00 is past" in result.stderr
