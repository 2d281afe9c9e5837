// The hall view for a projector (/e/CODE/hall): every table with its QR (scan it, tap your
// name), its state and 状元 leader, the feed of notable throws, and the 状元王中王: its field,
// its throws and, once over, its ceremony. Designed for a room: the tiles fill the screen at
// any size and count (js/fit.js picks the grid, the QR and the font from the box they have),
// a one-table party gets its leaderboard beside the tile and its prize-giving at the end, and
// nothing is smaller than it must be or scrolls.

import { h, mount, enterOnce } from "../dom.js";
import { t } from "../i18n.js";
import { TIERS } from "../protocol.js";
import { classify, handName, tierName } from "../rulebook.js";
import { diceRow } from "../dice.js";
import { qrSvg } from "../qrcode.js";
import { renderTopbar, announce } from "../ui.js";
import { gong } from "../sound.js";
import { rankingRows, bestName } from "../ranked.js";
import { tileGrid, tileText, listGrid } from "../fit.js";
import { loadInvite, forgetInviteWaiter } from "../invite.js";
import { EventWatcher, claimUrl, feedText, tableLabel, cakesLeft } from "../event.js";
import { statusText, leaderLine } from "../widgets/event_nav.js";
import { fetchYears, yearsSection } from "../years.js";
import { runSheet } from "../programme.js";

/** Notable throws the feed band may show (as many as fit in two lines are shown). */
const FEED_ITEMS = 8;
const FEED_LINES = 2;

/**
 * About how many em a text takes (CJK and full-width characters one each, others about half).
 * @param {any} text
 */
function ems(text) {
  let n = 0;
  for (const ch of String(text)) n += /** @type {number} */ (ch.codePointAt(0)) > 0x2e80 ? 1 : 0.58;
  return n;
}

/**
 * A player's cakes, best tier first: "对堂 1 · 二举 2" (a cakes table's board).
 * @param {Record<string, any>} held
 */
function holdingText(held) {
  const parts = TIERS.filter((tier) => held && held[tier]).map(
    (tier) => `${tierName(tier)} ${held[tier]}`,
  );
  return parts.length ? parts.join(" · ") : "—";
}

/**
 * A table's board rows, best first: ranked by the server's ranking, cakes by tiers held.
 * @param {Record<string, any>} ev
 * @param {Record<string, any>} tb
 */
export function boardRows(ev, tb) {
  const result = tb.result;
  if (!result)
    return tb.players.map((/** @type {any} */ name) => ({
      rank: /** @type {number | null} */ (null),
      player: name,
      best: "",
      prize: "",
    }));
  if (ev.rules && ev.rules.award === "ranked") {
    return rankingRows({ rules: ev.rules, result }).map(
      (/** @type {Record<string, any>} */ row) => ({
        rank: row.rank,
        player: row.player,
        best: bestName(row, ev.rules),
        prize: row.unit ? row.unit.name : t("ranked.no_prize"),
      }),
    );
  }
  const holdings = result.holdings || {};
  const key = (/** @type {string | number} */ name) =>
    TIERS.map((tier) => (holdings[name] && holdings[name][tier]) || 0);
  const names = [...tb.players].sort((a, b) => {
    const ka = key(a);
    const kb = key(b);
    for (let i = 0; i < ka.length; i++) if (ka[i] !== kb[i]) return kb[i] - ka[i];
    return 0;
  });
  const top = result.zhuangyuan && result.zhuangyuan.player;
  return names.map((name, i) => ({
    rank: i + 1,
    player: name,
    best: name === top ? t("event.board_zhuangyuan") : "",
    prize: holdingText(holdings[name]),
  }));
}

export class EventHallView {
  /** @param {HTMLElement} main @param {{code: string, navigate?: Function}} options */
  constructor(main, { code }) {
    this.main = main;
    this.code = code;
    this.watcher = new EventWatcher(code);
    this.onUpdate = () => this.paint();
    this.watcher.addEventListener("update", this.onUpdate);
    loadInvite(this.onUpdate);
    /** @type {import("../years.js").Year[]} 历届 (RULES.md §10.3): the earlier years, read once */
    this.years = [];
    fetchYears(code).then(
      (found) => ((this.years = found.years), this.paint()),
      () => {},
    );
    this.crowned = null;
    this.onResize = () => this.fit();
    window.addEventListener("resize", this.onResize);
  }

  destroy() {
    forgetInviteWaiter(this.onUpdate);
    window.removeEventListener("resize", this.onResize);
    this.watcher.removeEventListener("update", this.onUpdate);
    this.watcher.stop();
    document.body.classList.remove("tv-mode", "hall-mode");
  }

  render() {
    document.body.classList.add("tv-mode", "hall-mode");
    if (!this.started) {
      this.started = true;
      mount(
        this.main,
        h(
          "section",
          { class: "center-card loading" },
          h("div", { class: "boot-moon", "aria-hidden": "true" }),
        ),
      );
      this.watcher.start();
      return;
    }
    this.paint();
  }

  paint() {
    const ev = this.watcher.event;
    if (!ev) return;
    renderTopbar({
      title: ev.name,
      extra: [
        h(
          "a",
          { href: `/e/${ev.code}`, "data-link": "", class: "btn btn-ghost-light btn-small" },
          t("event.nav.dashboard"),
        ),
      ],
    });
    const p = ev.playoff;
    const first =
      p && p.status === "over" && p.result && p.result.ranking ? p.result.ranking[0] : null;
    let screen;
    if (first && first.dice) {
      if (this.crowned !== p.code) {
        this.crowned = p.code;
        gong();
        announce(
          t("event.champion", {
            player: first.player,
            hand: handName(classify(first.dice, ev.rules)),
          }),
        );
      }
      screen = this.ceremony(ev, p, first);
    } else if (
      ev.all_over &&
      !p &&
      !ev.programme && // an evening's sessions: the run-sheet says what comes next
      (ev.tables.length === 1 || ev.rules.award === "ranked")
    ) {
      screen = this.prizeGiving(ev);
    } else {
      screen = this.tables(ev, p);
    }
    mount(this.main, screen);
    this.fit();
  }

  /** The hall's height: the window below the top bar (the hall never scrolls). */
  sizeRoom() {
    const room = /** @type {HTMLElement | null} */ (this.main.querySelector(".ev-room"));
    if (!room) return null;
    const top = room.getBoundingClientRect().top + window.scrollY;
    const style = getComputedStyle(this.main);
    const below = parseFloat(style.paddingBottom) || 0;
    room.style.height = `${Math.max(200, window.innerHeight - top - below)}px`;
    return room;
  }

  /** Lay the screen out for the box it has (also on every resize). */
  fit() {
    const room = this.sizeRoom();
    if (!room) return;
    const tiles = /** @type {HTMLElement | null} */ (room.querySelector(".ev-tiles"));
    if (tiles) this.fitTiles(tiles);
    const giving = /** @type {HTMLElement | null} */ (room.querySelector(".ev-giving-tables"));
    if (giving) {
      const n = giving.children.length;
      const wide = giving.clientWidth / Math.max(1, giving.clientHeight);
      const cols = Math.min(n, Math.max(1, Math.round(Math.sqrt((n * wide) / 1.2))));
      giving.style.setProperty("--cols", String(cols));
      giving.style.setProperty("--rows", String(Math.ceil(n / cols)));
    }
    for (const list of /** @type {NodeListOf<HTMLElement>} */ (
      room.querySelectorAll(".ev-fit-list")
    )) {
      const box = /** @type {HTMLElement} */ (list.parentElement);
      const rows = list.children.length;
      const chars = Number(list.dataset.chars) || 18;
      const maxFont = Math.min(window.innerHeight * 0.06, 120);
      const g = listGrid(rows, box.clientWidth, box.clientHeight, { chars, maxFont });
      list.style.setProperty("--list-rows", String(g.rows));
      list.style.setProperty("--list-cols", String(g.cols));
      list.style.fontSize = `${g.font}px`;
    }
    this.fitFeed(room);
  }

  /**
   * The tiles' grid, QR and font for the text they hold: sized for the text unwrapped, then,
   * where the grid's width wraps a line (a long name, English), for the text as wrapped (its
   * height only grows, so this ends, in three layouts at most).
   * @param {HTMLElement} tiles
   */
  fitTiles(tiles) {
    const n = tiles.children.length;
    const gap = Math.round(Math.min(window.innerWidth, window.innerHeight) * 0.012);
    const bodies = /** @type {NodeListOf<HTMLElement>} */ (tiles.querySelectorAll(".ev-tile-body"));
    let text = tileText(bodies, { unwrapped: true });
    for (let round = 0; round < 3; round++) {
      const grid = tileGrid(n, tiles.clientWidth, tiles.clientHeight, gap, text);
      tiles.style.setProperty("--cols", String(grid.cols));
      tiles.style.setProperty("--rows", String(grid.rows));
      tiles.style.setProperty("--gap", `${gap}px`);
      tiles.style.setProperty("--qr", `${grid.qr}px`);
      tiles.style.setProperty("--tile-font", `${grid.font}px`);
      tiles.style.setProperty("--tile-pad", `${grid.pad}px`);
      tiles.dataset.layout = grid.layout;
      const laidOut = tileText(bodies);
      if (laidOut.ems <= text.ems + 0.01) break;
      text = laidOut;
    }
  }

  /**
   * Show the newest notable throws that fit in the feed band's lines, hide the rest.
   * @param {HTMLElement} room
   */
  fitFeed(room) {
    const items = /** @type {HTMLElement[]} */ ([
      ...room.querySelectorAll(".ev-hall-feed .ev-feed-item"),
    ]);
    for (const item of items) item.hidden = false;
    if (!items.length) return;
    const tops = [...new Set(items.map((item) => item.offsetTop))].sort((a, b) => a - b);
    const last = tops[Math.min(FEED_LINES, tops.length) - 1];
    for (const item of items) item.hidden = item.offsetTop > last;
  }

  /**
   * The hall's headline: the event, and while a table still plays, how to join it. The
   * address warnings are the organiser's (dashboard, cards), not the whole room's.
   * @param {Record<string, any>} ev
   */
  head(ev) {
    return h(
      "header",
      { class: "ev-hall-head" },
      h("h1", { class: "tv-title" }, ev.name),
      ev.all_over ? null : h("p", { class: "ev-hall-hint" }, t("event.hall_hint")),
      yearsSection(this.years, "ev-hall-years"),
      runSheet(ev),
    );
  }

  /**
   * @param {Record<string, any>} ev
   * @param {Record<string, any>} tb
   */
  tile(ev, tb) {
    return h(
      "article",
      { class: ["ev-tile", `ev-${tb.status}`], dataset: { table: tb.number } },
      h(
        "div",
        { class: "ev-tile-qr" },
        qrSvg(claimUrl(ev.code, tb.number), {
          label: t("event.qr_label", { table: tableLabel(tb.number) }),
        }),
      ),
      h(
        "div",
        { class: "ev-tile-body" },
        h("h2", { class: "ev-tile-no" }, tableLabel(tb.number)),
        h(
          "p",
          { class: "ev-tile-status" },
          statusText(tb.status),
          tb.status === "playing" && tb.next
            ? [" · ", h("span", { class: "ev-name" }, t("event.turn_of", { player: tb.next }))]
            : "",
        ),
        h("p", { class: "ev-tile-leader" }, leaderLine(tb, ev.rules)),
        tb.last_throw && tb.last_throw.dice ? diceRow(tb.last_throw.dice, { size: "sm" }) : null,
        h(
          "p",
          { class: "ev-tile-facts" },
          ev.rules && ev.rules.award === "ranked"
            ? t("event.tile_throws", { throws: tb.throw_count })
            : t("event.tile_facts", { throws: tb.throw_count, left: cakesLeft(tb.result) ?? "—" }),
        ),
      ),
    );
  }

  /**
   * @param {Record<string, any>} ev
   * @param {any} p
   */
  tables(ev, p) {
    const one = ev.tables.length === 1 ? ev.tables[0] : null;
    const feed = this.watcher.feed.slice(0, FEED_ITEMS);
    return h(
      "div",
      { class: ["tv ev-hall ev-room", one ? "ev-room-one" : ""] },
      this.head(ev),
      p ? this.playoffPanel(ev, p) : null,
      h(
        "div",
        { class: "ev-room-body" },
        h(
          "div",
          { class: "ev-tiles" },
          ev.tables.map((/** @type {any} */ tb) => this.tile(ev, tb)),
        ),
        one ? this.board(ev, one, t("event.board_live")) : null,
      ),
      h(
        "section",
        { class: "ev-hall-feed", "aria-label": t("event.feed.title") },
        feed.length
          ? h(
              "ol",
              {},
              feed.map((item) => h("li", { class: "ev-feed-item" }, feedText(item))),
            )
          : h("p", {}, t("event.feed.empty")),
      ),
    );
  }

  /**
   * A table's leaderboard (ranked: best throw and the prize it holds; cakes: cakes held).
   * @param {any} ev
   * @param {Record<string, any>} tb
   * @param {import("../dom.js").Child} title
   */
  board(ev, tb, title) {
    const rows = boardRows(ev, tb);
    // the widest row in em: rank, gaps, name, best throw, prize (a row never wraps)
    const chars = Math.max(
      12,
      ...rows.map(
        (/** @type {Record<string, any>} */ row) =>
          4 + ems(row.player) + ems(row.best) + ems(row.prize),
      ),
    );
    return h(
      "section",
      { class: "ev-board", dataset: { table: tb.number } },
      h("h2", { class: "ev-board-title" }, title),
      h(
        "div",
        { class: "ev-fit-box" },
        h(
          "ol",
          { class: "ev-fit-list ev-board-list", dataset: { chars: String(Math.ceil(chars)) } },
          rows.map((/** @type {Record<string, any>} */ row) =>
            h(
              "li",
              { class: ["ev-board-row", tb.next === row.player ? "is-next" : ""] },
              h("span", { class: "ev-board-rank" }, row.rank === null ? "" : String(row.rank)),
              h("span", { class: "ev-board-name ev-name" }, row.player),
              h("span", { class: "ev-board-best" }, row.best),
              h("span", { class: "ev-board-prize" }, row.prize),
            ),
          ),
        ),
      ),
    );
  }

  /**
   * Every table over, no 王中王 to come: who takes which prize, filling the screen.
   * @param {Record<string, any>} ev
   */
  prizeGiving(ev) {
    return h(
      "div",
      { class: "tv ev-hall ev-room ev-prize-giving" },
      h(
        "header",
        { class: "ev-hall-head" },
        h("h1", { class: "tv-title" }, ev.name),
        enterOnce(
          h("p", { class: "seal ev-giving-seal" }, t("event.prize_giving")),
          `giving:${ev.code}`,
        ),
        yearsSection(this.years, "ev-hall-years"),
      ),
      h(
        "div",
        { class: "ev-room-body ev-giving-tables" },
        ev.tables.map((/** @type {Record<string, any>} */ tb) =>
          this.board(
            ev,
            tb,
            ev.tables.length === 1 ? t("event.board_final") : tableLabel(tb.number),
          ),
        ),
      ),
    );
  }

  /**
   * @param {Record<string, any>} ev
   * @param {Record<string, any>} p
   * @param {Record<string, any>} first
   */
  ceremony(ev, p, first) {
    return h(
      "div",
      { class: "tv ev-hall ev-room ev-crowned" },
      h(
        "section",
        { class: "ceremony tv-ceremony ev-ceremony", "aria-live": "polite" },
        h(
          "div",
          { class: "lanterns", "aria-hidden": "true" },
          h("span", { class: "lantern l1" }),
          h("span", { class: "lantern l2" }),
        ),
        h("p", { class: "eyebrow" }, ev.name),
        // the seal and the name rise in once, not again whenever the hall is painted
        enterOnce(h("h1", { class: "seal" }, t("event.wangzhongwang")), `crowned:${p.code}`),
        enterOnce(
          h("p", { class: "winner-name" }, first.player),
          `crowned-name:${p.code}:${first.player}`,
        ),
        h("p", { class: "winner-hand" }, handName(classify(first.dice, ev.rules))),
        diceRow(first.dice, { size: "lg" }),
        p.prize ? h("p", { class: "winner-prize" }, p.prize.name) : null,
      ),
      this.winners(ev),
    );
  }

  /**
   * @param {Record<string, any>} ev
   * @param {Record<string, any>} p
   */
  playoffPanel(ev, p) {
    const throws = new Map();
    for (const row of (p.result && p.result.ranking) || []) throws.set(row.player, row);
    return h(
      "section",
      { class: "ev-playoff-panel" },
      enterOnce(h("h2", { class: "seal" }, t("event.wangzhongwang")), `playoff:${p.code}`),
      h(
        "p",
        {},
        t("event.playoff_status", {
          status: statusText(p.status),
          players: p.players.join(t("list.sep")),
        }),
      ),
      h(
        "ol",
        { class: "ev-playoff-field" },
        p.players.map((/** @type {import("../dom.js").Child} */ name) => {
          const row = throws.get(name);
          return h(
            "li",
            { class: p.next === name ? "is-next" : "" },
            h("span", { class: "ev-name" }, name),
            row && row.dice
              ? [
                  " ",
                  diceRow(row.dice, { size: "sm" }),
                  " ",
                  handName(classify(row.dice, ev.rules)),
                ]
              : null,
          );
        }),
      ),
    );
  }

  /**
   * @param {Record<string, any>} ev
   */
  winners(ev) {
    return h(
      "section",
      { class: "ev-winners" },
      h("h2", {}, t("event.table_winners")),
      h(
        "ul",
        {},
        ev.tables.map((/** @type {Record<string, any>} */ tb) =>
          h("li", {}, `${tableLabel(tb.number)}：${tb.zhuangyuan ? tb.zhuangyuan.player : "—"}`),
        ),
      ),
    );
  }
}
