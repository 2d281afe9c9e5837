// The event form's state (/e/new): what the organiser has typed so far, last year's event read
// into it (/e/new?from=CODE), and the request it makes for the server (the preview and the
// create). views/event_new.js draws it and wires the boxes to it.

import { t } from "./i18n.js";
import { TIERS } from "./protocol.js";
import { eventApi } from "./event.js";
import { RuleSwitches } from "./switches.js";
import { limits } from "./limits.js";
import { programmeFor } from "./programme.js";
import { fetchYears } from "./years.js";

/** @typedef {{name: string, count: number, value: number}} Good  a prize: what, how many, each worth */
/** @typedef {Record<string, any>} Person  one line of the roster (name, group, paid, elder, leader) */
/**
 * The boxes of the form as typed (the view writes into them by key).
 * @typedef {{name: string, date: string, people: string, by: string, count: number,
 *   seating: string, mode: string, preset: string, contribution: number, playoffName: string,
 *   playoffValue: number, startThrower: string, throwerMode: string, checkIn: boolean, keepPhotos: boolean,
 *   surplus: string, previous: any, award: string, rounds: number | string,
 *   timeLimit: number | string} & Record<string, any>} FormValues
 */

/** The class event's set for one table (seed 003): 550 元 a table. @returns {Record<string, Good[]>} */
function classPrizes() {
  const item = (
    /** @type {string} */ key,
    /** @type {number} */ count,
    /** @type {number} */ value,
  ) => ({ name: t(`event.new.example.${key}`), count, value });
  return {
    zhuangyuan: [item("doll", 1, 65)],
    duitang: [item("shampoo", 2, 40), item("shower_gel", 2, 40)],
    sanhong: [item("cup", 3, 20), item("umbrella", 3, 20)],
    sijin: [item("towel", 10, 5)],
    erju: [item("biscuits", 25, 3)],
    yixiu: [item("cola", 40, 2)],
  };
}

/** The roster's optional columns (RULES.md §9.4), with the headers the server reads. */
const FLAG_COLUMNS = [
  ["paid", "已交费"],
  ["elder", "长辈"],
  ["leader", "组长"],
];

/** The roster as the people box shows it. @param {Person[]} people */
export function peopleText(people) {
  // Only the columns last year's roster had: a 已交费 column it never had would mark everyone
  // unpaid (and next year's income 0), where without one everyone counts as paying.
  const columns = FLAG_COLUMNS.filter(([key]) => people.some((p) => key in p));
  if (!columns.length)
    return people.map((p) => (p.group ? `${p.name}\t${p.group}` : p.name)).join("\n");
  // A header keeps the paid / elder / 组长 ticks through the text box (the server reads it).
  const header = ["姓名", "组别", ...columns.map(([, head]) => head)].join("\t");
  const rows = people.map((p) =>
    [p.name, p.group || "", ...columns.map(([key]) => (p[key] ? "✓" : ""))].join("\t"),
  );
  return [header, ...rows].join("\n");
}

/**
 * ``start_thrower`` as the form holds it: the names (last year's 状元) and one mode.
 * @param {string | string[] | null | undefined} value
 */
function splitThrower(value) {
  const items = value == null ? [] : Array.isArray(value) ? value : [value];
  const modes = ["first_seat", "leader", "elder"];
  return {
    startThrower: items.filter((i) => !modes.includes(i)).join("、"),
    throwerMode: items.find((i) => modes.includes(i)) || "first_seat",
  };
}

/** The form's state and the request it makes; the view (views/event_new.js) extends it. */
export class EventForm {
  constructor() {
    /** @type {{presets?: Record<string, any>} | null} the server's presets (/api/presets) */
    this.presets = null;
    this.prizes = classPrizes();
    /** @type {{name: string, amount: number}[]} the budget's fixed costs */
    this.costs = [];
    /** @type {{name: string, new_son: boolean}[]} who gives a 会饼 set */
    this.donated = [];
    /** @type {string[]} */
    this.organizers = [];
    /** @type {Good[]} a ranked session's prizes, by place */
    this.ranked = [
      { name: t("event.new.example.first"), count: 1, value: 498 },
      { name: t("event.new.example.second"), count: 1, value: 199 },
      { name: t("event.new.example.third"), count: 1, value: 89 },
    ];
    /** @type {Record<string, any> | null} last year's rules, over their preset */
    this.rulesObject = null;
    /** @type {import("./years.js").Year[]} 历届 of a next-year form (RULES.md §10.3) */
    this.years = [];
    this.programme = programmeFor(this); // the evening's sessions (RULES.md §10.2)
    this.switches = new RuleSwitches({ onChange: () => this.schedulePreview() });
    /** @type {FormValues} */
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
      throwerMode: "first_seat",
      checkIn: false,
      keepPhotos: false,
      surplus: "fund",
      previous: null,
      award: "cakes",
      rounds: "",
      timeLimit: "",
    };
  }

  /** A rule switch changed: the view asks the server for its reading of the form again. */
  schedulePreview() {}

  /** Last year's event read into the form (next year's from it). @param {string} code */
  async prefill(code) {
    const [tpl, lineage] = await Promise.all([eventApi.next(code), fetchYears(code)]);
    this.years = [lineage.year, ...lineage.years]; // 历届: last year, then every earlier one
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
      ...splitThrower(tpl.start_thrower),
      checkIn: Boolean(tpl.check_in),
      keepPhotos: Boolean(tpl.keep_photos),
      surplus: (tpl.budget && tpl.budget.surplus) || "fund",
      timeLimit: tpl.time_limit || "",
      previous: tpl.previous,
    });
    this.donated = (tpl.donated_sets || []).map((/** @type {Person} */ d) => ({
      name: d.name,
      new_son: !!d.new_son,
    }));
    this.organizers = tpl.organizers || [];
    this.prizes = tpl.prizes || {};
    this.costs = (tpl.budget && tpl.budget.fixed_costs) || [];
    this.rulesObject = tpl.rules || null;
    this.programme.set(tpl.programme, tpl.start_on_time);
    if (tpl.rules && tpl.rules.award === "ranked") {
      this.values.award = "ranked";
      this.ranked = (tpl.rules.ranked_prizes || []).map((/** @type {Good} */ p) => ({ ...p }));
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

  /** The rule object: the preset (or last year's rules), ranked prizes, and enough seats. */
  /** @param {Person[]} people */
  rules(people) {
    const v = this.values;
    /** @type {Record<string, any>} */
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
    const { default_players, max_players } = limits();
    if (largest > (base.max_players || default_players))
      base.max_players = Math.min(largest, max_players);
    return base;
  }

  /** The request the preview and the create send. @param {Person[]} people */
  body(people) {
    const v = this.values;
    /** @type {Record<string, Good[]>} */
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
    /** @type {Record<string, any>} */
    const body = {
      name: v.name,
      rules: this.rules(people),
      mode: v.mode,
      people,
      seating: v.seating,
      prizes: v.award === "cakes" || this.programme.plays("cakes") ? prizes : undefined,
      budget: {
        contribution: Number(v.contribution) || 0,
        fixed_costs: this.costs.filter((c) => c.name.trim()),
        ...(v.surplus === "refund" ? { surplus: "refund" } : {}),
      },
      playoff_prize: {
        name: v.playoffName || t("event.playoff_prize_default"),
        value: Number(v.playoffValue) || 0,
      },
    };
    if (v.date) body.date = v.date;
    if (v.by === "tables") body.tables = Number(v.count);
    else body.table_size = Number(v.count);
    const throwers = v.startThrower
      .split(/[、，,;；\s]+/)
      .filter(Boolean)
      .concat(v.throwerMode !== "first_seat" ? [v.throwerMode] : []);
    if (throwers.length) body.start_thrower = throwers.length === 1 ? throwers[0] : throwers;
    if (v.checkIn) body.check_in = true;
    if (v.keepPhotos && v.mode === "referee") body.keep_photos = true;
    const donated = this.donated.filter((d) => d.name);
    if (donated.length) body.donated_sets = donated;
    if (this.organizers.length) body.organizers = this.organizers;
    if (Number(v.timeLimit) >= 1) body.time_limit = Number(v.timeLimit);
    if (v.previous) body.previous = v.previous;
    Object.assign(body, this.programme.bodyPart());
    return body;
  }
}
