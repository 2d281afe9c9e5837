// @ts-check
// The rule-switch editor: the 状元 order (reorderable, stated in words), every switch with a
// plain-words hint, 追 and the 对堂 patterns. The home page's create form and the organiser's
// event form both use it; the rule object it edits is always complete (a preset's, changed).
// The switches, their values and words are the server's rulebook (POST /api/rulebook): a new
// switch appears here without a line of JavaScript.

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { loadRulebook, tierName, handLabel } from "./rulebook.js";
import { icon, toast } from "./ui.js";

/** Switches the forms edit in a section of their own (what the table plays for). */
const EDITED_APART = new Set(["award"]);

/**
 * @param {import("./rulebook.js").Rules} value
 */
export function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

export class RuleSwitches {
  /**
   * `onChange()` runs after every edit (and after `set`), once the editor is painted again;
   * `onReset()` is the reset button (by default: back to the base's switches).
   */
  /** @param {{onChange?: () => void, onReset?: (() => void) | null}} [options] */
  constructor({ onChange = () => {}, onReset = null } = {}) {
    this.onChange = onChange;
    this.onReset = onReset || (() => this.set(this.base));
    this.rules = null;
    this.base = null;
    /** The server's reading of `rules` (its switches, meanings and 状元 order). */
    /** @type {import("./rulebook.js").Rulebook | null} */
    this.book = null;
    this.painting = Promise.resolve();
    /** The question to the server under way (settled, never rejected), if any. */
    this.asking = Promise.resolve();
    this.generation = 0;
    this.el = h("div", { class: "switch-editor" });
    this.statement = h("p", { class: "order-statement", "aria-live": "polite" });
  }

  /**
   * Edit a copy of `rules`; `base` (a preset's rules) is what "reset" returns to.
   * @param {any} rules
   */
  set(rules, base = rules) {
    this.base = clone(base);
    this.rules = clone(rules);
    return this.paint();
  }

  /** Whether the switches differ from the base (the prize counts are not switches). */
  changed() {
    if (!this.rules || !this.base) return false;
    const mine = { ...this.rules, prizes: this.base.prizes };
    return JSON.stringify(mine) !== JSON.stringify(this.base);
  }

  /** Resolves once `rules` holds the server's reading of the last edit and is painted. */
  settled() {
    return this.painting;
  }

  /**
   * Ask the server what the edited rules are (the 状元 order brought in line with the other
   * switches), then paint. An edit it refuses is undone, with its reason.
   *
   * One question at a time: edits made while one is out wait for its answer, and only the
   * latest of them is asked next, with every edit in it. (Six prices tabbed through sent six
   * questions at once; a busy server turned the last away, and its answer undid the prices.)
   */
  paint() {
    if (!this.rules) return this.painting;
    const generation = ++this.generation;
    const asked = this.asking.then(() =>
      generation === this.generation ? this.ask(generation) : undefined,
    );
    this.asking = asked.catch(() => {});
    this.painting = asked;
    return asked;
  }

  /** @param {number} generation  the edit asked about (a later one makes the answer moot) */
  ask(generation) {
    const draft = clone(/** @type {import("./rulebook.js").Rules} */ (this.rules));
    return loadRulebook(draft).then(
      (book) => {
        if (generation !== this.generation) return;
        this.book = book;
        this.rules = { ...clone(book.rules), prizes: draft.prizes };
        this.draw();
      },
      (err) => {
        if (generation !== this.generation) return;
        toast(err.message, { kind: "error" });
        // Busy or offline is no verdict on the edit: it stays, and the next edit (or the
        // table's creation) asks again. A refused edit is undone.
        if (err.code === "rate_limited" || err.code === "busy" || err.code === "network") return;
        this.rules = clone(
          this.book ? /** @type {import("./rulebook.js").Rulebook} */ (this.book).rules : this.base,
        );
        if (this.book) this.draw();
      },
    );
  }

  draw() {
    const rules = this.rules;
    const book = /** @type {import("./rulebook.js").Rulebook} */ (this.book); // drawn once read
    mount(
      this.statement,
      h("span", { class: "label" }, t("rules.order_label")),
      " ",
      book.order,
      this.changed() ? h("span", { class: "badge" }, t("home.customized")) : null,
    );
    const rows = [this.orderRow(rules)];
    for (const info of book.switches) {
      if (info.applies && !EDITED_APART.has(info.name)) rows.push(this.switchRow(rules, info));
      if (info.name === "money" && rules.money === "pay" && rules.values)
        rows.push(this.valuesRow(rules));
    }
    rows.push(this.chaseRow(rules), this.patternsRow(rules));
    rows.push(
      h(
        "button",
        { type: "button", class: "btn btn-ghost btn-small", onclick: () => this.onReset() },
        t("home.reset_rules"),
      ),
    );
    this.mountKeepingFocus(rows);
    this.onChange();
  }

  /**
   * Paint `rows`, keeping the field the user is on: an answer to an earlier edit that
   * lands while they are in a text field (or have just selected its text) must not take the
   * field, its selection or the next key pressed away. Kept fields are marked `data-keep`
   * and their handlers read `this.rules`, so the old element serves the new rules.
   * @param {string | number | boolean | any[] | Node | null | undefined} rows
   */
  mountKeepingFocus(rows) {
    const active = document.activeElement;
    const key =
      active instanceof HTMLElement && this.el.contains(active) ? active.dataset.keep : "";
    mount(this.el, rows);
    if (!key || !(active instanceof HTMLElement)) return;
    const fresh = this.el.querySelector(`[data-keep="${key}"]`);
    if (!fresh) return;
    fresh.replaceWith(active);
    active.focus();
  }

  /**
   * @param {Record<string, any>} rules
   */
  orderRow(rules) {
    return h(
      "div",
      { class: "switch-row" },
      h(
        "span",
        { class: "field-label" },
        /** @type {import("./rulebook.js").Rulebook} */ (this.book).labels.zhuangyuan_order,
      ),
      h(
        "ol",
        { class: "order-editor" },
        rules.zhuangyuan_order.map(
          (
            /** @type {string} */ hand,
            /** @type {number} */ i,
            /** @type {string | any[]} */ order,
          ) =>
            h(
              "li",
              {},
              h("span", { class: "order-name" }, handLabel(hand)),
              h(
                "button",
                {
                  type: "button",
                  class: "icon-btn small",
                  disabled: i === 0,
                  "aria-label": t("home.order_up", { hand: handLabel(hand) }),
                  onclick: () => this.moveHand(i, -1),
                },
                icon("up"),
              ),
              h(
                "button",
                {
                  type: "button",
                  class: "icon-btn small",
                  disabled: i === order.length - 1,
                  "aria-label": t("home.order_down", { hand: handLabel(hand) }),
                  onclick: () => this.moveHand(i, 1),
                },
                icon("down"),
              ),
            ),
        ),
      ),
      h(
        "ul",
        { class: "rank-list small" },
        /** @type {import("./rulebook.js").Rulebook} */ (this.book).ranking.map((line) =>
          h("li", {}, line),
        ),
      ),
    );
  }

  /**
   * @param {Record<string, any>} rules
   * @param {Record<string, any>} info
   */
  switchRow(rules, info) {
    const { name } = info;
    const id = `sw-${name}`;
    const select = h(
      "select",
      {
        id,
        class: "input",
        "data-switch": name,
        onchange: (/** @type {{target: HTMLSelectElement}} */ ev) => {
          rules[name] = info.options[ev.target.selectedIndex].value;
          this.paint().then(() => {
            const again = this.el.querySelector(`#${id}`);
            if (again) again.focus();
          });
        },
      },
      info.options.map((/** @type {Record<string, any>} */ option) =>
        h(
          "option",
          { value: String(option.value), selected: rules[name] === option.value },
          option.label,
        ),
      ),
    );
    return h(
      "div",
      { class: "switch-row" },
      h("label", { for: id, class: "field-label" }, info.label),
      select,
      h("p", { class: "hint" }, info.meaning),
    );
  }

  /**
   * @param {Record<string, any>} rules
   */
  chaseRow(rules) {
    const chaseOn = Boolean(rules.chase);
    return h(
      "div",
      { class: "switch-row" },
      h(
        "label",
        { class: "check-row" },
        h("input", {
          type: "checkbox",
          id: "sw-chase",
          checked: chaseOn,
          onchange: (/** @type {{target: HTMLInputElement}} */ ev) =>
            this.setChase(ev.target.checked),
        }),
        /** @type {import("./rulebook.js").Rulebook} */ (this.book).labels.chase,
      ),
      chaseOn
        ? h(
            "div",
            { class: "chase-editor" },
            h(
              "div",
              { class: "check-grid" },
              /** @type {import("./rulebook.js").Rulebook} */ (this.book).chase.tiers.map((tier) =>
                h(
                  "label",
                  { class: "check-row" },
                  h("input", {
                    type: "checkbox",
                    checked: rules.chase.tiers.includes(tier),
                    onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
                      const tiers = new Set(rules.chase.tiers);
                      if (ev.target.checked) tiers.add(tier);
                      else tiers.delete(tier);
                      rules.chase.tiers = /** @type {import("./rulebook.js").Rulebook} */ (
                        this.book
                      ).chase.tiers.filter((x) => tiers.has(x));
                      if (!rules.chase.tiers.length) rules.chase = null;
                      this.paint();
                    },
                  }),
                  tierName(tier),
                ),
              ),
            ),
            h(
              "select",
              {
                class: "input",
                "aria-label": t("home.chase_from"),
                onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
                  rules.chase.from = ev.target.value;
                  this.paint();
                },
              },
              /** @type {import("./rulebook.js").Rulebook} */ (this.book).chase.from.map((option) =>
                h(
                  "option",
                  { value: option.value, selected: rules.chase.from === option.value },
                  option.label,
                ),
              ),
            ),
            h(
              "select",
              {
                class: "input",
                "aria-label": t("home.chase_until"),
                "data-chase-until": "",
                onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
                  if (ev.target.value === "end") rules.chase.until = "end";
                  else delete rules.chase.until; // others_left: the old shape
                  this.paint();
                },
              },
              /** @type {import("./rulebook.js").Rulebook} */ (this.book).chase.until.map(
                (option) =>
                  h(
                    "option",
                    {
                      value: option.value,
                      selected: (rules.chase.until || "others_left") === option.value,
                    },
                    option.label,
                  ),
              ),
            ),
          )
        : null,
      h(
        "p",
        { class: "hint" },
        /** @type {import("./rulebook.js").Rulebook} */ (this.book).meanings.chase,
      ),
    );
  }

  /**
   * 反向博钱 (RULES.md §9.3): what each tier's cake costs its winner.
   * @param {import("./rulebook.js").Rules} rules
   */
  valuesRow(rules) {
    // every price 0: everyone pays 0, which is no 反向博钱 at all; said, not refused
    const allZero = () => Object.values(this.rules.values || {}).every((v) => !Number(v));
    const warning = h(
      "p",
      { class: "values-zero", role: "status", hidden: !allZero() },
      t("home.values_all_zero"),
    );
    return h(
      "div",
      { class: "switch-row" },
      h("span", { class: "field-label" }, t("home.values_label")),
      h(
        "div",
        { class: "check-grid" },
        Object.keys(rules.values).map((tier) =>
          h(
            "label",
            { class: "check-row" },
            tierName(tier),
            h("input", {
              class: "input input-price",
              type: "number",
              min: "0",
              step: "any",
              inputmode: "decimal",
              "data-value-tier": tier,
              "data-keep": `value-${tier}`,
              value: String(rules.values[tier] ?? 0),
              // Typing is kept at once, and an answer to an earlier edit (which would redraw
              // this row with the old price) is dropped; leaving the field asks the server.
              oninput: (/** @type {{target: HTMLInputElement}} */ ev) => {
                const n = Number(ev.target.value);
                if (this.rules.values)
                  this.rules.values[tier] = Number.isFinite(n) && n >= 0 ? n : 0;
                this.generation++;
                warning.hidden = !allZero();
              },
              onchange: () => this.paint(),
            }),
          ),
        ),
      ),
      warning,
    );
  }

  /**
   * @param {Record<string, any>} rules
   */
  patternsRow(rules) {
    return h(
      "div",
      { class: "switch-row" },
      h(
        "label",
        { for: "sw-duitang", class: "field-label" },
        /** @type {import("./rulebook.js").Rulebook} */ (this.book).labels.duitang_patterns,
      ),
      h("input", {
        id: "sw-duitang",
        class: "input mono",
        type: "text",
        "data-keep": "duitang",
        value: rules.duitang_patterns.join(" "),
        onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
          const patterns = ev.target.value.split(/[\s,，]+/).filter(Boolean);
          if (
            !patterns.length ||
            patterns.some((/** @type {string} */ p) => !/^[1-6]{6}$/.test(p))
          ) {
            toast(t("home.bad_patterns", { value: ev.target.value }), { kind: "error" });
            ev.target.value = this.rules.duitang_patterns.join(" ");
            return;
          }
          this.rules.duitang_patterns = patterns;
          this.paint();
        },
      }),
      h("p", { class: "hint" }, t("home.patterns_hint")),
    );
  }

  /**
   * @param {any} on
   */
  setChase(on) {
    this.rules.chase = on ? { tiers: ["duitang", "sanhong"], from: "nearest_before" } : null;
    this.paint();
  }

  /**
   * @param {number} i
   * @param {number} delta
   */
  moveHand(i, delta) {
    const order = this.rules.zhuangyuan_order;
    const j = i + delta;
    [order[i], order[j]] = [order[j], order[i]];
    this.paint();
    const buttons = this.el.querySelectorAll(".order-editor li")[j].querySelectorAll("button");
    const target = delta < 0 ? buttons[0] : buttons[1];
    (target && !target.disabled ? target : buttons[delta < 0 ? 1 : 0]).focus();
  }
}
