// Create an event (/e/new, /e/new?from=CODE for next year's from last year's): the people
// (typed, pasted, or a CSV / XLSX roster), tables or table size, seating, how tables play,
// rules, one table's prize set with named goods per tier, the budget, the 王中王 prize.

import { h, mount } from "../dom.js";
import { t, has } from "../i18n.js";
import { TIERS } from "../protocol.js";
import { tierName } from "../rulebook.js";
import { renderTopbar, showError, toast } from "../ui.js";
import { loadPresets } from "./rules.js";
import { eventApi, rememberCreated, showEventError } from "../event.js";
import { RuleSwitches } from "../switches.js";

const MAX_ROSTER_BYTES = 1000000;

/** The class event's set for one table (seed 003): 550 元 a table. */
function classPrizes() {
  const item = (key, count, value) => ({ name: t(`event.new.example.${key}`), count, value });
  return {
    zhuangyuan: [item("doll", 1, 65)],
    duitang: [item("shampoo", 2, 40), item("shower_gel", 2, 40)],
    sanhong: [item("cup", 3, 20), item("umbrella", 3, 20)],
    sijin: [item("towel", 10, 5)],
    erju: [item("biscuits", 25, 3)],
    yixiu: [item("cola", 40, 2)],
  };
}

function peopleText(people) {
  return people.map((p) => (p.group ? `${p.name}\t${p.group}` : p.name)).join("\n");
}

export class EventNewView {
  constructor(main, { navigate, from = null }) {
    this.main = main;
    this.navigate = navigate;
    this.from = from;
    this.presets = null;
    this.form = null;
    this.prizes = classPrizes();
    this.costs = [];
    this.ranked = [
      { name: t("event.new.example.first"), count: 1, value: 498 },
      { name: t("event.new.example.second"), count: 1, value: 199 },
      { name: t("event.new.example.third"), count: 1, value: 89 },
    ];
    this.rulesObject = null;
    this.switches = new RuleSwitches({ onChange: () => this.schedulePreview() });
    this.busy = false;
    this.values = {
      name: t("event.new.default_name"),
      date: "",
      people: "",
      by: "tables",
      count: 4,
      seating: "random",
      mode: "referee",
      preset: "traditional",
      contribution: 50,
      playoffName: t("event.playoff_prize_default"),
      playoffValue: 0,
      startThrower: "",
      previous: null,
      award: "cakes",
      rounds: "",
      timeLimit: "",
    };
  }

  destroy() {}

  async render() {
    renderTopbar({ title: t("event.new.title") });
    mount(
      this.main,
      h(
        "section",
        { class: "center-card loading" },
        h("div", { class: "boot-moon", "aria-hidden": "true" }),
      ),
    );
    try {
      if (!this.presets) this.presets = await loadPresets();
      if (this.from && this.values.previous === null) await this.prefill(this.from);
    } catch (err) {
      showError(err);
    }
    if (!this.switches.rules) this.loadSwitches();
    else this.switches.paint(); // in the current language
    this.paint();
  }

  async prefill(code) {
    const tpl = await eventApi.next(code);
    Object.assign(this.values, {
      name: tpl.name,
      people: peopleText(tpl.people || []),
      by: "tables",
      count: tpl.tables,
      seating: tpl.seating || "random",
      mode: tpl.mode || "referee",
      preset: (tpl.rules && tpl.rules.preset) || "traditional",
      contribution: (tpl.budget && tpl.budget.contribution) || 0,
      playoffName:
        (tpl.playoff_prize && tpl.playoff_prize.name) || t("event.playoff_prize_default"),
      playoffValue: (tpl.playoff_prize && tpl.playoff_prize.value) || 0,
      startThrower: tpl.start_thrower || "",
      timeLimit: tpl.time_limit || "",
      previous: tpl.previous,
    });
    this.prizes = tpl.prizes || {};
    this.costs = (tpl.budget && tpl.budget.fixed_costs) || [];
    this.rulesObject = tpl.rules || null;
    if (tpl.rules && tpl.rules.award === "ranked") {
      this.values.award = "ranked";
      this.ranked = (tpl.rules.ranked_prizes || []).map((p) => ({ ...p }));
      this.values.rounds = tpl.rules.rounds || "";
    }
  }

  /** The switch editor shows the preset's rules, or last year's (over their preset). */
  loadSwitches() {
    const presets = (this.presets && this.presets.presets) || {};
    const preset = presets[this.values.preset] || presets.traditional;
    if (!preset) return;
    if (this.rulesObject) {
      const { award: _a, ranked_prizes: _r, rounds: _n, ...switches } = this.rulesObject;
      this.switches.set({ ...preset, ...switches, preset: preset.preset }, preset);
    } else {
      this.switches.set(preset);
    }
  }

  field(id, label, control, hint = null) {
    return h(
      "div",
      { class: "ev-field" },
      h("label", { for: id, class: "field-label" }, label),
      control,
      hint ? h("p", { class: "hint" }, hint) : null,
    );
  }

  paint() {
    const v = this.values;
    const input = (id, key, attrs = {}) =>
      h("input", {
        id,
        class: "input",
        value: v[key],
        ...attrs,
        oninput: (ev) =>
          (v[key] = attrs.type === "number" ? Number(ev.target.value) : ev.target.value),
      });
    const peopleBox = h("textarea", {
      id: "ev-people",
      class: "input ev-people",
      rows: 10,
      placeholder: t("event.new.people_placeholder"),
      oninput: (ev) => {
        v.people = ev.target.value;
        this.paintCount();
      },
    });
    peopleBox.value = v.people;
    this.peopleBox = peopleBox;
    this.countLine = h("p", { class: "hint", "aria-live": "polite" });
    const file = h("input", {
      id: "ev-roster",
      type: "file",
      class: "ev-file",
      accept:
        ".csv,.xlsx,.txt,text/csv,text/plain,application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
      onchange: (ev) => this.upload(ev.target.files && ev.target.files[0]),
    });
    const presetSelect = h(
      "select",
      {
        id: "ev-preset",
        class: "input",
        onchange: (ev) => {
          v.preset = ev.target.value;
          this.rulesObject = null;
          this.loadSwitches();
        },
      },
      Object.keys((this.presets && this.presets.presets) || { traditional: 1 })
        .filter((id) => has(`preset.${id}`))
        .map((id) => h("option", { value: id, selected: id === v.preset }, t(`preset.${id}`))),
    );
    const radios = (name, key, options) =>
      h(
        "div",
        { class: "ev-radios", role: "radiogroup" },
        options.map((opt) =>
          h(
            "label",
            { class: "ev-radio" },
            h("input", {
              type: "radio",
              name,
              value: opt,
              checked: v[key] === opt,
              onchange: () => (v[key] = opt),
            }),
            h("span", {}, t(`event.new.${key}.${opt}`)),
          ),
        ),
      );
    this.prizeBox = h("div", { class: "ev-prizes" });
    this.summaryLine = h("p", { class: "ev-summary", id: "ev-summary", "aria-live": "polite" });
    this.rankedBox = h("div", { class: "ev-ranked" });
    this.prizeSet = h(
      "fieldset",
      { class: "fieldset", hidden: v.award !== "cakes" },
      h("legend", { class: "field-label" }, t("event.new.prizes")),
      h("p", { class: "hint" }, t("event.new.prizes_hint")),
      this.prizeBox,
    );
    this.rankedSet = h(
      "fieldset",
      { class: "fieldset", hidden: v.award !== "ranked" },
      h("legend", { class: "field-label" }, t("event.new.ranked")),
      h("p", { class: "hint" }, t("event.new.ranked_hint")),
      this.rankedBox,
      this.field(
        "ev-rounds",
        t("event.new.rounds"),
        input("ev-rounds", "rounds", {
          type: "number",
          min: 1,
          max: 1000,
          class: "input input-num",
        }),
        t("event.new.rounds_hint"),
      ),
    );
    const awardRadios = h(
      "div",
      { class: "ev-radios", role: "radiogroup" },
      ["cakes", "ranked"].map((opt) =>
        h(
          "label",
          { class: "ev-radio" },
          h("input", {
            type: "radio",
            name: "ev-award",
            value: opt,
            checked: v.award === opt,
            onchange: () => {
              v.award = opt;
              this.prizeSet.hidden = opt !== "cakes";
              this.rankedSet.hidden = opt !== "ranked";
            },
          }),
          h("span", {}, t(`event.new.award.${opt}`)),
        ),
      ),
    );
    this.costBox = h("div", { class: "ev-costs" });
    this.form = h(
      "form",
      {
        class: "card ev-form",
        onsubmit: (ev) => {
          ev.preventDefault();
          this.submit();
        },
      },
      h(
        "h1",
        { class: "card-title" },
        this.from ? t("event.new.title_next") : t("event.new.title"),
      ),
      this.from ? h("p", { class: "hint" }, t("event.new.from_hint", { code: this.from })) : null,
      this.field(
        "ev-name",
        t("event.new.name"),
        input("ev-name", "name", { maxlength: 40, required: true }),
      ),
      this.field("ev-date", t("event.new.date"), input("ev-date", "date", { type: "date" })),
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("event.new.people")),
        peopleBox,
        this.countLine,
        h("label", { for: "ev-roster", class: "field-label small" }, t("event.new.roster_file")),
        file,
        h("p", { class: "hint" }, t("event.new.people_hint")),
      ),
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("event.new.tables")),
        radios("ev-by", "by", ["tables", "size"]),
        input("ev-count", "count", {
          type: "number",
          min: 1,
          max: 50,
          class: "input input-num",
          "aria-label": t("event.new.count"),
        }),
      ),
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("event.new.seating")),
        radios("ev-seating", "seating", ["random", "balanced", "in_order"]),
      ),
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("event.new.mode")),
        radios("ev-mode", "mode", ["referee", "online", "pass_and_play"]),
      ),
      this.field("ev-preset", t("event.new.rules"), presetSelect),
      this.switches.statement,
      h(
        "details",
        { class: "editor-details ev-switches" },
        h("summary", {}, t("home.customize")),
        this.switches.el,
      ),
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("event.new.award")),
        awardRadios,
      ),
      this.prizeSet,
      this.rankedSet,
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("event.new.budget")),
        this.field(
          "ev-contribution",
          t("event.new.contribution"),
          input("ev-contribution", "contribution", {
            type: "number",
            min: 0,
            step: "any",
            class: "input input-num",
          }),
        ),
        h("p", { class: "field-label" }, t("event.new.fixed_costs")),
        this.costBox,
      ),
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("event.new.playoff")),
        h("p", { class: "hint" }, t("event.new.playoff_hint")),
        h(
          "div",
          { class: "ev-row" },
          input("ev-playoff-name", "playoffName", {
            maxlength: 40,
            "aria-label": t("event.new.playoff_name"),
          }),
          input("ev-playoff-value", "playoffValue", {
            type: "number",
            min: 0,
            step: "any",
            class: "input input-num",
            "aria-label": t("event.new.value"),
          }),
        ),
      ),
      this.field(
        "ev-time-limit",
        t("event.new.time_limit"),
        input("ev-time-limit", "timeLimit", {
          type: "number",
          min: 1,
          max: 600,
          class: "input input-num",
        }),
        t("event.new.time_limit_hint"),
      ),
      this.field(
        "ev-thrower",
        t("event.new.start_thrower"),
        input("ev-thrower", "startThrower", { maxlength: 24 }),
        t("event.new.start_thrower_hint"),
      ),
      this.summaryLine,
      h(
        "button",
        { type: "submit", class: "btn btn-primary btn-big btn-block", id: "ev-create" },
        t("event.new.create"),
      ),
    );
    this.form.addEventListener("input", () => this.schedulePreview());
    this.form.addEventListener("change", () => this.schedulePreview());
    mount(this.main, h("div", { class: "ev-page" }, this.form));
    this.paintPrizes();
    this.paintRanked();
    this.paintCosts();
    this.paintCount();
    this.schedulePreview();
  }

  schedulePreview() {
    clearTimeout(this.previewTimer);
    this.previewTimer = setTimeout(() => this.preview(), 600);
  }

  /** The server's own reading of the form: the tables it would make and the budget. */
  async preview() {
    await this.switches.settled();
    if (!this.values.people.trim()) {
      this.summaryLine.textContent = "";
      return;
    }
    try {
      const blob = new Blob([this.values.people], { type: "text/plain" });
      const { people } = await eventApi.roster(blob, "text");
      const p = await eventApi.preview(this.body(people));
      const b = p.budget;
      const money =
        b.deficit > 0
          ? t("event.budget.deficit", { n: b.deficit })
          : t("event.budget.surplus", { n: b.surplus });
      this.summaryLine.classList.remove("is-error");
      this.summaryLine.textContent = t("event.new.summary", {
        n: p.tables.length,
        sizes: p.tables.join(t("list.sep")),
        income: b.income,
        spent: b.spent,
        money,
      });
    } catch (err) {
      this.summaryLine.classList.add("is-error");
      this.summaryLine.textContent = err.detail || err.message;
    }
  }

  paintRanked() {
    mount(
      this.rankedBox,
      h(
        "ol",
        { class: "ev-ranked-list" },
        this.ranked.map((prize, index) =>
          h(
            "li",
            { class: "ev-row" },
            h("input", {
              class: "input",
              value: prize.name,
              maxlength: 40,
              placeholder: t("event.new.item_name"),
              "aria-label": t("event.new.ranked_name", { n: index + 1 }),
              oninput: (ev) => (prize.name = ev.target.value),
            }),
            h("input", {
              class: "input input-num",
              type: "number",
              min: 1,
              value: prize.count,
              "aria-label": t("event.new.ranked_count", { n: index + 1 }),
              oninput: (ev) => (prize.count = Number(ev.target.value)),
            }),
            h("input", {
              class: "input input-num",
              type: "number",
              min: 0,
              step: "any",
              value: prize.value,
              "aria-label": t("event.new.ranked_value", { n: index + 1 }),
              oninput: (ev) => (prize.value = Number(ev.target.value)),
            }),
            h(
              "button",
              {
                type: "button",
                class: "btn btn-ghost btn-small",
                "aria-label": t("event.new.remove_item", { name: prize.name }),
                onclick: () => {
                  this.ranked.splice(index, 1);
                  this.paintRanked();
                },
              },
              "✕",
            ),
          ),
        ),
      ),
      h(
        "button",
        {
          type: "button",
          class: "btn btn-ghost btn-small",
          onclick: () => {
            this.ranked.push({ name: "", count: 1, value: 0 });
            this.paintRanked();
          },
        },
        t("event.new.add_item"),
      ),
    );
  }

  /** The rule object: the preset (or last year's rules), ranked prizes, and enough seats. */
  rules(people) {
    const v = this.values;
    let base;
    if (this.switches.rules && (this.rulesObject || this.switches.changed())) {
      // every switch as the editor shows it; the prize set gives each table its cakes
      const { prizes: _prizes, ...switches } = this.switches.rules;
      base = { ...(this.rulesObject || {}), ...switches };
      delete base.prizes;
    } else {
      base = this.rulesObject ? { ...this.rulesObject } : { preset: v.preset };
    }
    if (v.award === "ranked") {
      base.award = "ranked";
      base.ranked_prizes = this.ranked
        .filter((p) => p.name.trim())
        .map((p) => ({
          name: p.name.trim(),
          count: Number(p.count) || 1,
          value: Number(p.value) || 0,
        }));
      if (Number(v.rounds) >= 1) base.rounds = Number(v.rounds);
      else delete base.rounds;
    } else {
      delete base.award;
      delete base.ranked_prizes;
      delete base.rounds;
    }
    // a table bigger than 12 (the 2013 party sat 13) needs the seats agreed in the rules
    const count = Number(v.count) || 1;
    const largest = v.by === "tables" ? Math.ceil(people.length / count) : count;
    if (largest > (base.max_players || 12)) base.max_players = Math.min(largest, 30);
    return base;
  }

  paintCount() {
    const lines = this.values.people.split(/\n/).filter((l) => l.trim()).length;
    this.countLine.textContent = t("event.new.people_count", { n: lines });
  }

  paintPrizes() {
    const rows = [];
    let total = 0;
    for (const tier of TIERS) {
      const items = this.prizes[tier] || (this.prizes[tier] = []);
      const count = items.reduce((n, i) => n + (Number(i.count) || 0), 0);
      const value = items.reduce((n, i) => n + (Number(i.count) || 0) * (Number(i.value) || 0), 0);
      total += value;
      rows.push(
        h(
          "div",
          { class: "ev-tier", dataset: { tier } },
          h(
            "h3",
            { class: "sub-title" },
            tierName(tier),
            " ",
            h("span", { class: "badge badge-muted" }, t("event.new.tier_sum", { n: count, value })),
          ),
          items.map((item, index) =>
            h(
              "div",
              { class: "ev-row" },
              h("input", {
                class: "input",
                value: item.name,
                maxlength: 40,
                placeholder: t("event.new.item_name"),
                "aria-label": t("event.new.item_name_for", { tier: tierName(tier) }),
                oninput: (ev) => (item.name = ev.target.value),
                onchange: () => this.paintPrizes(),
              }),
              h("input", {
                class: "input input-num",
                type: "number",
                min: 0,
                value: item.count,
                "aria-label": t("event.new.count_for", { tier: tierName(tier) }),
                onchange: (ev) => {
                  item.count = Number(ev.target.value);
                  this.paintPrizes();
                },
              }),
              h("input", {
                class: "input input-num",
                type: "number",
                min: 0,
                step: "any",
                value: item.value,
                "aria-label": t("event.new.value_for", { tier: tierName(tier) }),
                onchange: (ev) => {
                  item.value = Number(ev.target.value);
                  this.paintPrizes();
                },
              }),
              h(
                "button",
                {
                  type: "button",
                  class: "btn btn-ghost btn-small",
                  "aria-label": t("event.new.remove_item", { name: item.name }),
                  onclick: () => {
                    items.splice(index, 1);
                    this.paintPrizes();
                  },
                },
                "✕",
              ),
            ),
          ),
          h(
            "button",
            {
              type: "button",
              class: "btn btn-ghost btn-small",
              onclick: () => {
                items.push({ name: "", count: 1, value: 0 });
                this.paintPrizes();
              },
            },
            t("event.new.add_item"),
          ),
        ),
      );
    }
    rows.push(
      h(
        "p",
        { class: "ev-total" },
        t("event.new.set_total", { value: Math.round(total * 100) / 100 }),
      ),
    );
    mount(this.prizeBox, rows);
  }

  paintCosts() {
    mount(
      this.costBox,
      this.costs.map((cost, index) =>
        h(
          "div",
          { class: "ev-row" },
          h("input", {
            class: "input",
            value: cost.name,
            maxlength: 40,
            placeholder: t("event.new.cost_name"),
            "aria-label": t("event.new.cost_name"),
            oninput: (ev) => (cost.name = ev.target.value),
          }),
          h("input", {
            class: "input input-num",
            type: "number",
            min: 0,
            step: "any",
            value: cost.amount,
            "aria-label": t("event.new.cost_amount"),
            oninput: (ev) => (cost.amount = Number(ev.target.value)),
          }),
          h(
            "button",
            {
              type: "button",
              class: "btn btn-ghost btn-small",
              "aria-label": t("event.new.remove_item", { name: cost.name }),
              onclick: () => {
                this.costs.splice(index, 1);
                this.paintCosts();
              },
            },
            "✕",
          ),
        ),
      ),
      h(
        "button",
        {
          type: "button",
          class: "btn btn-ghost btn-small",
          onclick: () => {
            this.costs.push({ name: "", amount: 0 });
            this.paintCosts();
          },
        },
        t("event.new.add_cost"),
      ),
    );
  }

  async upload(file) {
    if (!file) return;
    if (file.size > MAX_ROSTER_BYTES) {
      toast(t("event.new.roster_too_large"), { kind: "error" });
      return;
    }
    const format = /\.xlsx$/i.test(file.name) ? "xlsx" : /\.csv$/i.test(file.name) ? "csv" : "text";
    try {
      const { people } = await eventApi.roster(file, format);
      this.values.people = peopleText(people);
      this.peopleBox.value = this.values.people;
      this.paintCount();
      toast(t("event.new.roster_read", { n: people.length }));
    } catch (err) {
      showEventError(err);
    }
  }

  body(people) {
    const v = this.values;
    const prizes = {};
    for (const tier of TIERS) {
      const items = (this.prizes[tier] || []).filter((i) => i.name.trim());
      if (items.length)
        prizes[tier] = items.map((i) => ({
          name: i.name.trim(),
          count: Number(i.count) || 0,
          value: Number(i.value) || 0,
        }));
    }
    const body = {
      name: v.name,
      rules: this.rules(people),
      mode: v.mode,
      people,
      seating: v.seating,
      prizes: v.award === "cakes" ? prizes : undefined,
      budget: {
        contribution: Number(v.contribution) || 0,
        fixed_costs: this.costs.filter((c) => c.name.trim()),
      },
      playoff_prize: {
        name: v.playoffName || t("event.playoff_prize_default"),
        value: Number(v.playoffValue) || 0,
      },
    };
    if (v.date) body.date = v.date;
    if (v.by === "tables") body.tables = Number(v.count);
    else body.table_size = Number(v.count);
    if (v.startThrower.trim()) body.start_thrower = v.startThrower.trim();
    if (Number(v.timeLimit) >= 1) body.time_limit = Number(v.timeLimit);
    if (v.previous) body.previous = v.previous;
    return body;
  }

  async submit() {
    if (this.busy) return;
    this.busy = true;
    const button = this.form.querySelector("#ev-create");
    button.disabled = true;
    try {
      await this.switches.settled(); // the server's reading of the last switch changed
      const blob = new Blob([this.values.people], { type: "text/plain" });
      const { people } = await eventApi.roster(blob, "text");
      const created = await eventApi.create(this.body(people));
      rememberCreated(created);
      toast(t("event.new.created", { n: created.tables.length }));
      this.navigate(`/e/${created.code}`);
    } catch (err) {
      showEventError(err);
    } finally {
      this.busy = false;
      button.disabled = false;
    }
  }
}
