// The end: the 状元 ceremony, the results (with named prizes), downloads, and the fairness
// reveal with an in-browser check of every throw.

import { h, mount, enterOnce } from "../dom.js";
import { t, lang } from "../i18n.js";
import { TIERS, MODE } from "../protocol.js";
import { api } from "../api.js";
import { diceRow } from "../dice.js";
import { classify, handName, tierName } from "../rulebook.js";
import { logLine } from "../award.js";
import { verifyRecord, usesWebCrypto } from "../fair.js";
import { icon, announce, showError } from "../ui.js";
import { gong } from "../sound.js";
import { canUndo, undoButton } from "../widgets/undo.js";
import { endReason, setsResults } from "../widgets/results.js";
import { photoLink } from "../widgets/photo_link.js";
import { celebrateEnd } from "../celebrations.js";
import { rematchCard } from "../rematch.js";
import { shareSection } from "../share.js";
import { historyCard } from "../history.js";
import { reactionBar } from "../reactions.js";
import { isRanked, PrizeCeremony, rankingTable } from "../ranked.js";

/**
 * The end of an event's table (or its 状元王中王): back to the event, and who goes on to the
 * 状元王中王 when the event holds one (the server's `event_table`).
 * @param {import("../protocol.js").TableState} st
 */
export function eventCard(st) {
  const code = st.event;
  const table = st.event_table;
  return h(
    "section",
    { class: "card event-back-card" },
    table && table.tables > 1
      ? h(
          "p",
          { class: "event-goes-on" },
          table.playoff_player
            ? t("end.event_goes_on", { player: table.playoff_player })
            : t("end.event_none_goes_on"),
        )
      : null,
    h("p", { class: "hint" }, t("end.event_hint", { code })),
    h(
      "a",
      { href: `/e/${code}`, "data-link": "", class: "btn btn-primary event-back" },
      t("end.event_back"),
    ),
  );
}

export class EndPanel {
  /**
   * @param {import("../session.js").TableSession & Record<string, any>} session
   * @param {any} ctx
   */
  constructor(session, ctx, { live = false } = {}) {
    this.session = session;
    this.ctx = ctx;
    this.verifyBox = h("div", { class: "verify-result", "aria-live": "polite" });
    this.el = h("div", { class: "end" });
    const over = /** @type {import("../protocol.js").TableState} */ (session.state); // the game is over: it came
    this.prizeCeremony = isRanked(over) ? new PrizeCeremony(over, { live }) : null;
    this.build();
    if (live && !this.prizeCeremony) {
      gong();
      const st = /** @type {import("../protocol.js").TableState} */ (session.state);
      const z = st.result && st.result.zhuangyuan;
      announce(z ? t("end.announce", { player: z.player }) : t("end.no_winner"));
      celebrateEnd(st);
    }
  }

  update() {
    this.build();
  }

  destroy() {
    if (this.prizeCeremony) this.prizeCeremony.destroy();
  }

  build() {
    const st = /** @type {import("../protocol.js").TableState} */ (this.session.state);
    const code = this.session.code;
    const z = st.result && st.result.zhuangyuan;
    const named = st.named_prizes || {};
    const zName = z && z.dice ? handName(classify(z.dice, st.rules)) : null;
    const ranked = this.prizeCeremony;
    if (ranked) ranked.setReason(endReason(st));
    const ceremony = ranked
      ? ranked.el
      : h(
          "section",
          { class: "ceremony", "aria-labelledby": "ceremony-title" },
          h(
            "div",
            { class: "lanterns", "aria-hidden": "true" },
            h("span", { class: "lantern l1" }),
            h("span", { class: "lantern l2" }),
          ),
          h("p", { class: "eyebrow" }, st.name),
          // it rises once: the ceremony is painted again on every update (reactions too)
          enterOnce(
            h("h1", { id: "ceremony-title", class: "seal" }, t("tier.zhuangyuan")),
            `ceremony:${this.session.code}`,
          ),
          z
            ? [
                h("p", { class: "winner-name" }, z.player),
                zName
                  ? h("p", { class: "winner-hand" }, zName)
                  : h("p", { class: "winner-hand" }, t("end.grabbed")),
                z.dice ? diceRow(z.dice, { size: "md" }) : null,
                z.throw ? h("p", { class: "hint light" }, t("end.won_at", { n: z.throw })) : null,
                named.zhuangyuan
                  ? h(
                      "p",
                      { class: "winner-prize" },
                      t("end.prize_line", { prize: named.zhuangyuan.name }),
                    )
                  : null,
              ]
            : h("p", { class: "winner-name none" }, t("end.no_winner")),
          h("p", { class: "end-reason" }, endReason(st)),
        );
    const prizes = Object.entries(named).filter(([, p]) => p && p.name);
    const results = h(
      "section",
      { class: "card", "aria-labelledby": "results-title" },
      h("h2", { id: "results-title", class: "card-title" }, t("end.results")),
      ranked ? rankingTable(st) : setsResults(st),
      prizes.length
        ? h(
            "div",
            { class: "named-prizes" },
            h("h3", { class: "sub-title" }, t("end.named_prizes")),
            h(
              "ul",
              { class: "prize-list" },
              TIERS.filter((tier) => named[tier]).map((tier) =>
                h(
                  "li",
                  {},
                  h("span", { class: "pool-tier" }, tierName(tier)),
                  " ",
                  named[tier].name,
                  named[tier].value
                    ? h(
                        "span",
                        { class: "hint" },
                        ` · ${t("end.value")} ${t("money.yuan", { n: named[tier].value })}`,
                      )
                    : null,
                ),
              ),
            ),
          )
        : null,
      h(
        "div",
        { class: "btn-row downloads" },
        h(
          "a",
          {
            class: "btn btn-ghost",
            href: `/api/tables/${code}/record`,
            download: `bobing-${code}.json`,
          },
          icon("download"),
          t("end.download_record"),
        ),
        h(
          "a",
          {
            class: "btn btn-ghost",
            href: `/api/tables/${code}/results.csv?lang=${lang()}`,
            download: `bobing-${code}.csv`,
          },
          icon("download"),
          t("end.download_csv"),
        ),
      ),
    );
    const fair = /** @type {Record<string, any>} */ (st.fairness || {});
    const fairness = h(
      "section",
      { class: "card fairness", "aria-labelledby": "fair-title" },
      h("h2", { id: "fair-title", class: "card-title" }, t("fair.title")),
      h("p", { class: "hint" }, st.mode === MODE.REFEREE ? t("fair.referee_hint") : t("fair.hint")),
      h(
        "dl",
        { class: "hexes" },
        h("dt", {}, t("fair.commitment")),
        h("dd", { class: "hex" }, fair.commitment || "—"),
        h("dt", {}, t("fair.seed")),
        h("dd", { class: "hex" }, fair.server_seed || t("fair.not_yet")),
      ),
      h(
        "button",
        {
          type: "button",
          class: "btn btn-primary verify-btn",
          disabled: !fair.server_seed,
          onclick: () => this.verify(),
        },
        icon("check"),
        t("fair.verify"),
      ),
      this.verifyBox,
    );
    const rules = st.rules;
    const items = [];
    for (let i = this.session.events.length - 1; i >= 0; i--) {
      const e = this.session.events[i];
      const line = logLine(e, rules);
      const voided = this.session.isVoided(e);
      if (line)
        items.push(
          h(
            "li",
            {
              class: `log-item log-${e.type}${voided ? " is-voided" : ""}`,
              title: voided ? t("log.voided") : null,
            },
            e.type === "thrown" && e.dice ? diceRow(e.dice, { size: "xs" }) : null,
            h("span", {}, line),
            photoLink(this.session, e),
          ),
        );
    }
    const log = h(
      "details",
      { class: "card log-card" },
      h("summary", { class: "card-title" }, t("end.full_log", { n: this.session.throws().length })),
      h("ol", { class: "log", reversed: true }, items),
    );
    // a referee who typed the game-ending throw wrong takes it back here (the game resumes)
    const undo = this.session.isHost() && canUndo(st) ? undoButton(this.session) : null;
    const actions = h(
      "div",
      { class: "btn-row center" },
      undo,
      h("a", { href: "/", "data-link": "", class: "btn btn-ghost" }, t("end.new_table")),
      h(
        "a",
        { href: `/t/${code}/tv`, "data-link": "", class: "btn btn-ghost" },
        icon("tv"),
        t("nav.tv"),
      ),
    );
    const keep = this.verifyBox;
    this.share = this.share || shareSection(this.session);
    this.reactions = this.reactions || reactionBar(this.session);
    mount(
      this.el,
      ceremony,
      this.reactions,
      // an event's table plays on in its event: a rematch here would leave it
      st.event ? eventCard(st) : rematchCard(this.session, this.ctx.navigate),
      this.share,
      h("div", { class: "end-grid" }, results, fairness),
      log,
      actions,
      historyCard(code),
    );
    this.verifyBox = keep;
  }

  async verify() {
    const box = this.verifyBox;
    mount(box, h("p", { class: "hint" }, t("fair.checking")));
    try {
      const record = await api.record(this.session.code);
      const report = await verifyRecord(record, { seenCommitment: this.session.seenCommitment() });
      const alerts = this.session.nonceAlerts;
      const bad = report.checks.filter((c) => !c.ok);
      const missing = bad.filter((c) => c.missing);
      const ok = report.ok && !alerts.length;
      let summary;
      if (report.referee) summary = report.ok ? t("fair.referee_ok") : t("fair.bad_referee");
      else if (!report.commitmentOk) summary = t("fair.bad_commitment");
      else if (report.earlyCommitmentOk === false) summary = t("fair.bad_early_commitment");
      else if (alerts.length) {
        const throws = alerts
          .filter((/** @type {Record<string, any>} */ a) => a.throw > 0)
          .map((/** @type {Record<string, any>} */ a) => a.throw);
        summary = [
          throws.length
            ? t("fair.bad_nonces", { n: throws.length, list: throws.join(t("list.sep")) })
            : null,
          alerts.some((/** @type {Record<string, any>} */ a) => a.throw === 0)
            ? t("fair.bad_start_nonce")
            : null,
        ]
          .filter(Boolean)
          .join(" ");
      } else if (report.disputes && report.disputes.length)
        summary = t("fair.bad_disputed", {
          list: report.disputes
            .map((/** @type {Record<string, any>} */ d) => d.throw)
            .join(t("list.sep")),
        });
      else if (missing.length) summary = t("fair.bad_missing", { n: missing.length });
      else if (report.start && !report.start.ok) summary = t("fair.bad_start");
      else if (bad.length) summary = t("fair.bad_throws", { n: bad.length });
      else if (!report.ok) summary = t("fair.bad_entries");
      else
        summary = report.checks.length
          ? t(report.start ? "fair.ok_start" : "fair.ok", { n: report.checks.length })
          : t("fair.ok_commitment");
      const rows = report.start ? [report.start, ...report.checks] : report.checks;
      const seen = this.session.seenReport();
      mount(
        box,
        h(
          "p",
          { class: `verdict ${ok ? "ok" : "bad"}`, role: "status" },
          ok ? icon("check") : icon("close"),
          summary,
        ),
        h(
          "ul",
          { class: "verify-facts" },
          h("li", {}, report.commitmentOk ? t("fair.fact_commitment") : t("fair.bad_commitment")),
          report.earlyCommitmentOk === null
            ? null
            : h(
                "li",
                {},
                report.earlyCommitmentOk ? t("fair.fact_early") : t("fair.bad_early_commitment"),
              ),
          report.referee
            ? null
            : h(
                "li",
                {},
                Object.keys(this.session.sent).length
                  ? t("fair.fact_nonces", {
                      n:
                        Object.keys(this.session.sent).length -
                        alerts.filter((/** @type {Record<string, any>} */ a) => a.throw > 0).length,
                    })
                  : t("fair.fact_no_nonces"),
              ),
          h("li", {}, t(usesWebCrypto() ? "fair.fact_webcrypto" : "fair.fact_fallback")),
        ),
        rows.length
          ? h(
              "details",
              { class: "verify-details" },
              h("summary", {}, t("fair.details", { n: report.checks.length })),
              h(
                "ol",
                { class: "checks" },
                rows.map((c) =>
                  h(
                    "li",
                    { class: c.ok ? "ok" : "bad" },
                    h(
                      "span",
                      { class: "check-no" },
                      c.throw === 0 ? t("fair.start_dice") : t("play.throw_no", { n: c.throw }),
                    ),
                    " ",
                    c.missing ? t("fair.missing_entry") : h("code", {}, c.expected),
                    " ",
                    c.ok ? "✓" : t("fair.recorded", { dice: c.recorded || "—" }),
                  ),
                ),
              ),
            )
          : h("p", { class: "hint" }, t("fair.no_server_dice")),
        report.referee
          ? null
          : h(
              "p",
              { class: "hint seen-download" },
              h(
                "a",
                {
                  class: "btn btn-ghost btn-small",
                  href: URL.createObjectURL(
                    new Blob([JSON.stringify(seen, null, 1)], { type: "application/json" }),
                  ),
                  download: `bobing-${this.session.code}-seen.json`,
                },
                icon("download"),
                t("fair.download_seen"),
              ),
              " ",
              t("fair.seen_hint"),
            ),
      );
    } catch (err) {
      mount(box, h("p", { class: "verdict bad" }, t("fair.failed")));
      showError(err);
    }
  }
}
