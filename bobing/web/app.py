"""The FastAPI application: REST, WebSockets, problems, and the static UI at ``/``."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import UTC, datetime, timedelta
from typing import Any

from fastapi import Depends, FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, Response
from sqlalchemy.exc import SQLAlchemyError
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.middleware.gzip import GZipMiddleware
from starlette.types import Receive, Scope, Send

from bobing.engine.errors import BobingError
from bobing.gatherings.service import GatheringService
from bobing.organizer import MAX_ROSTER_BYTES
from bobing.realtime.backends import get_broker
from bobing.realtime.redis import safe_url
from bobing.storage.db import Database
from bobing.storage.event_store import EventStore
from bobing.storage.gatherings import GatheringStore
from bobing.tables.limits import Limits
from bobing.tables.problems import ApiError, from_bobing
from bobing.tables.protocol import command_schema
from bobing.tables.service import TableService
from bobing.vision.limits import MAX_PHOTO_BYTES
from bobing.web.assets import REVALIDATE, WORKER, StaticSite
from bobing.web.edge.lang import request_lang
from bobing.web.edge.problems import PROBLEM, problem_response
from bobing.web.edge.rate import client_address
from bobing.web.headers import SecurityHeaders, content_security_policy
from bobing.web.hub import Hub
from bobing.web.limits_transport import RequestLimits
from bobing.web.ratelimit import MISSES, NO_SUCH_CODE, code_name, count_miss, rate_limiter
from bobing.web.routes import analysis, api, ws
from bobing.web.routes import events as event_routes
from bobing.web.settings import Settings

log = logging.getLogger("bobing.web")
RESERVED_PREFIXES = ("/api", "/ws", "/docs", "/openapi.json", "/redoc")


class SpaStatic:
    """The static front end (bobing.web.assets); other paths outside /api and /ws get the page.

    Files come from memory, compressed as the client accepts; hashed names are immutable, the
    rest (and the page itself) revalidated with their ETag.
    """

    def __init__(self, site: StaticSite) -> None:
        self.site = site

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":  # pragma: no cover - the router sends only HTTP here
            raise StarletteHTTPException(404)
        request = Request(scope)
        if request.method not in ("GET", "HEAD"):
            raise StarletteHTTPException(405)
        path: str = scope["path"]
        found = self.site.lookup(path, request_lang(request))
        vary = "Accept-Encoding"
        if found is None:
            if path.startswith(RESERVED_PREFIXES) or path.startswith(("/js/", "/css/", "/i18n/")):
                raise StarletteHTTPException(404)
            page = self.site.page(request_lang(request), path)
            if page is None:
                raise StarletteHTTPException(404)
            found = (page, REVALIDATE)
            vary = "Accept-Encoding, Accept-Language"
        elif path == "/manifest.webmanifest":
            vary = "Accept-Encoding, Accept-Language"
        asset, cache_control = found
        headers = {"Cache-Control": cache_control, "ETag": asset.etag, "Vary": vary}
        if path == WORKER:
            headers["Service-Worker-Allowed"] = "/"
        if asset.etag in request.headers.get("if-none-match", ""):
            await Response(status_code=304, headers=headers)(scope, receive, send)
            return
        body, encoding = asset.encoded(request.headers.get("accept-encoding", ""))
        if encoding:
            headers["Content-Encoding"] = encoding
        await Response(body, media_type=asset.media_type, headers=headers)(scope, receive, send)


def _version() -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version("bobing")
    except PackageNotFoundError:
        return "0"


class BobingApp(FastAPI):
    """FastAPI, with table WebSockets handed straight to their handler.

    A socket lives for a whole game, and every frame it sends would otherwise pass through
    the whole middleware stack; with a thousand phones connected that is most of the
    server's work (and most of the objects the garbage collector keeps scanning).
    """

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket":
            path: str = scope["path"]
            if path.startswith(ws.PREFIX) and "/" not in path[len(ws.PREFIX) :]:
                code = path[len(ws.PREFIX) :]
                if code:
                    scope["app"] = self
                    scope.setdefault("path_params", {})["code"] = code
                    await ws.table_socket(WebSocket(scope, receive, send), code)
                    return
        await super().__call__(scope, receive, send)

    def openapi(self) -> dict[str, Any]:
        """FastAPI's document, with the command table's models among its components (the
        command route's request body names them: ``tables.protocol.command_schema``)."""
        if self.openapi_schema is None:
            document = super().openapi()
            _, definitions = command_schema()
            document.setdefault("components", {}).setdefault("schemas", {}).update(definitions)
            self.openapi_schema = document
        return self.openapi_schema


def _named_code(request: Request) -> str | None:
    """``tables/CODE`` or ``events/CODE`` for a route under ``/api/tables/{code}`` or
    ``/api/events/{code}``; None for a route without a code."""
    code = request.path_params.get("code")
    if not isinstance(code, str):
        return None
    return code_name(request.url.path.split("/")[2], code)


async def _code_guard(request: Request) -> None:
    """Every look-up by code draws on the address's look-ups (docs/security.md), except a
    seat's claim: its key decides (a right one is a hit and draws on nothing, a wrong one or
    an unknown event is a miss), so a neighbour who used the room's look-ups up never keeps
    a guest with a card from a seat."""
    name = _named_code(request)
    if name is not None and not (request.method == "POST" and request.url.path.endswith("/claim")):
        address = client_address(request)
        await request.app.state.rate_limiter.look_up(address, name)


async def _checkpoints(db: Database, every: float = 2.0) -> None:
    # SQLite's automatic checkpoint would run inside some throw's commit (and fsync there);
    # a passive one in the background keeps the WAL short without delaying anybody.
    while True:
        await asyncio.sleep(every)
        try:
            await db.checkpoint()
        except Exception:  # retried on the next round
            log.warning("background checkpoint failed", exc_info=True)


async def _sweep(service: TableService, limits: Limits) -> None:
    """Delete finished and abandoned tables past their retention (docs/security.md)."""
    while True:
        try:
            now = datetime.now(UTC)
            while True:
                codes = await service.store.sweep(
                    over_before=now - timedelta(days=limits.retention_over_days),
                    idle_before=now - timedelta(days=limits.retention_idle_days),
                )
                for code in codes:
                    service.evict(code)
                if codes:
                    log.info("retention: deleted %d tables", len(codes))
                if len(codes) < 200:
                    break
        except Exception:  # retried on the next round
            log.warning("retention sweep failed", exc_info=True)
        await asyncio.sleep(limits.sweep_every)


async def _rearm(service: TableService) -> None:
    try:
        await service.rearm()
    except Exception:  # a table's next request re-arms it anyway
        log.warning("re-arming the clocks of tables in play failed", exc_info=True)


def create_app(settings: Settings | None = None) -> FastAPI:
    """The table server app; the database is migrated when it starts."""
    settings = settings or Settings()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        db = Database(settings.db_url, schema=settings.db_schema)
        await db.migrate()
        store = EventStore(db)
        broker = get_broker(settings.broker_url)
        await broker.start()
        limits = settings.limits
        service = TableService(store, broker, cache_size=settings.runtime_cache, limits=limits)
        hub = Hub(broker, service, queue_size=settings.send_queue)
        app.state.db = db
        app.state.store = store
        app.state.service = service
        app.state.gatherings = GatheringService(service, GatheringStore(db))
        app.state.hub = hub
        app.state.settings = settings
        app.state.rate_limiter = rate_limiter(
            {
                "create": limits.create_per_minute,
                "join": limits.join_per_minute,
                "analysis": limits.analysis_per_minute,
                "simulation": limits.simulations_per_minute,
                "preview": limits.preview_per_minute,
                "roster": limits.roster_per_minute,
                "photo": limits.photos_per_minute,
                "photo_view": limits.photo_views_per_minute,
                "react": limits.reactions_per_minute,
                "miss": limits.misses_per_minute,
                "lookup": limits.lookups_per_minute,
            },
            settings.broker_url,
            deployment=f"{safe_url(settings.db_url or '')}#{settings.db_schema or ''}",
            secret=await db.secret("address"),
            wait=limits.shared_limits_wait,
        )
        app.state.roster_gate = event_routes.RosterGate(limits)
        app.state.photo_gate = api.PhotoGate(limits)
        app.state.analysis_cache = analysis.AnalysisCache(
            limits=limits, processes=settings.analysis_processes
        )
        app.state.rulebook_cache = analysis.AnalysisCache(
            limits=limits,
            workers=limits.rulebook_workers,
            queue=limits.rulebook_queue,
            name="rulebook",
        )
        # Tables whose clock was running when the server stopped get their timers back (in
        # the background: a server with many tables in play answers at once all the same).
        background = [
            asyncio.create_task(_rearm(service)),
            asyncio.create_task(_sweep(service, limits)),
        ]
        if db.dialect == "sqlite":
            background.append(asyncio.create_task(_checkpoints(db)))
        try:
            yield
        finally:
            for task in background:
                task.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await task
            app.state.analysis_cache.close()
            app.state.rulebook_cache.close()
            app.state.photo_gate.close()
            await service.close()
            await hub.close_all()
            await store.close()
            await broker.close()
            await app.state.rate_limiter.close()
            await db.dispose()

    app = BobingApp(
        title="bobing table server",
        version=_version(),
        summary="博饼 tables over REST and WebSockets; docs/protocol.md describes the WebSocket",
        lifespan=lifespan,
    )
    # Every route with a code first asks whether the address may look codes up now.
    app.include_router(api.router, dependencies=[Depends(_code_guard)])
    app.include_router(ws.router)
    app.include_router(analysis.router)
    app.include_router(event_routes.router, dependencies=[Depends(_code_guard)])

    @app.exception_handler(ApiError)
    async def _api_error(request: Request, exc: ApiError) -> JSONResponse:
        if exc.code in MISSES:
            address = client_address(request)
            limiter = request.app.state.rate_limiter
            name = _named_code(request)
            if exc.code in NO_SUCH_CODE and name is not None:
                limiter.missed(address, name)
            exc = await count_miss(limiter, address) or exc
        if exc.code == "rate_limited" and settings.limits.tarpit_seconds:
            # A client over its limit waits for its answer: a flood from one address slows
            # to the pace of its own connections instead of keeping the server busy.
            await asyncio.sleep(settings.limits.tarpit_seconds)
        return problem_response(request, exc)

    @app.exception_handler(BobingError)
    async def _bobing_error(request: Request, exc: BobingError) -> JSONResponse:
        return problem_response(request, from_bobing(exc))

    @app.exception_handler(RequestValidationError)
    async def _invalid(request: Request, exc: RequestValidationError) -> JSONResponse:
        return problem_response(request, validation_error(exc))

    @app.exception_handler(SQLAlchemyError)
    async def _database(request: Request, exc: SQLAlchemyError) -> JSONResponse:
        log.error("database error on %s: %s", request.url.path, exc)
        error = ApiError("unavailable", "the database did not answer; nothing was changed")
        return problem_response(request, error)

    @app.exception_handler(Exception)
    async def _unexpected(request: Request, exc: Exception) -> JSONResponse:
        log.exception("unexpected error on %s", request.url.path)
        return problem_response(request, ApiError("internal_error", "unexpected server error"))

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException) -> Response:
        if exc.status_code == 404:
            error = ApiError("not_found", f"nothing at {request.url.path!r}", path=request.url.path)
            return problem_response(request, error)
        body = {
            "type": "about:blank",
            "title": str(exc.detail),
            "status": exc.status_code,
            "code": "http_error",
            "detail": str(exc.detail),
        }
        return JSONResponse(body, exc.status_code, media_type=PROBLEM)

    site = StaticSite(settings.static_dir) if settings.static_dir.is_dir() else None
    if site is not None:
        app.mount("/", SpaStatic(site), name="static")
    # JSON (and the charts) compressed on the fly; static files come precompressed (their
    # Content-Encoding makes the middleware pass them by), and table WebSockets never reach it.
    app.add_middleware(GZipMiddleware, minimum_size=1024)
    app.add_middleware(
        RequestLimits,
        limits=settings.transport,
        larger={event_routes.ROSTER_PATH: MAX_ROSTER_BYTES, api.READ_DICE_PATH: MAX_PHOTO_BYTES},
    )
    # Outermost: every response, the request limits' refusals too, carries them.
    policy = content_security_policy(
        site.inline_scripts if site else (), site.inline_styles if site else ()
    )
    app.add_middleware(SecurityHeaders, policy=policy)
    return app


def validation_error(exc: RequestValidationError) -> ApiError:
    """FastAPI's request validation errors as one specific problem."""
    errors = exc.errors()
    first = errors[0] if errors else {}
    if first.get("type") == "json_invalid":
        return ApiError("malformed", "the request body is not valid JSON")
    location = [str(p) for p in first.get("loc", ()) if p != "body"]
    where = ".".join(location) or "body"
    message = str(first.get("msg", "invalid value"))
    if first.get("type") == "model_attributes_type" or first.get("type") == "dict_type":
        return ApiError("malformed", "the request body must be a JSON object")
    return ApiError("invalid_field", f"{where}: {message}", field=where, message=message)
