// Home: join a table by code, or create one (name, mode, rules with a switch editor that always
// states the 状元 order in words, prize counts, named prizes).

import { h, mount } from "../dom.js";
import { t } from "../i18n.js";
import { api, loadPresets } from "../api.js";
import { MODE, TIERS } from "../protocol.js";
import { codeAlphabet, limits } from "../limits.js";
import { tierName } from "../rulebook.js";
import { saveTable, recentTables, rememberRecent, normalizeCode } from "../device_store.js";
import { renderTopbar, icon, showError, toast, oddsNavLink } from "../ui.js";
import { Bowl } from "../dice.js";
import { BAD_NAME } from "../names.js";
import { TableTerms } from "../tableform.js";
import { RuleSwitches } from "../switches.js";

export class HomeView {
  /**
   * @param {HTMLElement} main
   * @param {{navigate: (path: string) => void}} options
   */
  constructor(main, { navigate }) {
    this.main = main;
    this.navigate = navigate;
    this.presets = null;
    this.presetId = "traditional";
    /** @type {string} */
    this.mode = MODE.ONLINE;
    this.prizes = null;
    /** @type {Record<string, any>} */
    this.named = {};
    this.refereeThrower = false;
    this.keepPhotos = false;
    /** @type {string | null} */
    this.tableName = null;
    this.nameEdited = false;
    this.switches = new RuleSwitches({
      onChange: () => this.paintPrizes(),
      onReset: () => this.setPreset(this.presetId),
    });
    this.busy = false;
    this.terms = new TableTerms({ onChange: () => this.paintTerms() });
  }

  destroy() {}

  /** Ranked prizes replace the cakes: their editor hides while ranked is chosen. */
  paintTerms() {
    if (this.cakesBox) this.cakesBox.hidden = this.terms.ranked;
  }

  async render() {
    renderTopbar({
      extra: [
        oddsNavLink(),
        h(
          "a",
          {
            href: "/rules",
            "data-link": "",
            class: "icon-btn",
            "aria-label": t("nav.rules_general"),
            title: t("nav.rules_general"),
          },
          icon("book"),
        ),
      ],
    });
    // the default name follows the language until someone types their own
    if (this.tableName === null || !this.nameEdited) this.tableName = t("home.default_name");
    this.terms.paint(); // in the current language
    mount(this.main, this.page());
    if (!this.presets) {
      try {
        this.presets = await loadPresets();
        this.presetId = this.presets.default || "traditional";
        this.setPreset(this.presetId);
      } catch (err) {
        showError(err);
      }
    } else {
      this.paintRules();
    }
  }

  page() {
    const codeInput = h("input", {
      id: "join-code",
      class: "input code-input",
      type: "text",
      inputmode: "text",
      autocomplete: "off",
      autocapitalize: "characters",
      spellcheck: "false",
      maxlength: limits().code_length,
      placeholder: "K7Q2MX",
      "aria-describedby": "join-code-hint",
    });
    const join = h(
      "form",
      {
        class: "card join-card",
        "aria-labelledby": "join-title",
        onsubmit: (/** @type {Record<string, any>} */ ev) => {
          ev.preventDefault();
          const code = normalizeCode(codeInput.value);
          const alphabet = codeAlphabet();
          const wellFormed = [...code].every((c) => alphabet.includes(c));
          if (code.length !== limits().code_length || !wellFormed) {
            toast(t("home.bad_code", { code: codeInput.value }), { kind: "error" });
            codeInput.focus();
            return;
          }
          this.navigate(`/t/${code}`);
        },
      },
      h("h2", { id: "join-title", class: "card-title" }, t("home.join_title")),
      h("label", { for: "join-code", class: "field-label" }, t("home.code_label")),
      h(
        "div",
        { class: "input-row" },
        codeInput,
        h("button", { type: "submit", class: "btn btn-primary" }, t("home.join")),
      ),
      h("p", { id: "join-code-hint", class: "hint" }, t("home.code_hint")),
    );
    const recent = recentTables();
    return h(
      "div",
      { class: "home" },
      h(
        "section",
        { class: "hero" },
        this.heroBowl(),
        h("h1", { class: "hero-title" }, t("home.title")),
        h("p", { class: "hero-sub" }, t("home.subtitle")),
      ),
      h(
        "div",
        { class: "home-grid" },
        h(
          "div",
          { class: "home-col" },
          join,
          recent.length ? this.recentCard(recent) : null,
          this.eventCard(),
        ),
        this.createForm(),
      ),
    );
  }

  heroBowl() {
    const bowl = new Bowl();
    bowl.show("444411", { seed: 3 });
    return h("div", { class: "hero-bowl", "aria-hidden": "true" }, bowl.el);
  }

  eventCard() {
    return h(
      "section",
      { class: "card event-card", "aria-labelledby": "event-title" },
      h("h2", { id: "event-title", class: "card-title" }, t("home.event_title")),
      h("p", { class: "hint" }, t("home.event_hint")),
      h(
        "a",
        { href: "/e/new", "data-link": "", class: "btn btn-ghost btn-block", id: "new-event" },
        t("home.event_create"),
      ),
    );
  }

  /**
   * @param {any[]} recent
   */
  recentCard(recent) {
    return h(
      "section",
      { class: "card recent", "aria-labelledby": "recent-title" },
      h("h2", { id: "recent-title", class: "card-title" }, t("home.recent")),
      h(
        "ul",
        { class: "recent-list" },
        recent.map((/** @type {Record<string, any>} */ r) =>
          h(
            "li",
            {},
            h(
              "a",
              { href: `/t/${r.code}`, "data-link": "", class: "link" },
              h("span", { class: "mono" }, r.code),
              " ",
              r.name || "",
            ),
          ),
        ),
      ),
    );
  }

  createForm() {
    const nameInput = h("input", {
      id: "table-name",
      class: "input",
      type: "text",
      maxlength: limits().max_table_name,
      value: this.tableName,
      required: true,
      oninput: (/** @type {{target: HTMLInputElement}} */ ev) => {
        this.tableName = ev.target.value;
        this.nameEdited = true;
      },
    });
    const modes = [MODE.ONLINE, MODE.PASS_AND_PLAY, MODE.REFEREE].map((mode) =>
      h(
        "label",
        { class: `mode-option${mode === this.mode ? " is-checked" : ""}` },
        h("input", {
          type: "radio",
          name: "mode",
          value: mode,
          checked: mode === this.mode,
          onchange: () => {
            this.mode = mode;
            for (const el of this.main.querySelectorAll(".mode-option"))
              el.classList.toggle(
                "is-checked",
                /** @type {HTMLInputElement} */ (el.querySelector("input")).checked,
              );
            this.refThrowerRow.hidden = mode !== MODE.REFEREE;
            this.keepPhotosRow.hidden = mode !== MODE.REFEREE;
          },
        }),
        h("span", { class: "mode-name" }, t(`mode.${mode}`)),
        h("span", { class: "mode-hint" }, t(`mode.${mode}.hint`)),
      ),
    );
    this.refThrowerRow = h(
      "label",
      { class: "check-row", hidden: this.mode !== MODE.REFEREE },
      h("input", {
        type: "checkbox",
        checked: this.refereeThrower,
        onchange: (/** @type {{target: HTMLInputElement}} */ ev) =>
          (this.refereeThrower = ev.target.checked),
      }),
      t("home.referee_thrower"),
    );
    this.keepPhotosRow = h(
      "label",
      { class: "check-row", hidden: this.mode !== MODE.REFEREE },
      h("input", {
        type: "checkbox",
        name: "keep_photos",
        checked: this.keepPhotos,
        onchange: (/** @type {Event} */ ev) =>
          (this.keepPhotos = /** @type {HTMLInputElement} */ (ev.target).checked),
      }),
      t("home.keep_photos"),
    );
    const presetSelect = h(
      "select",
      {
        id: "preset",
        class: "input",
        onchange: (/** @type {{target: HTMLInputElement}} */ ev) => this.setPreset(ev.target.value),
      },
      ["traditional", "modern", "jinhua"].map((p) =>
        h("option", { value: p, selected: p === this.presetId }, t(`preset.${p}`)),
      ),
    );
    this.prizeBox = h("div", { class: "prize-editor" });
    this.namedBox = h("div", { class: "named-editor" });
    return h(
      "form",
      {
        class: "card create-card",
        "aria-labelledby": "create-title",
        onsubmit: (/** @type {Record<string, any>} */ ev) => {
          ev.preventDefault();
          this.create();
        },
      },
      h("h2", { id: "create-title", class: "card-title" }, t("home.create_title")),
      h("label", { for: "table-name", class: "field-label" }, t("home.table_name")),
      nameInput,
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("home.mode")),
        h("div", { class: "mode-options" }, modes),
        this.refThrowerRow,
        this.keepPhotosRow,
      ),
      h("label", { for: "preset", class: "field-label" }, t("home.rules")),
      presetSelect,
      this.switches.statement,
      h(
        "details",
        { class: "editor-details" },
        h("summary", {}, t("home.customize")),
        this.switches.el,
      ),
      h(
        "details",
        { class: "editor-details terms-details", open: true },
        h("summary", {}, t("terms.title")),
        this.terms.el,
      ),
      (this.cakesBox = h(
        "details",
        { class: "editor-details", hidden: this.terms.ranked },
        h("summary", {}, t("home.prizes")),
        this.prizeBox,
        h("h3", { class: "sub-title" }, t("home.named_prizes")),
        h("p", { class: "hint" }, t("home.named_hint")),
        this.namedBox,
      )),
      h(
        "button",
        { type: "submit", class: "btn btn-primary btn-big btn-block create-btn" },
        t("home.create"),
      ),
    );
  }

  /**
   * @param {string} id
   */
  setPreset(id) {
    if (!this.presets) return;
    this.presetId = id;
    this.prizes = { ...this.presets.presets[id].prizes };
    this.switches.set(this.presets.presets[id]);
  }

  /** The rule object being edited (a preset's, possibly changed). */
  get rules() {
    return this.switches.rules;
  }

  changed() {
    return this.switches.changed();
  }

  paintRules() {
    this.switches.paint();
  }

  paintPrizes() {
    if (this.prizeBox.childElementCount) return;
    const total = h("p", { class: "hint prize-total" });
    const paintTotal = () => {
      total.textContent = t("rules.prizes_total", {
        n: TIERS.reduce((n, tier) => n + (this.prizes[tier] || 0), 0),
      });
    };
    mount(
      this.prizeBox,
      h(
        "div",
        { class: "prize-grid" },
        TIERS.map((tier) =>
          h(
            "label",
            { class: "prize-field" },
            h("span", { class: "pool-tier" }, tierName(tier)),
            h("input", {
              type: "number",
              class: "input input-num",
              min: tier === "zhuangyuan" ? 1 : 0,
              max: tier === "zhuangyuan" ? 1 : 999,
              value: this.prizes[tier],
              disabled: tier === "zhuangyuan",
              "data-tier": tier,
              onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
                const n = Math.max(0, Math.min(999, Math.floor(Number(ev.target.value) || 0)));
                ev.target.value = String(n);
                this.prizes[tier] = n;
                paintTotal();
              },
            }),
          ),
        ),
      ),
      total,
    );
    paintTotal();
    mount(
      this.namedBox,
      TIERS.map((tier) =>
        h(
          "div",
          { class: "named-row" },
          h("span", { class: "pool-tier" }, tierName(tier)),
          h("input", {
            type: "text",
            class: "input",
            maxlength: limits().max_prize_name,
            placeholder: t("home.prize_name"),
            "aria-label": t("home.prize_name_for", { tier: tierName(tier) }),
            "data-named": tier,
            value: (this.named[tier] && this.named[tier].name) || "",
            onchange: (/** @type {{target: HTMLInputElement}} */ ev) =>
              this.setNamed(tier, "name", ev.target.value.trim()),
          }),
          h("input", {
            type: "number",
            class: "input input-num",
            min: 0,
            placeholder: t("home.prize_value"),
            "aria-label": t("home.prize_value_for", { tier: tierName(tier) }),
            "data-value": tier,
            value: this.named[tier] && this.named[tier].value ? this.named[tier].value : "",
            onchange: (/** @type {{target: HTMLInputElement}} */ ev) =>
              this.setNamed(tier, "value", Math.max(0, Number(ev.target.value) || 0)),
          }),
        ),
      ),
    );
  }

  /**
   * @param {string} tier
   * @param {string} key
   * @param {string | number} value
   */
  setNamed(tier, key, value) {
    /** @type {Record<string, any>} */
    const entry = { name: "", value: 0, ...(this.named[tier] || {}) };
    entry[key] = value;
    this.named[tier] = entry;
  }

  body() {
    /** @type {Record<string, any>} */
    const body = { name: /** @type {string} */ (this.tableName).trim(), mode: this.mode };
    const terms = this.terms.ruleOverrides();
    if (this.rules) {
      if (this.changed() || Object.keys(terms).length) {
        const { prizes: _prizes, ...rest } = this.rules;
        body.rules = { ...rest, ...terms };
      } else {
        body.rules = this.presetId;
      }
      // a ranked table plays for its prize list, not for cakes
      if (!this.terms.ranked) body.prizes = { ...this.prizes };
    }
    const limit = this.terms.timeLimit();
    if (limit !== null) body.time_limit = limit;
    /** @type {Record<string, any>} */
    const named = {};
    for (const [tier, entry] of Object.entries(this.named)) {
      if (entry && entry.name) named[tier] = { name: entry.name, value: entry.value || 0 };
    }
    if (Object.keys(named).length && !this.terms.ranked) body.named_prizes = named;
    if (this.mode === MODE.REFEREE) body.referee_thrower = this.refereeThrower;
    if (this.mode === MODE.REFEREE && this.keepPhotos) body.keep_photos = true;
    return body;
  }

  async create() {
    if (this.busy) return;
    if (!this.terms.check()) return;
    await this.switches.settled(); // the server's reading of the last switch changed
    const body = this.body();
    if (!body.name || BAD_NAME.test(body.name)) {
      toast(body.name ? t("error.bad_name_chars", { name: body.name }) : t("error.invalid_name"), {
        kind: "error",
      });
      return;
    }
    this.busy = true;
    try {
      const made = await api.createTable(body);
      saveTable(made.code, {
        hostToken: made.host_token,
        playToken: made.play_token || null,
        state: made.table,
        events: [],
        commitment: made.table && made.table.fairness ? made.table.fairness.commitment : null,
      });
      rememberRecent(made.code, body.name);
      this.navigate(`/t/${made.code}`);
    } catch (err) {
      showError(err);
    } finally {
      this.busy = false;
    }
  }
}
