"""What a phone's first load of a table or the home page carries in JavaScript, as served.

    .venv/bin/python benchmarks/bench_first_screen.py

Reads ``bobing/web/static`` the way the server does (:class:`bobing.web.assets.StaticSite`:
the same brotli the server sends) and prints the modules ``index.html`` preloads (the import
graph of ``js/app.js``) against every module of the app, the baseline measured in the same
run. The difference is what a table's page does not preload: the views fetched when their
route opens (the home page's own page preloads its view) and the game's screens, fetched once
the lobby is complete. Lighthouse's whole picture is ``benchmarks/bench_frontend.py`` (a few
minutes); this takes a second.
"""

from __future__ import annotations

from pathlib import Path

from bobing.web.assets import StaticSite

STATIC = Path(__file__).resolve().parents[1] / "bobing" / "web" / "static"


def main() -> None:
    site = StaticSite(STATIC)
    every = sorted(p for p in site.plain if p.startswith("/js/") and p.endswith(".js"))
    first = site.first_screen

    def sizes(paths: list[str]) -> tuple[float, float]:
        raw = sum(len(site.plain[p].body) for p in paths) / 1024
        sent = sum(len(site.plain[p].encoded("br")[0]) for p in paths) / 1024
        return raw, sent

    raw_all, br_all = sizes(every)
    raw_first, br_first = sizes(first)
    print(f"{'':14}{'modules':>8}{'KiB':>9}{'KiB br':>9}")
    print(f"{'every module':14}{len(every):8}{raw_all:9.1f}{br_all:9.1f}")
    print(f"{'first screen':14}{len(first):8}{raw_first:9.1f}{br_first:9.1f}")
    print(f"first screen / every module (br): {br_first / br_all:.2f}")
    later = sorted(set(every) - set(first))
    print("not preloaded by a table's page:", " ".join(p.removeprefix("/js/") for p in later))


if __name__ == "__main__":
    main()
