"""Errors at the web edge: one :class:`ApiError` becomes an RFC 9457 problem or an error frame.

Every error has a stable ``code``; ``title`` and ``detail`` are translated from the
catalogues ``bobing/i18n/<lang>/server.json`` (keys ``server.error.<code>.title`` and
``.detail``), falling back to the English message the error was raised with.
"""

from __future__ import annotations

from typing import Any

from bobing.engine.errors import BobingError, DiceError, IllegalAction, RecordError, RulesError
from bobing.i18n import catalogue, normalize_lang
from bobing.i18n.errors import localize

STATUS: dict[str, int] = {
    "malformed": 400,
    "too_deep": 400,
    "bad_text": 400,
    "bad_number": 400,
    "bad_path": 404,
    "request_timeout": 408,
    "too_large": 413,
    "unsupported_image": 415,
    "headers_too_large": 431,
    "too_many_connections": 429,
    "unknown_command": 400,
    "invalid_field": 422,
    "invalid_name": 422,
    "name_too_long": 422,
    "name_taken": 409,
    "table_full": 409,
    "table_not_found": 404,
    "invalid_rules": 422,
    "invalid_dice": 422,
    "invalid_photo": 422,
    "invalid_nonce": 422,
    "invalid_token": 401,
    "forbidden": 403,
    "not_your_turn": 409,
    "turn_taken": 409,
    "wrong_mode": 409,
    "not_in_lobby": 409,
    "not_enough_players": 409,
    "not_playing": 409,
    "unknown_player": 422,
    "illegal_action": 409,
    "invalid_grab": 422,
    "nothing_to_undo": 409,
    "not_last_throw": 409,
    "reaction_too_soon": 429,
    "rematch_exists": 409,
    "event_table": 409,
    "no_rematch": 409,
    "time_called": 409,
    "closed_after": 409,
    "conflict": 409,
    "command_id_reused": 409,
    "lobby_locked": 409,
    "rejoin_too_soon": 409,
    "log_full": 409,
    "too_many_tables": 429,
    "too_many_events": 429,
    "rate_limited": 429,
    "busy": 503,
    "unavailable": 503,
    "not_found": 404,
    "invalid_event": 422,
    "event_not_found": 404,
    "unauthorized": 401,
    "tables_playing": 409,
    "no_session": 409,
    "session_playing": 409,
    "playoff_exists": 409,
    "playoff_too_small": 409,
    "seat_claimed": 409,
    "no_check_in": 409,
    "already_seated": 409,
    "claim_key_required": 403,
    "claim_key_replaced": 403,
    "names_look_alike": 409,
    "internal_error": 500,
}
"""Every error code the server sends, with its HTTP status (docs/protocol.md lists them)."""

PROBLEM_TYPE = "urn:bobing:problem:"


class ApiError(Exception):
    """A refused request: ``code`` (stable), an English ``message``, and quoted ``params``."""

    def __init__(self, code: str, message: str, /, **params: Any) -> None:
        super().__init__(message)
        if code not in STATUS:
            raise ValueError(f"unknown error code {code!r}")
        self.code = code
        self.message = message
        self.params = params

    @property
    def status(self) -> int:
        """The HTTP status of this error."""
        return STATUS[self.code]

    def title(self, lang: str | None) -> str:
        """A short translated summary."""
        return _text(f"server.error.{self.code}.title", lang, self.params) or self.code

    def detail(self, lang: str | None) -> str:
        """The translated explanation quoting the input, or the English message."""
        return _text(f"server.error.{self.code}.detail", lang, self.params) or self.message

    def problem(self, lang: str | None) -> dict[str, Any]:
        """The RFC 9457 problem object (plus ``code`` and ``params``)."""
        return {
            "type": PROBLEM_TYPE + self.code,
            "title": self.title(lang),
            "status": self.status,
            "detail": self.detail(lang),
            "code": self.code,
            "params": _jsonable(self.params),
        }

    def frame(self, lang: str | None, command_id: str | None) -> dict[str, Any]:
        """The WebSocket ``error`` frame."""
        return {
            "type": "error",
            "id": command_id,
            "code": self.code,
            "status": self.status,
            "title": self.title(lang),
            "detail": self.detail(lang),
            "params": _jsonable(self.params),
        }


def _text(key: str, lang: str | None, params: dict[str, Any]) -> str | None:
    lang = normalize_lang(lang)
    template = catalogue(lang).get(key) or catalogue("en").get(key)
    if not isinstance(template, str):
        return None
    # An error among the params (a photo's ``reason``) reads in the client's language.
    shown = {k: localize(v, lang) if isinstance(v, BobingError) else v for k, v in params.items()}
    try:
        return template.format(**shown)
    except (KeyError, IndexError, ValueError):
        return None


def _jsonable(params: dict[str, Any]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in params.items():
        if value is None or isinstance(value, bool | int | float | str):
            out[key] = value
        elif isinstance(value, BobingError):
            out[key] = value.code
        elif isinstance(value, list | tuple):
            out[key] = [v if isinstance(v, bool | int | float | str) else str(v) for v in value]
        else:
            out[key] = str(value)
    return out


_ENGINE_CODES: dict[str, str] = {
    "not_your_turn": "not_your_turn",
    "unknown_player": "unknown_player",
    "not_started": "not_playing",
    "game_over": "not_playing",
    "already_started": "not_in_lobby",
    "duplicate_name": "name_taken",
    "bad_name": "invalid_name",
    "invalid_nonce": "invalid_nonce",
    "already_closed": "time_called",
}


def from_bobing(exc: BobingError) -> ApiError:
    """The web error for an engine error, keeping the engine's message as the detail."""
    params = dict(exc.params)
    code = _ENGINE_CODES.get(exc.code)
    if code is None:
        if isinstance(exc, DiceError):
            code = "invalid_dice"
        elif isinstance(exc, RulesError):
            code = "invalid_rules"
        elif isinstance(exc, RecordError):
            code = "invalid_grab" if params.get("key") == "grab" else "invalid_field"
        elif isinstance(exc, IllegalAction):
            code = "illegal_action"
        else:
            code = "invalid_field"
    # The engine's own message is the most specific explanation there is.
    params.setdefault("message", exc.message)
    params["engine_code"] = exc.code
    return ApiError(code, exc.message, **params)
