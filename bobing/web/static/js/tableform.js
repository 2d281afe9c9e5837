// The create form's table terms (RULES.md §8): how many seats, a time limit, and how prizes are
// given — cakes by tier (§4) or one prize per person by best throw (§8.2, ranked) with its prize
// list editor (name, count, value), the 2013 party's list as an example, and a round count.

import { h, mount } from "./dom.js";
import { t } from "./i18n.js";
import { toast } from "./ui.js";
import { prizeUnits } from "./ranked.js";
import { limits } from "./limits.js";

// Every bound below is the server's (limits.js): seats are the rules' max_players.
const TIME_CHOICES = [15, 30, 45, 60];
// eslint-disable-next-line no-control-regex -- the server refuses control characters too
const BAD_TEXT = /[<>&"'\u0000-\u001f\u007f]/;

/** The 2013 party's prizes (docs/examples/2013-prizes.csv, seed 000), best first: 13 people. */
export const PRIZES_2013 = Object.freeze([
  { name: "一等奖 漫步者音响", count: 1, value: 498 },
  { name: "二等奖 飞利浦电饭煲", count: 1, value: 199 },
  { name: "三等奖 行李车", count: 1, value: 89 },
  { name: "四等奖 手提锅", count: 2, value: 79 },
  { name: "五等奖 飞科电吹风", count: 2, value: 59 },
  { name: "六等奖 蒸蛋器", count: 1, value: 49 },
  { name: "六等奖 乐扣四件套", count: 1, value: 49 },
  { name: "七等奖 雪莲水壶／决明子枕头", count: 3, value: 27 },
  { name: "安慰奖 博饼工具", count: 1, value: 29 },
]);

/**
 * @param {unknown} value
 * @param {number} low
 * @param {number} high
 */
function wholeNumber(value, low, high) {
  const n = Number(value);
  return Number.isInteger(n) && n >= low && n <= high ? n : null;
}

/**
 * Problems with a prize list, as sentences (empty when it is fine).
 * @param {any[]} prizes
 */
export function prizeProblems(prizes) {
  const {
    max_table_prize_lines: MAX_PRIZE_ENTRIES,
    max_table_prize_count: MAX_PRIZE_COUNT,
    max_prize_name: MAX_PRIZE_NAME,
  } = limits();
  const problems = [];
  if (!prizes.length) problems.push(t("terms.prizes_empty"));
  if (prizes.length > MAX_PRIZE_ENTRIES)
    problems.push(t("terms.prizes_too_many", { n: MAX_PRIZE_ENTRIES }));
  prizes.forEach((/** @type {Record<string, any>} */ p, /** @type {number} */ i) => {
    const where = { n: i + 1, name: p.name || "" };
    const name = (p.name || "").trim();
    if (!name) problems.push(t("terms.prize_no_name", where));
    else if (BAD_TEXT.test(name)) problems.push(t("terms.prize_bad_name", where));
    else if (name.length > MAX_PRIZE_NAME)
      problems.push(t("terms.prize_long_name", { ...where, max: MAX_PRIZE_NAME }));
    if (wholeNumber(p.count, 1, MAX_PRIZE_COUNT) === null)
      problems.push(t("terms.prize_bad_count", { ...where, max: MAX_PRIZE_COUNT }));
    if (p.value !== null && p.value !== "" && !(Number(p.value) >= 0))
      problems.push(t("terms.prize_bad_value", where));
  });
  return problems;
}

export class TableTerms {
  constructor({ onChange = () => {} } = {}) {
    this.onChange = onChange;
    this.seats = limits().default_players;
    this.timed = false;
    this.minutes = 30;
    this.award = "cakes";
    /** @type {{name: string, count: number | string, value?: number | string | null}[]} */
    this.prizes = [{ name: "", count: 1, value: null }];
    this.rounds = null;
    this.el = h("div", { class: "table-terms" });
    this.paint();
  }

  /** Rule switches these terms set (merged into the rule object sent at creation). */
  ruleOverrides() {
    const out = {};
    if (this.seats !== limits().default_players) out.max_players = this.seats;
    if (this.award === "ranked") {
      out.award = "ranked";
      out.ranked_prizes = this.prizes.map((p) => {
        /** @type {{name: string, count: number, value?: number}} */
        const entry = { name: p.name.trim(), count: Number(p.count) };
        if (p.value !== null && p.value !== "") entry.value = Number(p.value);
        return entry;
      });
      if (this.rounds) out.rounds = this.rounds;
    }
    return out;
  }

  /** The time limit in minutes, or null. */
  timeLimit() {
    return this.timed ? this.minutes : null;
  }

  get ranked() {
    return this.award === "ranked";
  }

  /** Whether the terms can be sent; says what is wrong otherwise. */
  check() {
    if (!this.ranked) return true;
    const problems = prizeProblems(this.prizes);
    if (problems.length) {
      toast(problems[0], { kind: "error" });
      const box = this.el.querySelector(".prize-problems");
      if (box)
        mount(
          box,
          problems.map((p) => h("li", {}, p)),
        );
      return false;
    }
    return true;
  }

  changed() {
    this.onChange();
  }

  paint() {
    const {
      min_players: MIN_SEATS,
      max_players: MAX_SEATS,
      max_time_limit: MAX_TIME_LIMIT,
    } = limits();
    const seats = h("input", {
      id: "terms-seats",
      class: "input input-num",
      type: "number",
      min: MIN_SEATS,
      max: MAX_SEATS,
      value: this.seats,
      onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
        const n = wholeNumber(ev.target.value, MIN_SEATS, MAX_SEATS);
        if (n === null) {
          toast(t("terms.bad_seats", { value: ev.target.value, min: MIN_SEATS, max: MAX_SEATS }), {
            kind: "error",
          });
          ev.target.value = String(this.seats);
          return;
        }
        this.seats = n;
        this.changed();
      },
    });
    const minutes = h("input", {
      id: "terms-minutes",
      class: "input input-num",
      type: "number",
      min: 1,
      max: MAX_TIME_LIMIT,
      value: this.minutes,
      disabled: !this.timed,
      "aria-label": t("terms.minutes"),
      onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
        const n = wholeNumber(ev.target.value, 1, MAX_TIME_LIMIT);
        if (n === null) {
          toast(t("terms.bad_minutes", { value: ev.target.value, max: MAX_TIME_LIMIT }), {
            kind: "error",
          });
          ev.target.value = String(this.minutes);
          return;
        }
        this.minutes = n;
        this.paint(); // the hint and the quick choices follow
        this.el.querySelector("#terms-minutes").focus();
      },
    });
    const timeRow = h(
      "div",
      { class: "switch-row" },
      h(
        "label",
        { class: "check-row" },
        h("input", {
          type: "checkbox",
          id: "terms-timed",
          checked: this.timed,
          onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
            this.timed = ev.target.checked;
            this.paint();
            this.el.querySelector("#terms-timed").focus();
          },
        }),
        t("terms.time_limit"),
      ),
      h(
        "div",
        { class: "input-row time-row" },
        minutes,
        h("span", {}, t("terms.minutes_unit")),
        this.timed
          ? TIME_CHOICES.map((n) =>
              h(
                "button",
                {
                  type: "button",
                  class: `btn btn-ghost btn-small${n === this.minutes ? " is-on" : ""}`,
                  "aria-pressed": String(n === this.minutes),
                  onclick: () => {
                    this.minutes = n;
                    this.paint();
                  },
                },
                t("terms.minutes_short", { n }),
              ),
            )
          : null,
      ),
      h(
        "p",
        { class: "hint" },
        this.timed ? t("terms.time_hint_on", { n: this.minutes }) : t("terms.time_hint_off"),
      ),
    );
    const awards = ["cakes", "ranked"].map((award) =>
      h(
        "label",
        { class: `mode-option${award === this.award ? " is-checked" : ""}` },
        h("input", {
          type: "radio",
          name: "award",
          value: award,
          checked: award === this.award,
          onchange: () => {
            this.award = award;
            this.paint();
            this.changed();
            this.el.querySelector(`input[name=award][value=${award}]`).focus();
          },
        }),
        h("span", { class: "mode-name" }, t(`terms.award.${award}`)),
        h("span", { class: "mode-hint" }, t(`terms.award.${award}.hint`)),
      ),
    );
    mount(
      this.el,
      h(
        "div",
        { class: "switch-row" },
        h("label", { for: "terms-seats", class: "field-label" }, t("terms.seats")),
        seats,
        h("p", { class: "hint" }, t("terms.seats_hint", { min: MIN_SEATS, max: MAX_SEATS })),
      ),
      timeRow,
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("terms.award")),
        h("div", { class: "mode-options award-options" }, awards),
      ),
      this.ranked ? this.rankedEditor() : null,
    );
  }

  rankedEditor() {
    const {
      max_table_prize_lines: MAX_PRIZE_ENTRIES,
      max_table_prize_count: MAX_PRIZE_COUNT,
      max_prize_name: MAX_PRIZE_NAME,
      max_rounds: MAX_ROUNDS,
    } = limits();
    const units = prizeUnits({
      ranked_prizes: this.prizes.map((p) => ({
        ...p,
        count: wholeNumber(p.count, 1, MAX_PRIZE_COUNT) || 0,
      })),
    }).length;
    const rows = this.prizes.map((p, i) =>
      h(
        "li",
        { class: "prize-entry" },
        h("span", { class: "prize-entry-no", "aria-hidden": "true" }, String(i + 1)),
        h("input", {
          type: "text",
          class: "input prize-entry-name",
          maxlength: MAX_PRIZE_NAME,
          value: p.name,
          placeholder: t("terms.prize_name_ph"),
          "aria-label": t("terms.prize_name", { n: i + 1 }),
          "data-prize-name": String(i),
          oninput: (/** @type {{target: HTMLInputElement}} */ ev) => (p.name = ev.target.value),
        }),
        h("input", {
          type: "number",
          class: "input input-num prize-entry-count",
          min: 1,
          max: MAX_PRIZE_COUNT,
          value: p.count,
          "aria-label": t("terms.prize_count", { n: i + 1 }),
          "data-prize-count": String(i),
          onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
            p.count = ev.target.value;
            this.paintTotal();
          },
        }),
        h("input", {
          type: "number",
          class: "input input-num prize-entry-value",
          min: 0,
          step: "any",
          value: p.value ?? "",
          placeholder: t("home.prize_value"),
          "aria-label": t("terms.prize_value", { n: i + 1 }),
          "data-prize-value": String(i),
          onchange: (/** @type {{target: HTMLInputElement}} */ ev) =>
            (p.value = ev.target.value === "" ? null : ev.target.value),
        }),
        h(
          "button",
          {
            type: "button",
            class: "icon-btn small",
            disabled: i === 0,
            "aria-label": t("terms.prize_up", { n: i + 1 }),
            onclick: () => this.movePrize(i, -1),
          },
          "↑",
        ),
        h(
          "button",
          {
            type: "button",
            class: "icon-btn small danger",
            disabled: this.prizes.length === 1,
            "aria-label": t("terms.prize_remove", { n: i + 1 }),
            onclick: () => this.removePrize(i),
          },
          "×",
        ),
      ),
    );
    this.totalLine = h(
      "p",
      { class: "hint prize-units" },
      t("terms.units", { n: units, seats: this.seats }),
    );
    const rounds = h("input", {
      id: "terms-rounds",
      class: "input input-num",
      type: "number",
      min: 1,
      max: MAX_ROUNDS,
      value: this.rounds || "",
      placeholder: "—",
      onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
        if (ev.target.value === "") {
          this.rounds = null;
          return;
        }
        const n = wholeNumber(ev.target.value, 1, MAX_ROUNDS);
        if (n === null) {
          toast(t("terms.bad_rounds", { value: ev.target.value, max: MAX_ROUNDS }), {
            kind: "error",
          });
          ev.target.value = String(this.rounds || "");
          return;
        }
        this.rounds = n;
      },
    });
    return h(
      "div",
      { class: "ranked-editor" },
      h("p", { class: "hint" }, t("terms.ranked_hint")),
      h(
        "div",
        { class: "prize-entry-head", "aria-hidden": "true" },
        h("span", {}, t("terms.prize_name_col")),
        h("span", {}, t("terms.prize_count_col")),
        h("span", {}, t("terms.prize_value_col")),
      ),
      h("ol", { class: "prize-entries" }, rows),
      h("ul", { class: "prize-problems", role: "alert" }),
      this.totalLine,
      h(
        "div",
        { class: "btn-row" },
        h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost btn-small",
            disabled: this.prizes.length >= MAX_PRIZE_ENTRIES,
            onclick: () => this.addPrize(),
          },
          t("terms.prize_add"),
        ),
        h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost btn-small",
            "data-load-2013": "",
            onclick: () => this.load2013(),
          },
          t("terms.load_2013"),
        ),
      ),
      h("label", { for: "terms-rounds", class: "field-label" }, t("terms.rounds")),
      rounds,
      h("p", { class: "hint" }, t("terms.rounds_hint", { max: MAX_ROUNDS })),
    );
  }

  paintTotal() {
    if (!this.totalLine) return;
    const MAX_PRIZE_COUNT = limits().max_table_prize_count;
    const units = this.prizes.reduce(
      (n, p) => n + (wholeNumber(p.count, 1, MAX_PRIZE_COUNT) || 0),
      0,
    );
    this.totalLine.textContent = t("terms.units", { n: units, seats: this.seats });
  }

  addPrize() {
    this.prizes.push({ name: "", count: 1, value: null });
    this.paint();
    const inputs = this.el.querySelectorAll(".prize-entry-name");
    inputs[inputs.length - 1].focus();
  }

  /**
   * @param {number} i
   */
  removePrize(i) {
    this.prizes.splice(i, 1);
    this.paint();
  }

  /**
   * @param {number} i
   * @param {number} delta
   */
  movePrize(i, delta) {
    const j = i + delta;
    [this.prizes[i], this.prizes[j]] = [this.prizes[j], this.prizes[i]];
    this.paint();
  }

  load2013() {
    this.prizes = PRIZES_2013.map((p) => ({ ...p }));
    if (this.seats < 13) this.seats = 13;
    this.paint();
    this.changed();
    toast(t("terms.loaded_2013"));
  }
}
