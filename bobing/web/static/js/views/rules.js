// 规则: a table's (or a preset's) rules in plain words — the 状元 order, every switch, the
// prizes, and example throws with what they win.

import { h, mount } from "../dom.js";
import { prizeList } from "../ranked.js";
import { t } from "../i18n.js";
import { loadPresets } from "../api.js";
import { TIERS } from "../protocol.js";
import { diceRow } from "../dice.js";
import {
  EXAMPLE_THROWS,
  diceText,
  loadRulebook,
  handName,
  why,
  effect,
  tierName,
} from "../rulebook.js";
import { renderTopbar, icon, showError, oddsLink } from "../ui.js";

export class RulesView {
  /**
   * @param {HTMLElement} main
   * @param {{session: import("../session.js").TableSession | null, preset: string,
   *   navigate: (path: string) => void}} options
   */
  constructor(main, { session, preset, navigate }) {
    this.main = main;
    this.session = session;
    this.preset = preset;
    this.navigate = navigate;
    this.rules = null;
    this.onUpdate = () => {
      if (!this.rules && /** @type {import("../session.js").TableSession} */ (this.session).state)
        this.render();
    };
    if (session) session.addEventListener("update", this.onUpdate);
  }

  destroy() {
    if (this.session) this.session.removeEventListener("update", this.onUpdate);
  }

  async render() {
    const st = this.session && this.session.state;
    const back = this.session
      ? h(
          "a",
          {
            href: `/t/${this.session.code}`,
            "data-link": "",
            class: "icon-btn",
            "aria-label": t("nav.back_to_table"),
            title: t("nav.back_to_table"),
          },
          icon("back"),
        )
      : null;
    renderTopbar({
      title: st ? st.name : t("rules.page_title"),
      conn: this.session ? this.session.status : null,
      extra: back ? [back] : [],
    });
    let rules;
    let named = {};
    if (this.session) {
      if (!st) {
        mount(
          this.main,
          h(
            "p",
            { class: "center-card loading" },
            t("table.connecting", { code: this.session.code }),
          ),
        );
        return;
      }
      rules = st.rules;
      named = st.named_prizes || {};
    } else {
      try {
        const presets = await loadPresets();
        rules = presets.presets[this.preset] || presets.presets[presets.default];
      } catch (err) {
        showError(err);
        return;
      }
    }
    this.rules = rules;
    let book;
    try {
      book = await loadRulebook(rules);
    } catch (err) {
      showError(err);
      return;
    }
    if (this.rules !== rules) return; // a newer render took over
    mount(this.main, this.page(rules, named, st, book));
  }

  /**
   * @param {Record<string, any>} rules
   * @param {Record<string, any>} named
   * @param {Record<string, any> | null} st
   * @param {import("../rulebook.js").Rulebook} book
   */
  page(rules, named, st, book) {
    const prizes = TIERS.filter((tier) => (rules.prizes || {})[tier]);
    const total = prizes.reduce((n, tier) => n + rules.prizes[tier], 0);
    const presetLinks = this.session
      ? null
      : h(
          "nav",
          { class: "preset-tabs", "aria-label": t("rules.presets") },
          ["traditional", "modern", "jinhua"].map((p) =>
            h(
              "a",
              {
                href: `/rules/${p}`,
                "data-link": "",
                class: `tab${p === rules.preset ? " is-active" : ""}`,
                "aria-current": p === rules.preset ? "page" : null,
              },
              t(`preset.${p}`),
            ),
          ),
        );
    return h(
      "article",
      { class: "rules-page" },
      h("p", { class: "eyebrow" }, t("rules.page_title")),
      h(
        "h1",
        { class: "title" },
        st ? t("rules.of_table", { name: st.name }) : t(`preset.${rules.preset}`),
      ),
      presetLinks,
      h("p", { class: "lede" }, t("rules.intro")),
      oddsLink(this.session ? `/t/${this.session.code}/odds` : `/odds/${rules.preset}`),
      h(
        "section",
        { class: "card", "aria-labelledby": "r-order" },
        h("h2", { id: "r-order", class: "card-title" }, t("rules.order_title")),
        h("p", { class: "hint" }, t("rules.order_hint")),
        h(
          "ol",
          { class: "rank-list" },
          book.ranking.map((/** @type {import("../dom.js").Child} */ line) => h("li", {}, line)),
        ),
        h("p", { class: "hint" }, t("rules.tie_hint")),
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "r-prizes" },
        h("h2", { id: "r-prizes", class: "card-title" }, t("rules.prizes_title")),
        // a ranked table plays for its prize list (RULES.md §8.2), not for cakes
        rules.award === "ranked"
          ? [h("p", {}, book.meanings.award), prizeList(st && st.rules === rules ? st : { rules })]
          : null,
        rules.award === "ranked" ? null : h("p", {}, t("rules.prizes_total", { n: total })),
        rules.award === "ranked"
          ? null
          : h(
              "ul",
              { class: "prize-list" },
              prizes.map((tier) =>
                h(
                  "li",
                  {},
                  h("span", { class: "pool-tier" }, tierName(tier)),
                  h("span", { class: "hint" }, ` ${t(`tier.${tier}.title`)} · `),
                  t("rules.prize_count", { n: rules.prizes[tier] }),
                  named[tier]
                    ? h(
                        "span",
                        { class: "named" },
                        ` — ${named[tier].name}${named[tier].value ? ` (${named[tier].value})` : ""}`,
                      )
                    : null,
                ),
              ),
            ),
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "r-switches" },
        h("h2", { id: "r-switches", class: "card-title" }, t("rules.switches_title")),
        h(
          "dl",
          { class: "switches" },
          book.lines.map(([label, meaning]) => [h("dt", {}, label), h("dd", {}, meaning)]),
        ),
      ),
      h(
        "section",
        { class: "card", "aria-labelledby": "r-examples" },
        h("h2", { id: "r-examples", class: "card-title" }, t("rules.examples_title")),
        h(
          "ul",
          { class: "examples" },
          EXAMPLE_THROWS.map((dice) => book.throws[/** @type {string} */ (diceText(dice))]).map(
            (c) =>
              h(
                "li",
                { class: "example" },
                diceRow(c.dice),
                h(
                  "div",
                  { class: "example-text" },
                  h("strong", { class: "example-name" }, handName(c)),
                  h("span", { class: "example-why" }, why(c)),
                  h("span", { class: "example-effect" }, effect(c)),
                ),
              ),
          ),
        ),
        h("p", { class: "hint" }, t("rules.tiaohou_note", { effect: book.meanings.tiaohou })),
      ),
    );
  }
}
