// Create an event (/e/new, /e/new?from=CODE for next year's from last year's): the people
// (typed, pasted, or a CSV / XLSX roster), tables or table size, seating, how tables play,
// rules, one table's prize set with named goods per tier, the budget, the 王中王 prize.

import { h, mount } from "../dom.js";
import { t, has } from "../i18n.js";
import { getJson, loadPresets } from "../api.js";
import { LatestAfterPause, lengthFacts, lengthPath } from "../game_length.js";
import { TIERS } from "../protocol.js";
import { tierName } from "../rulebook.js";
import { renderTopbar, showError, toast } from "../ui.js";
import { eventApi, rememberCreated, showEventError, tableLabel } from "../event.js";
import { PRIZES_2013 } from "../tableform.js";
import { limits } from "../limits.js";
import { yearsSection } from "../years.js";
import { EventForm, peopleText } from "../event_form.js";

/** A pause after the preview before asking how long a game takes (the analysis routes are
 * rate-limited per address; a new prize set is a new simulation). */
const LENGTH_PAUSE_MS = 1200;
/** Seconds to wait before asking again when the server was busy or the limit was reached. */
const LENGTH_RETRY_S = 10;

export class EventNewView extends EventForm {
  /**
   * @param {HTMLElement} main
   * @param {{navigate: (path: string) => void, from?: string | null}} options
   */
  constructor(main, { navigate, from = null }) {
    super();
    this.main = main;
    this.navigate = navigate;
    /** @type {string | null} last year's code (/e/new?from=CODE) */
    this.from = from;
    this.form = null;
    /** @type {WeakMap<object, HTMLInputElement>} each good's name box, by the good */
    this.nameInputs = new WeakMap();
    this.busy = false;
    /** @type {string | null} the last game-length question asked (the same one is not asked again) */
    this.lengthAsked = null;
    this.lengths = new LatestAfterPause(LENGTH_PAUSE_MS, (question) => getJson(question), {
      onAnswer: (data) => this.paintLength(data),
      onError: (err, question) => this.lengthFailed(err, question),
    });
  }

  destroy() {
    clearTimeout(this.previewTimer);
    clearTimeout(this.retryTimer);
    this.lengths.cancel();
  }

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

  /**
   * @param {string} id
   * @param {string} label
   * @param {import("../dom.js").Child} control
   * @param {string | null} [hint]
   */
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
    const lim = limits(); // every bound and hint below is the server's
    /** The most tables, or the most people at one table (the "by" radios say which). */
    const countMax = () => (v.by === "tables" ? lim.max_event_tables : lim.max_players);
    const input = (
      /** @type {string} */ id,
      /** @type {string} */ key,
      /** @type {import("../dom.js").Attrs} */ attrs = {},
    ) =>
      h("input", {
        id,
        class: "input",
        value: v[key],
        ...attrs,
        oninput: (/** @type {{target: HTMLInputElement}} */ ev) =>
          (v[key] = attrs.type === "number" ? Number(ev.target.value) : ev.target.value),
      });
    const peopleBox = h("textarea", {
      id: "ev-people",
      class: "input ev-people",
      rows: 10,
      placeholder: t("event.new.people_placeholder"),
      oninput: (/** @type {{target: HTMLTextAreaElement}} */ ev) => {
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
      onchange: (/** @type {{target: HTMLInputElement}} */ ev) =>
        this.upload(ev.target.files && ev.target.files[0]),
    });
    const presetSelect = h(
      "select",
      {
        id: "ev-preset",
        class: "input",
        onchange: (/** @type {{target: HTMLSelectElement}} */ ev) => {
          v.preset = ev.target.value;
          this.rulesObject = null;
          this.loadSwitches();
        },
      },
      Object.keys((this.presets && this.presets.presets) || { traditional: 1 })
        .filter((id) => has(`preset.${id}`))
        .map((id) => h("option", { value: id, selected: id === v.preset }, t(`preset.${id}`))),
    );
    const radios = (
      /** @type {string} */ name,
      /** @type {string} */ key,
      /** @type {string[]} */ options,
    ) =>
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
              onchange: () => {
                v[key] = opt;
                if (key === "by") this.countInput.max = String(countMax());
                // only a referee table's dice are photographed (docs/vision.md)
                if (key === "mode") this.keepPhotosRow.hidden = opt !== "referee";
              },
            }),
            h("span", {}, t(`event.new.${key}.${opt}`)),
          ),
        ),
      );
    this.prizeBox = h("div", { class: "ev-prizes" });
    this.summaryLine = h("p", { class: "ev-summary", id: "ev-summary", "aria-live": "polite" });
    this.leadersLine = h("p", { class: "ev-leaders-note", "aria-live": "polite", hidden: true });
    this.lengthBox = h("div", { class: "ev-length", id: "ev-length", "aria-live": "polite" });
    this.lengthAsked = null; // a new form: its box starts empty
    this.rankedBox = h("div", { class: "ev-ranked" });
    this.prizeSet = h(
      "fieldset",
      { class: "fieldset", hidden: v.award !== "cakes" && !this.programme.plays("cakes") },
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
          max: lim.max_rounds,
          class: "input input-num",
          onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
            const n = Number(ev.target.value);
            if (ev.target.value !== "" && !(Number.isInteger(n) && n >= 1 && n <= lim.max_rounds))
              toast(t("terms.bad_rounds", { value: ev.target.value, max: lim.max_rounds }), {
                kind: "error",
              });
          },
        }),
        t("event.new.rounds_hint", { max: lim.max_rounds }),
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
        onsubmit: (/** @type {Event} */ ev) => {
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
      yearsSection(this.years),
      this.field(
        "ev-name",
        t("event.new.name"),
        input("ev-name", "name", { maxlength: lim.max_event_name, required: true }),
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
        (this.countInput = input("ev-count", "count", {
          type: "number",
          min: 1,
          max: countMax(),
          class: "input input-num",
          "aria-label": t("event.new.count"),
        })),
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
      this.programme.el,
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
        this.field(
          "ev-surplus",
          t("event.new.surplus"),
          h(
            "select",
            {
              id: "ev-surplus",
              class: "input",
              onchange: (/** @type {{target: HTMLSelectElement}} */ ev) =>
                (v.surplus = ev.target.value),
            },
            ["fund", "refund"].map((opt) =>
              h(
                "option",
                { value: opt, selected: v.surplus === opt },
                t(`event.new.surplus.${opt}`),
              ),
            ),
          ),
        ),
        this.donatedBox(),
      ),
      h(
        "label",
        { class: "ev-check" },
        h("input", {
          type: "checkbox",
          id: "ev-check-in",
          checked: v.checkIn,
          onchange: (/** @type {{target: HTMLInputElement}} */ ev) =>
            (v.checkIn = ev.target.checked),
        }),
        h("span", {}, t("event.new.check_in")),
      ),
      h("p", { class: "hint" }, t("event.new.check_in_hint")),
      (this.keepPhotosRow = h(
        "label",
        { class: "ev-check", hidden: v.mode !== "referee" },
        h("input", {
          type: "checkbox",
          id: "ev-keep-photos",
          checked: v.keepPhotos,
          onchange: (/** @type {{target: HTMLInputElement}} */ ev) =>
            (v.keepPhotos = ev.target.checked),
        }),
        h("span", {}, t("event.new.keep_photos")),
      )),
      h(
        "fieldset",
        { class: "fieldset" },
        h("legend", { class: "field-label" }, t("event.new.playoff")),
        h("p", { class: "hint" }, t("event.new.playoff_hint")),
        h(
          "div",
          { class: "ev-row" },
          input("ev-playoff-name", "playoffName", {
            maxlength: lim.max_prize_name,
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
          max: lim.max_time_limit,
          class: "input input-num",
        }),
        t("event.new.time_limit_hint"),
      ),
      this.field(
        "ev-thrower",
        t("event.new.start_thrower"),
        h(
          "div",
          { class: "ev-row" },
          h(
            "select",
            {
              id: "ev-thrower-mode",
              class: "input",
              "aria-label": t("event.new.start_mode"),
              onchange: (/** @type {{target: HTMLSelectElement}} */ ev) =>
                (v.throwerMode = ev.target.value),
            },
            ["first_seat", "leader", "elder"].map((opt) =>
              h(
                "option",
                { value: opt, selected: v.throwerMode === opt },
                t(`event.new.start_mode.${opt}`),
              ),
            ),
          ),
          input("ev-thrower", "startThrower", {
            maxlength: 200,
            "aria-label": t("event.new.start_names"),
          }),
        ),
        t("event.new.start_thrower_hint"),
      ),
      this.summaryLine,
      this.leadersLine,
      this.lengthBox,
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
      this.askLength(null);
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
          : b.surplus_use === "refund"
            ? t("event.budget.surplus_refund", { n: b.surplus, people: b.people })
            : t("event.budget.surplus", { n: b.surplus });
      this.summaryLine.classList.remove("is-error");
      this.summaryLine.textContent = t("event.new.summary", {
        n: p.tables.length,
        sizes: p.tables.join(t("list.sep")),
        income: b.income,
        spent: b.spent,
        money,
      });
      this.paintLeaders(p);
      this.askLength(p);
    } catch (err) {
      this.summaryLine.classList.add("is-error");
      this.summaryLine.textContent = err.detail || err.message;
      this.paintLeaders(null);
      this.askLength(null);
    }
  }

  /** The seating and the roster's 组长 (the preview's `leaders`): one at each table, or which
   * tables have none because the roster marks fewer 组长 than there are tables.
   * @param {Record<string, any> | null} preview the server's preview (null: none) */
  paintLeaders(preview) {
    const leaders = preview && preview.leaders;
    this.leadersLine.hidden = !leaders;
    if (!leaders) return;
    const short = leaders.without.length > 0;
    this.leadersLine.classList.toggle("is-warning", short);
    this.leadersLine.textContent = short
      ? t("event.new.leaders_short", {
          n: leaders.marked,
          tables: preview.tables.length,
          list: leaders.without.map((/** @type {number} */ n) => tableLabel(n)).join(t("list.sep")),
        })
      : t("event.new.leaders_each", { n: leaders.marked });
  }

  /**
   * How long one table's game takes under the rules the preview says every table gets, at its
   * largest table, and what the time limit does to it (/api/game-length; a ranked session
   * lasts its rounds, nothing to ask). The same question is not asked twice.
   * @param {Record<string, any> | null} preview the server's preview (null: none)
   */
  askLength(preview) {
    const limit = Number(this.values.timeLimit);
    const question =
      preview && preview.tables.length && this.values.award === "cakes"
        ? lengthPath({
            players: Math.max(...preview.tables),
            rules: preview.rules,
            minutes: limit >= 1 ? Math.round(limit) : null,
          })
        : null;
    if (question === this.lengthAsked) return;
    this.lengthAsked = question;
    clearTimeout(this.retryTimer);
    if (question === null) {
      this.lengths.cancel();
      mount(this.lengthBox);
      return;
    }
    this.lengthBox.setAttribute("aria-busy", "true");
    if (!this.lengthBox.firstChild)
      mount(this.lengthBox, h("p", { class: "hint" }, t("odds.computing")));
    this.lengths.ask(question);
  }

  /**
   * The server is busy or this address asked too often: say so and ask again later.
   * @param {any} err an ApiError (code, params, detail) or any other error
   * @param {string} question
   */
  lengthFailed(err, question) {
    this.lengthBox.removeAttribute("aria-busy");
    if (err.code === "rate_limited" || err.code === "busy" || err.code === "network") {
      const wait = Number(err.params && err.params.retry_after) || LENGTH_RETRY_S;
      mount(this.lengthBox, h("p", { class: "hint" }, t("event.new.length.later")));
      this.retryTimer = setTimeout(() => {
        if (question === this.lengthAsked) this.lengths.ask(question, { now: true });
      }, wait * 1000);
      return;
    }
    mount(this.lengthBox, h("p", { class: "hint is-error" }, err.detail || err.message));
  }

  /**
   * One table's game: the median and the middle 90 % in throws and minutes; the time limit.
   * @param {import("../game_length.js").GameLength} data
   */
  paintLength(data) {
    this.lengthBox.removeAttribute("aria-busy");
    const f = lengthFacts(data);
    const min = (/** @type {number} */ m) => String(Math.max(1, Math.round(m)));
    // a share short of all (or of none) is never rounded to 100 % (or to 0 %)
    const pct = (/** @type {number} */ p) =>
      p > 0 && p < 0.01
        ? t("event.new.length.under_1pct")
        : `${p < 1 ? Math.min(99, Math.round(p * 100)) : 100}%`;
    const limit = f.limit;
    // read only where limit is set (so never null there)
    const said = /** @type {Record<string, unknown>} */ (
      limit && {
        limit: limit.minutes,
        throws: limit.throws,
        share: pct(limit.runsPast),
        high: min(f.minutes.p95),
      }
    );
    const limitText = !limit
      ? null
      : limit.likely
        ? t("event.new.length.limit_likely", said)
        : limit.runsPast > 0
          ? t("event.new.length.limit_some", said)
          : t("event.new.length.limit_none", said);
    mount(
      this.lengthBox,
      h(
        "p",
        { class: "ev-length-line" },
        t("event.new.length.line", {
          players: data.players,
          throws: f.throws.p50,
          seconds: f.seconds,
          minutes: min(f.minutes.p50),
          low: min(f.minutes.p5),
          high: min(f.minutes.p95),
          throws_low: f.throws.p5,
          throws_high: f.throws.p95,
        }),
      ),
      limit
        ? h("p", { class: ["ev-length-limit", limit.likely ? "is-warning" : ""] }, limitText)
        : null,
    );
  }

  /**
   * One good's row: name, count, value (and remove). Typing changes the model and the sums only,
   * never the row: a repaint would take the focus (and the next keystrokes) away.
   * @param {import("../event_form.js").Good} item
   * @param {{name: string, count: string, value: string}} labels
   * @param {() => void} onRemove
   */
  goodsRow(item, labels, onRemove) {
    const number =
      (/** @type {"count" | "value"} */ key) => (/** @type {{target: HTMLInputElement}} */ ev) => {
        item[key] = ev.target.value === "" ? 0 : Number(ev.target.value);
        this.paintSums();
      };
    const nameInput = h("input", {
      class: "input ev-goods-name",
      value: item.name,
      maxlength: limits().max_prize_name,
      placeholder: t("event.new.item_name"),
      "aria-label": labels.name,
      oninput: (/** @type {{target: HTMLInputElement}} */ ev) => (item.name = ev.target.value),
    });
    this.nameInputs.set(item, nameInput);
    return h(
      "div",
      { class: "ev-row ev-goods-row" },
      nameInput,
      h("input", {
        class: "input input-num ev-goods-count",
        type: "number",
        min: 0,
        value: item.count,
        "aria-label": labels.count,
        oninput: number("count"),
      }),
      h("input", {
        class: "input input-num ev-goods-value",
        type: "number",
        min: 0,
        step: "any",
        value: item.value,
        "aria-label": labels.value,
        oninput: number("value"),
      }),
      h(
        "button",
        {
          type: "button",
          class: "btn btn-ghost btn-small",
          "aria-label": t("event.new.remove_item", { name: item.name }),
          onclick: onRemove,
        },
        "✕",
      ),
    );
  }

  /** The column headers over goods rows. */
  goodsHead() {
    return h(
      "div",
      { class: "ev-goods-head", "aria-hidden": "true" },
      h("span", {}, t("event.new.col_name")),
      h("span", {}, t("event.new.col_count")),
      h("span", {}, t("event.new.col_value")),
    );
  }

  /**
   * Add an empty good to `items`, repaint with `paint`, and put the cursor in its name.
   * @param {import("../event_form.js").Good[]} items
   * @param {() => void} paint
   */
  addGood(items, paint) {
    const item = { name: "", count: 1, value: 0 };
    items.push(item);
    paint();
    // the new row's own name box, in its own tier (not the last name box of the whole form)
    const input = this.nameInputs.get(item);
    if (input) input.focus();
  }

  paintRanked() {
    mount(
      this.rankedBox,
      this.goodsHead(),
      h(
        "ol",
        { class: "ev-ranked-list" },
        this.ranked.map((prize, index) =>
          h(
            "li",
            {},
            this.goodsRow(
              prize,
              {
                name: t("event.new.ranked_name", { n: index + 1 }),
                count: t("event.new.ranked_count", { n: index + 1 }),
                value: t("event.new.ranked_value", { n: index + 1 }),
              },
              () => {
                this.ranked.splice(index, 1);
                this.paintRanked();
              },
            ),
          ),
        ),
      ),
      h(
        "div",
        { class: "btn-row" },
        h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost btn-small",
            onclick: () => this.addGood(this.ranked, () => this.paintRanked()),
          },
          t("event.new.add_item"),
        ),
        h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost btn-small",
            "data-load-2013": "",
            onclick: () => {
              this.ranked = PRIZES_2013.map((p) => ({ ...p }));
              this.paintRanked();
              this.schedulePreview();
              toast(t("terms.loaded_2013"));
            },
          },
          t("terms.load_2013"),
        ),
      ),
    );
  }

  paintCount() {
    const all = this.values.people.split(/\n/).filter((l) => l.trim());
    const lines = all.length - (all[0] && all[0].startsWith("姓名\t") ? 1 : 0);
    this.countLine.textContent = t("event.new.people_count", { n: lines });
  }

  paintPrizes() {
    this.sums = new Map();
    const rows = [this.goodsHead()];
    for (const tier of TIERS) {
      const items = this.prizes[tier] || (this.prizes[tier] = []);
      const badge = h("span", { class: "badge badge-muted" });
      this.sums.set(tier, badge);
      const box = h(
        "div",
        { class: "ev-tier", dataset: { tier } },
        h("h2", { class: "sub-title" }, tierName(tier), " ", badge),
        items.map((item, index) =>
          this.goodsRow(
            item,
            {
              name: t("event.new.item_name_for", { tier: tierName(tier) }),
              count: t("event.new.count_for", { tier: tierName(tier) }),
              value: t("event.new.value_for", { tier: tierName(tier) }),
            },
            () => {
              items.splice(index, 1);
              this.paintPrizes();
            },
          ),
        ),
      );
      box.appendChild(
        h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost btn-small",
            onclick: () => this.addGood(items, () => this.paintPrizes()),
          },
          t("event.new.add_item"),
        ),
      );
      rows.push(box);
    }
    this.totalLine = h("p", { class: "ev-total" });
    rows.push(this.totalLine);
    mount(this.prizeBox, rows);
    this.paintSums();
  }

  /** Each tier's count and value, and the set's total, from the goods as typed so far. */
  paintSums() {
    if (!this.sums) return;
    let total = 0;
    for (const tier of TIERS) {
      const items = this.prizes[tier] || [];
      const count = items.reduce((n, i) => n + (Number(i.count) || 0), 0);
      const value = items.reduce((n, i) => n + (Number(i.count) || 0) * (Number(i.value) || 0), 0);
      total += value;
      const badge = this.sums.get(tier);
      if (badge) badge.textContent = t("event.new.tier_sum", { n: count, value });
    }
    this.totalLine.textContent = t("event.new.set_total", { value: Math.round(total * 100) / 100 });
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
            maxlength: limits().max_cost_name,
            placeholder: t("event.new.cost_name"),
            "aria-label": t("event.new.cost_name"),
            oninput: (/** @type {{target: HTMLInputElement}} */ ev) =>
              (cost.name = ev.target.value),
          }),
          h("input", {
            class: "input input-num",
            type: "number",
            min: 0,
            step: "any",
            value: cost.amount,
            "aria-label": t("event.new.cost_amount"),
            oninput: (/** @type {{target: HTMLInputElement}} */ ev) =>
              (cost.amount = Number(ev.target.value)),
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

  /** @param {File | null | undefined} file the roster picked (none: nothing to read) */
  async upload(file) {
    if (!file) return;
    if (file.size > limits().max_roster_bytes) {
      toast(t("event.new.roster_too_large", { mb: limits().max_roster_bytes / 1e6 }), {
        kind: "error",
      });
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

  /** The 会饼 someone gives (`donated_sets`, §9.4): one set each, two with a new son; on
   * every event form (a next year's comes with last year's 状元 filled in). */
  donatedBox() {
    this.donatedEl = h("div", { class: "ev-donated" });
    this.paintDonated();
    return this.donatedEl;
  }

  paintDonated(focusLast = false) {
    const rows = this.donated.map((d, i) => {
      const label = h("span", {}, t("event.new.new_son", { name: d.name || "…" }));
      const box = h("input", {
        type: "checkbox",
        class: "ev-new-son",
        dataset: { name: d.name },
        checked: d.new_son,
        onchange: (/** @type {{target: HTMLInputElement}} */ ev) => {
          this.donated[i].new_son = ev.target.checked;
          this.schedulePreview();
        },
      });
      return h(
        "div",
        { class: "ev-row ev-donor" },
        h("input", {
          class: "input ev-donor-name",
          value: d.name,
          maxlength: limits().max_name_length,
          placeholder: t("event.new.donor_placeholder"),
          "aria-label": t("event.new.donor_name", { n: i + 1 }),
          oninput: (/** @type {{target: HTMLInputElement}} */ ev) => {
            d.name = ev.target.value.trim();
            box.dataset.name = d.name;
            label.textContent = t("event.new.new_son", { name: d.name || "…" });
            this.schedulePreview();
          },
        }),
        h("label", { class: "ev-check" }, box, label),
        h(
          "button",
          {
            type: "button",
            class: "btn btn-ghost btn-small",
            "aria-label": t("event.new.remove_item", { name: d.name }),
            onclick: () => {
              this.donated.splice(i, 1);
              this.paintDonated();
              this.schedulePreview();
            },
          },
          "✕",
        ),
      );
    });
    mount(
      this.donatedEl,
      this.organizers.length
        ? h("p", {}, t("event.organizers", { names: this.organizers.join(t("list.sep")) }))
        : null,
      h("p", { class: "field-label" }, t("event.new.donated")),
      h("p", { class: "hint" }, t("event.new.donated_hint")),
      rows,
      h(
        "button",
        {
          type: "button",
          class: "btn btn-ghost btn-small ev-add-donor",
          onclick: () => {
            this.donated.push({ name: "", new_son: false });
            this.paintDonated(true);
          },
        },
        t("event.new.add_donor"),
      ),
    );
    if (focusLast) {
      const names = this.donatedEl.querySelectorAll(".ev-donor-name");
      if (names.length) /** @type {HTMLInputElement} */ (names[names.length - 1]).focus();
    }
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
      toast(
        created.tables.length
          ? t("event.new.created", { n: created.tables.length })
          : t("event.new.created_check_in"),
      );
      this.navigate(`/e/${created.code}`);
    } catch (err) {
      showEventError(err);
    } finally {
      this.busy = false;
      button.disabled = false;
    }
  }
}
