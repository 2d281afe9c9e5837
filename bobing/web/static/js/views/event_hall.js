// The hall view for a projector (/e/CODE/hall): every table with its QR (scan it, tap your
// name), its state and 状元 leader, the feed of notable throws, and the 状元王中王: its field,
// its throws and, once over, its ceremony.

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { classify, handName } from "../rulebook.js";
import { diceRow } from "../dice.js";
import { qrSvg } from "../qrcode.js";
import { renderTopbar, announce } from "../ui.js";
import { gong } from "../sound.js";
import { EventWatcher, claimUrl, feedText, tableLabel, cakesLeft } from "../event.js";
import { statusText, leaderLine } from "./event_dash.js";

export class EventHallView {
  /** @param {HTMLElement} main @param {{code: string, navigate?: Function}} options */
  constructor(main, { code }) {
    this.main = main;
    this.code = code;
    this.watcher = new EventWatcher(code);
    this.onUpdate = () => this.paint();
    this.watcher.addEventListener("update", this.onUpdate);
    this.crowned = null;
  }

  destroy() {
    this.watcher.removeEventListener("update", this.onUpdate);
    this.watcher.stop();
    document.body.classList.remove("tv-mode");
  }

  render() {
    document.body.classList.add("tv-mode");
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
      mount(
        this.main,
        h(
          "div",
          { class: "tv tv-over ev-hall" },
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
            h("h1", { class: "seal" }, t("event.wangzhongwang")),
            h("p", { class: "winner-name" }, first.player),
            h("p", { class: "winner-hand" }, handName(classify(first.dice, ev.rules))),
            diceRow(first.dice, { size: "lg" }),
            p.prize ? h("p", { class: "winner-prize" }, p.prize.name) : null,
          ),
          this.winners(ev),
        ),
      );
      return;
    }
    const tiles = ev.tables.map((tb) =>
      h(
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
              ? ` · ${t("event.turn_of", { player: tb.next })}`
              : "",
          ),
          h("p", { class: "ev-tile-leader" }, leaderLine(tb, ev.rules)),
          tb.last_throw && tb.last_throw.dice ? diceRow(tb.last_throw.dice, { size: "sm" }) : null,
          h(
            "p",
            { class: "ev-tile-facts" },
            t("event.tile_facts", { throws: tb.throw_count, left: cakesLeft(tb.result) ?? "—" }),
          ),
        ),
      ),
    );
    const feed = this.watcher.feed.slice(0, 8);
    mount(
      this.main,
      h(
        "div",
        { class: "tv ev-hall" },
        h(
          "header",
          { class: "ev-hall-head" },
          h("h1", { class: "tv-title" }, ev.name),
          h("p", { class: "ev-hall-hint" }, t("event.hall_hint")),
        ),
        p ? this.playoffPanel(ev, p) : null,
        h("div", { class: "ev-tiles" }, tiles),
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
      ),
    );
  }

  playoffPanel(ev, p) {
    const throws = new Map();
    for (const row of (p.result && p.result.ranking) || []) throws.set(row.player, row);
    return h(
      "section",
      { class: "ev-playoff-panel" },
      h("h2", { class: "seal" }, t("event.wangzhongwang")),
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
        p.players.map((name) => {
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

  winners(ev) {
    return h(
      "section",
      { class: "ev-winners" },
      h("h2", {}, t("event.table_winners")),
      h(
        "ul",
        {},
        ev.tables.map((tb) =>
          h("li", {}, `${tableLabel(tb.number)}：${tb.zhuangyuan ? tb.zhuangyuan.player : "—"}`),
        ),
      ),
    );
  }
}
