"""Problems at the edge: an :class:`ApiError` as an RFC 9457 response in the client's
language, and the problem model each router's documented responses name."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from fastapi import Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel, Field

from bobing.tables.problems import ApiError
from bobing.web.edge.lang import request_lang

PROBLEM = "application/problem+json"


class Problem(BaseModel):
    """An RFC 9457 problem (``application/problem+json``); ``code`` is stable, text translated."""

    type: str = Field(examples=["urn:bobing:problem:name_taken"])
    title: str = Field(examples=["Name taken"])
    status: int = Field(examples=[409])
    detail: str = Field(examples=["“甲” is already seated at this table."])
    code: str = Field(examples=["name_taken"], description="see docs/protocol.md, Errors")
    params: dict[str, Any] = Field(default_factory=dict, examples=[{"name": "甲"}])


PROBLEM_RESPONSE = {"model": Problem, "content": {PROBLEM: {}}}
"""A documented problem answer of a router (``responses={400: {**PROBLEM_RESPONSE, …}}``)."""


def problem_responses(descriptions: Mapping[int, str]) -> dict[int | str, dict[str, Any]]:
    """A router's documented problem answers (OpenAPI ``responses``): each status, with what
    it means on that router, answered with a :class:`Problem`."""
    return {
        status: {**PROBLEM_RESPONSE, "description": text} for status, text in descriptions.items()
    }


def problem_response(request: Request, error: ApiError) -> JSONResponse:
    """An RFC 9457 response in the client's language (``Retry-After`` when it says when)."""
    headers = None
    retry_after = error.params.get("retry_after")
    if isinstance(retry_after, int) and not isinstance(retry_after, bool):
        headers = {"Retry-After": str(max(retry_after, 1))}
    return JSONResponse(
        error.problem(request_lang(request)), error.status, media_type=PROBLEM, headers=headers
    )
