// The big screen (/t/CODE/tv): read-only, large type, for a TV or a projector.

import { h, mount, enterOnce } from "../dom.js";
import { t } from "../i18n.js";
import { EVENT, STATUS, PHASE } from "../protocol.js";
import { Bowl, diceRow } from "../dice.js";
import { classify, handName } from "../rulebook.js";
import { describeThrow, awardLines, leaderText, setLabel } from "../award.js";
import { qrSvg } from "../qrcode.js";
import { renderTopbar, announce, icon } from "../ui.js";
import { rattle, settle, gong } from "../sound.js";
import { poolView, holdingsTable, shownKey, onlyZhuangyuanText } from "../widgets/board.js";
import { forgetInviteWaiter, inviteUrl, loadInvite } from "../invite.js";
import { recentThrows, zhuangyuanRace } from "../tv_race.js";
import { celebrateThrow, celebrateEnd } from "../celebrations.js";
import { setsResults, endReason } from "../widgets/results.js";
import { CountdownBar } from "../countdown.js";
import { isRanked, paintLeaderboard, PrizeCeremony, rankingTable } from "../ranked.js";
import { fitToScreen } from "../fit.js";

/** From this many people on, the end screen lays its lists out in columns. */
const MANY = 12;

export class TvView {
  /**
   * @param {any} main
   * @param {import("../session.js").TableSession & Record<string, any>} session
   * @param {any} ctx
   */
  constructor(main, session, ctx) {
    this.main = main;
    this.session = session;
    this.ctx = ctx;
    this.bowl = new Bowl({ big: true });
    this.pending = null;
    this.shown = null;
    this.countdown = new CountdownBar(session, { big: true });
    this.prizeCeremony = null;
    this.onUpdate = (/** @type {CustomEvent} */ ev) => {
      try {
        this.apply(ev.detail);
      } catch (err) {
        console.warn(err);
        this.paint();
      }
    };
    session.addEventListener("update", this.onUpdate);
    // The QR carries the invite address (the LAN's, not the 127.0.0.1 the TV may be opened
    // on): the rule of every QR (invite.js); painted again once the address is known.
    this.onInvite = () => {
      if (this.main.isConnected && !this.pending) this.paint();
    };
    loadInvite(this.onInvite);
    this.onResize = () => this.fitOver();
    window.addEventListener("resize", this.onResize);
  }

  /** The end screen fits the window (columns for many people, then scaling): nobody scrolls
   * a TV. */
  fitOver() {
    const over = this.main.querySelector(".tv-over");
    if (over) fitToScreen(over);
  }

  destroy() {
    forgetInviteWaiter(this.onInvite);
    this.session.removeEventListener("update", this.onUpdate);
    window.removeEventListener("resize", this.onResize);
    this.countdown.destroy();
    if (this.prizeCeremony) this.prizeCeremony.destroy();
    document.body.classList.remove("tv-mode");
  }

  render() {
    document.body.classList.add("tv-mode");
    /** @type {string} */
    this.topKey = "";
    this.topbar();
    this.paint();
  }

  topbar() {
    const st = this.session.state;
    const key = `${st ? st.name : ""}|${this.session.status}`;
    if (key === this.topKey) return;
    this.topKey = key;
    renderTopbar({
      title: st ? st.name : this.session.code,
      conn: this.session.status,
      extra: [
        h(
          "a",
          {
            href: `/t/${this.session.code}`,
            "data-link": "",
            class: "icon-btn",
            "aria-label": t("nav.back_to_table"),
            title: t("nav.back_to_table"),
          },
          icon("back"),
        ),
      ],
    });
  }

  /** @param {{events: import("../protocol.js").LogEvent[], live: boolean}} detail */
  apply({ events, live }) {
    this.topbar();
    const thrown = events.filter(
      (/** @type {Record<string, any>} */ e) =>
        e.type === EVENT.THROWN && !this.session.isVoided(e),
    );
    const last = thrown[thrown.length - 1];
    if (live && events.some((/** @type {Record<string, any>} */ e) => e.type === EVENT.ZHUANGYUAN))
      gong();
    if (!(live && last)) {
      if (!this.pending) this.paint({ live });
      return;
    }
    // no queue: a newer throw cuts a stale tumble short; the end follows its last throw at once
    this.pending = last;
    this.paint({ rolling: true });
    const behind = this.bowl.rolling;
    if (!behind) rattle(0.8);
    this.bowl
      .roll(last.dice ? last.dice.split("").map(Number) : null, {
        seed: last.throw,
        minMs: 900,
        quick: behind,
        onSettle: settle,
      })
      .then(() => {
        if (this.pending !== last) return;
        this.shown = shownKey(last);
        const st = /** @type {import("../protocol.js").TableState} */ (this.session.state); // a throw came
        const d = describeThrow(last, st.rules);
        announce(`${last.player}：${d.name}`);
        celebrateThrow(last, st);
        if (st.status === STATUS.OVER) celebrateEnd(st);
        this.pending = null;
        this.paint({ live: true });
      });
  }

  paint({ rolling = false, live = false } = {}) {
    const st = this.session.state;
    if (!st) {
      mount(
        this.main,
        h(
          "section",
          { class: "center-card loading" },
          h("div", { class: "boot-moon", "aria-hidden": "true" }),
          h("p", {}, t("table.connecting", { code: this.session.code })),
        ),
      );
      return;
    }
    const url = inviteUrl(this.session.code);
    const qr = h(
      "div",
      { class: "tv-qr" },
      qrSvg(url, { label: t("lobby.qr_label", { code: this.session.code }) }),
      h("p", { class: "tv-code" }, this.session.code),
    );
    if (st.status === STATUS.LOBBY) {
      mount(
        this.main,
        h(
          "div",
          { class: "tv tv-lobby" },
          h(
            "div",
            { class: "tv-hero" },
            h("p", { class: "eyebrow" }, t("tv.scan")),
            h("h1", { class: "tv-title" }, st.name),
            this.countdown.el,
            qr,
          ),
          h(
            "ol",
            { class: "tv-seats" },
            (st.players || []).map((/** @type {Record<string, any>} */ p) =>
              h("li", {}, h("span", { class: "seat-no" }, String(p.seat)), p.name),
            ),
          ),
        ),
      );
      return;
    }
    const many = (st.players || []).length > MANY;
    if (st.status === STATUS.OVER && isRanked(st)) {
      if (!this.prizeCeremony) this.prizeCeremony = new PrizeCeremony(st, { live, big: true });
      this.prizeCeremony.setReason(endReason(st));
      mount(
        this.main,
        h(
          "div",
          { class: ["tv tv-over tv-ranked", many ? "tv-many" : ""] },
          this.prizeCeremony.el,
          h("section", { class: "card" }, rankingTable(st)),
        ),
      );
      this.fitOver();
      return;
    }
    if (this.prizeCeremony && st.status !== STATUS.OVER) {
      this.prizeCeremony.destroy();
      this.prizeCeremony = null;
    }
    if (st.status === STATUS.OVER) {
      const z = st.result && st.result.zhuangyuan;
      mount(
        this.main,
        h(
          "div",
          { class: ["tv tv-over", many ? "tv-many" : ""] },
          h(
            "section",
            { class: "ceremony tv-ceremony" },
            h(
              "div",
              { class: "lanterns", "aria-hidden": "true" },
              h("span", { class: "lantern l1" }),
              h("span", { class: "lantern l2" }),
            ),
            enterOnce(h("h1", { class: "seal" }, t("tier.zhuangyuan")), `tv:${this.session.code}`),
            z
              ? h("p", { class: "winner-name" }, z.player)
              : h("p", { class: "winner-name none" }, t("end.no_winner")),
            z && z.dice
              ? h("p", { class: "winner-hand" }, handName(classify(z.dice, st.rules)))
              : null,
            z && z.dice ? diceRow(z.dice, { size: "lg" }) : null,
          ),
          h("section", { class: "card" }, setsResults(st)),
          h("div", { class: "tv-over-side" }, zhuangyuanRace(this.session), qr),
        ),
      );
      this.fitOver();
      return;
    }
    if (!this.bowl.rolling && this.shown !== shownKey(st.last_throw)) {
      const last = st.last_throw;
      this.shown = shownKey(last);
      if (!last) this.bowl.show([], {});
      else if (!last.dice) this.bowl.show([], { seed: last.throw, stamp: t("tiaohou.short") });
      else this.bowl.show(last.dice, { seed: last.throw });
    }
    const last = st.last_throw;
    let award = null;
    if (last && !rolling) {
      const details = this.session.throwDetails(last.throw);
      const thrown = details.thrown || last;
      const d = describeThrow(thrown, st.rules);
      award = h(
        "div",
        { class: "tv-award" },
        h("p", { class: "tv-who" }, t("play.threw", { n: last.throw, player: last.player })),
        h("p", { class: "tv-hand" }, d.name),
        h("p", { class: "tv-why" }, d.why),
        h(
          "p",
          { class: "tv-lines" },
          awardLines({ ...details, thrown }, st).join(t("list.sentence")),
        ),
      );
    }
    let next = "";
    if (st.status === STATUS.PAUSED) next = t("play.paused");
    else if (st.phase === PHASE.GRAB) next = t("play.grab_phase");
    else if (st.next) next = t("tv.next", { player: st.next, n: st.turn });
    const fin = st.final_round;
    if (fin && fin.last_thrower && !rolling)
      next = `${next} · ${t("play.final_until", { player: fin.last_thrower })}`;
    const set = setLabel(st);
    if (set) next = next ? `${set} · ${next}` : set;
    const leader = leaderText(st.result, st.rules);
    let right;
    if (isRanked(st)) {
      const board = h("section", { class: "card tv-board" });
      paintLeaderboard(board, st, { compact: (st.players || []).length > 12 });
      right = h(
        "div",
        { class: "tv-right" },
        h("div", { class: "tv-top tv-top-ranked" }, qr),
        board,
      );
    } else {
      right = h(
        "div",
        { class: "tv-right" },
        h(
          "div",
          { class: "tv-top" },
          h(
            "section",
            { class: "card tv-leader" },
            h("h2", { class: "card-title" }, t("play.leader")),
            leader
              ? h("p", { class: "leader-name" }, leader)
              : h("p", { class: "hint" }, t("play.no_leader")),
          ),
          qr,
        ),
        h(
          "section",
          { class: "card" },
          h("h2", { class: "card-title" }, t("play.pool")),
          poolView(st),
        ),
        h("section", { class: "card" }, holdingsTable(st)),
      );
    }
    mount(
      this.main,
      h(
        "div",
        { class: `tv tv-play${(st.players || []).length > 12 ? " tv-crowd" : ""}` },
        h("h1", { class: "sr-only" }, st.name),
        h(
          "div",
          { class: "tv-left" },
          this.countdown.el,
          h("p", { class: "tv-next" }, rolling ? t("play.rolling") : next),
          onlyZhuangyuanText(st)
            ? h("p", { class: "only-zhuangyuan tv-only-zhuangyuan" }, onlyZhuangyuanText(st))
            : null,
          this.bowl.el,
          award || h("div", { class: "tv-award" }),
        ),
        right,
        h(
          "div",
          { class: "tv-third" },
          isRanked(st) ? null : zhuangyuanRace(this.session),
          recentThrows(this.session),
        ),
      ),
    );
  }
}
