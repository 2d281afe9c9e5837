// The rule-switch editor: the 状元 order (reorderable, stated in words), every switch with a
// plain-words hint, 追 and the 对堂 patterns. The home page's create form and the organiser's
// event form both use it; the rule object it edits is always complete (a preset's, changed).

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { SWITCH_VALUES } from "./protocol.js";
import { fixOrder, orderLine, rankingLines, tierName, handLabel } from "./game.js";
import { icon, toast } from "./ui.js";

const EDITABLE = [
  "liubohong",
  "liubohong_spares_chajinhua",
  "liubohong_duitang",
  "liubohei",
  "six_ones",
  "biandijin",
  "wuzi_compare",
  "wuzi_bonus",
  "sijin_bonus",
  "chajinhua_duitang",
  "chajinhua_lugu",
  "standing",
  "tiaohou",
  "direction",
  "start_count",
  "end",
  "zhuangyuan_cake",
  "money",
];
/** Switches whose values are true and false. */
const BOOLEAN = new Set(["sijin_bonus", "wuzi_bonus", "liubohong_spares_chajinhua"]);
const CHASE_TIERS = ["duitang", "sanhong", "sijin", "erju", "yixiu"];
const VALUE_TIERS = ["zhuangyuan", ...CHASE_TIERS];

export function clone(value) {
  return JSON.parse(JSON.stringify(value));
}

export class RuleSwitches {
  /**
   * `onChange()` runs after every edit (and after `set`), once the editor is painted again;
   * `onReset()` is the reset button (by default: back to the base's switches).
   */
  constructor({ onChange = () => {}, onReset = null } = {}) {
    this.onChange = onChange;
    this.onReset = onReset || (() => this.set(this.base));
    this.rules = null;
    this.base = null;
    this.el = h("div", { class: "switch-editor" });
    this.statement = h("p", { class: "order-statement", "aria-live": "polite" });
  }

  /** Edit a copy of `rules`; `base` (a preset's rules) is what "reset" returns to. */
  set(rules, base = rules) {
    this.base = clone(base);
    this.rules = clone(rules);
    this.paint();
  }

  /** Whether the switches differ from the base (the prize counts are not switches). */
  changed() {
    if (!this.rules || !this.base) return false;
    const mine = { ...this.rules, prizes: this.base.prizes };
    return JSON.stringify(mine) !== JSON.stringify(this.base);
  }

  paint() {
    if (!this.rules) return;
    const rules = this.rules;
    rules.zhuangyuan_order = fixOrder(rules);
    // RULES.md §9.3: keep the rule object free of the contradictions the server refuses.
    if (rules.liubohong !== "zhuangyuan" && "liubohong_duitang" in rules)
      rules.liubohong_duitang = "none";
    if ("money" in rules) {
      if (rules.money === "pay" && !rules.values)
        rules.values = Object.fromEntries(VALUE_TIERS.map((tier) => [tier, 0]));
      if (rules.money !== "pay") rules.values = null;
    }
    mount(
      this.statement,
      h("span", { class: "label" }, t("rules.order_label")),
      " ",
      orderLine(rules),
      this.changed() ? h("span", { class: "badge" }, t("home.customized")) : null,
    );
    const rows = [this.orderRow(rules)];
    for (const name of EDITABLE) {
      if (name === "biandijin" && rules.six_ones !== "biandijin") continue;
      if (name === "liubohong_spares_chajinhua" && rules.liubohong !== "take_all_end") continue;
      if (name === "liubohong_duitang" && rules.liubohong !== "zhuangyuan") continue;
      if (!(name in rules)) continue; // a server without this switch
      rows.push(this.switchRow(rules, name));
      if (name === "money" && rules.money === "pay") rows.push(this.valuesRow(rules));
    }
    rows.push(this.chaseRow(rules), this.patternsRow(rules));
    rows.push(
      h(
        "button",
        { type: "button", class: "btn btn-ghost btn-small", onclick: () => this.onReset() },
        t("home.reset_rules"),
      ),
    );
    mount(this.el, rows);
    this.onChange();
  }

  orderRow(rules) {
    return h(
      "div",
      { class: "switch-row" },
      h("span", { class: "field-label" }, t("switch.zhuangyuan_order")),
      h(
        "ol",
        { class: "order-editor" },
        rules.zhuangyuan_order.map((hand, i, order) =>
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
        rankingLines(rules).map((line) => h("li", {}, line)),
      ),
    );
  }

  switchRow(rules, name) {
    const id = `sw-${name}`;
    const select = h(
      "select",
      {
        id,
        class: "input",
        "data-switch": name,
        onchange: (ev) => {
          const raw = ev.target.value;
          rules[name] = BOOLEAN.has(name) ? raw === "true" : raw;
          this.paint();
          const again = this.el.querySelector(`#${id}`);
          if (again) again.focus();
        },
      },
      SWITCH_VALUES[name].map((value) =>
        h(
          "option",
          { value: String(value), selected: rules[name] === value },
          t(`val.${name}.${value}`),
        ),
      ),
    );
    return h(
      "div",
      { class: "switch-row" },
      h("label", { for: id, class: "field-label" }, t(`switch.${name}`)),
      select,
      h("p", { class: "hint" }, t(`rule.${name}.${rules[name]}`)),
    );
  }

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
          onchange: (ev) => this.setChase(ev.target.checked),
        }),
        t("switch.chase"),
      ),
      chaseOn
        ? h(
            "div",
            { class: "chase-editor" },
            h(
              "div",
              { class: "check-grid" },
              CHASE_TIERS.map((tier) =>
                h(
                  "label",
                  { class: "check-row" },
                  h("input", {
                    type: "checkbox",
                    checked: rules.chase.tiers.includes(tier),
                    onchange: (ev) => {
                      const tiers = new Set(rules.chase.tiers);
                      if (ev.target.checked) tiers.add(tier);
                      else tiers.delete(tier);
                      rules.chase.tiers = CHASE_TIERS.filter((x) => tiers.has(x));
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
                onchange: (ev) => {
                  rules.chase.from = ev.target.value;
                  this.paint();
                },
              },
              ["nearest_before", "latest"].map((v) =>
                h(
                  "option",
                  { value: v, selected: rules.chase.from === v },
                  t(`rule.chase.from.${v}`),
                ),
              ),
            ),
            h(
              "select",
              {
                class: "input",
                "aria-label": t("home.chase_until"),
                "data-chase-until": "",
                onchange: (ev) => {
                  if (ev.target.value === "end") rules.chase.until = "end";
                  else delete rules.chase.until; // others_left: the old shape
                  this.paint();
                },
              },
              ["others_left", "end"].map((v) =>
                h(
                  "option",
                  { value: v, selected: (rules.chase.until || "others_left") === v },
                  t(`val.chase.until.${v}`),
                ),
              ),
            ),
          )
        : null,
      h(
        "p",
        { class: "hint" },
        chaseOn
          ? t("rule.chase.on", {
              tiers: rules.chase.tiers.map(tierName).join(t("list.sep")),
              source: t(`rule.chase.from.${rules.chase.from}`),
            }) + (rules.chase.until === "end" ? t("rule.chase.until.end") : "")
          : t("rule.chase.null"),
      ),
    );
  }

  /** 反向博钱: what each cake costs the person who holds it at the end (RULES.md §9.3). */
  valuesRow(rules) {
    return h(
      "div",
      { class: "switch-row" },
      h("span", { class: "field-label" }, t("home.values_label")),
      h(
        "div",
        { class: "check-grid" },
        VALUE_TIERS.map((tier) =>
          h(
            "label",
            { class: "check-row" },
            tierName(tier),
            h("input", {
              class: "input",
              type: "number",
              min: "0",
              step: "any",
              "data-value-tier": tier,
              value: String(rules.values[tier] ?? 0),
              onchange: (ev) => {
                const n = Number(ev.target.value);
                rules.values[tier] = Number.isFinite(n) && n >= 0 ? n : 0;
                this.paint();
              },
            }),
          ),
        ),
      ),
    );
  }

  patternsRow(rules) {
    return h(
      "div",
      { class: "switch-row" },
      h("label", { for: "sw-duitang", class: "field-label" }, t("switch.duitang_patterns")),
      h("input", {
        id: "sw-duitang",
        class: "input mono",
        type: "text",
        value: rules.duitang_patterns.join(" "),
        onchange: (ev) => {
          const patterns = ev.target.value.split(/[\s,，]+/).filter(Boolean);
          if (!patterns.length || patterns.some((p) => !/^[1-6]{6}$/.test(p))) {
            toast(t("home.bad_patterns", { value: ev.target.value }), { kind: "error" });
            ev.target.value = rules.duitang_patterns.join(" ");
            return;
          }
          rules.duitang_patterns = patterns;
          this.paint();
        },
      }),
      h("p", { class: "hint" }, t("home.patterns_hint")),
    );
  }

  setChase(on) {
    this.rules.chase = on ? { tiers: ["duitang", "sanhong"], from: "nearest_before" } : null;
    this.paint();
  }

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
